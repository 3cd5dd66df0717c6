static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures", prefix = "../escape");

fn main() {
    let _ = ASSETS.len();
}
