static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "zip");

fn main() {
    let _ = ASSETS.len();
}
