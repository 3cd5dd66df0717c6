static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures", precompress = true);

fn main() {
    let _ = ASSETS.len();
}
