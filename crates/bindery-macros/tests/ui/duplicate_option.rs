static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip", mode = "copy");

fn main() {
    let _ = ASSETS.len();
}
