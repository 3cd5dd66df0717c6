// A catalog whose `releases` is not a folder of releases: the error points at `releases`.
static ASSETS: bindery::Catalog = bindery::embed!(".", include = "Cargo.toml", releases = "Cargo.toml");

fn main() {
    let _ = ASSETS.len();
}
