// A catalog that asks for Vite's manifest where there is none: the error points at `manifest`.
// (trybuild's crate folder holds its Cargo.toml and no `.vite/manifest.json`.)
static ASSETS: bindery::Catalog = bindery::embed!(".", include = "Cargo.toml", manifest = "vite");

fn main() {
    let _ = ASSETS.len();
}
