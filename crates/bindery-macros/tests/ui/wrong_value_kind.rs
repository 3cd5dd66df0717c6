static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures", hidden = "yes", level = "9");

fn main() {
    let _ = ASSETS.len();
}
