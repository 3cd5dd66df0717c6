static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures", compress = true);

fn main() {
    let _ = ASSETS.len();
}
