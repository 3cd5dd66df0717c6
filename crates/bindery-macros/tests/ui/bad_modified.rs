static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures", modified = "git");

fn main() {
    let _ = ASSETS.len();
}
