static ASSETS: bindery::Catalog = bindery::embed!("Cargo.toml");

fn main() {
    let _ = ASSETS.len();
}
