static ASSETS: bindery::Catalog = bindery::embed!("no/such/folder");

fn main() {
    let _ = ASSETS.len();
}
