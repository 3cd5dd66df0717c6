static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures", large = "huge");

fn main() {
    let _ = ASSETS.len();
}
