static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures", integrity = "md5");

fn main() {
    let _ = ASSETS.len();
}
