static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures", large = 0);

fn main() {
    let _ = ASSETS.len();
}
