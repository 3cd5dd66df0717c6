static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "static", mode = "copy");

fn main() {
    let _ = ASSETS.len();
}
