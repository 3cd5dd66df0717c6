static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip", level = 12);

fn main() {
    let _ = ASSETS.len();
}
