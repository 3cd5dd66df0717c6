// Two folders that give one catalog path: the later folder is pointed at, both files named.
// (trybuild's crate folder holds its Cargo.toml, so both folders are that folder.)
static ASSETS: bindery::Catalog = bindery::embed!(
    ".",
    include = "Cargo.toml",
    folder(".", include = ["Cargo.toml", "*.rs"])
);

fn main() {
    let _ = ASSETS.len();
}
