static ASSETS: bindery::Catalog = bindery::embed!();

fn main() {
    let _ = ASSETS.len();
}
