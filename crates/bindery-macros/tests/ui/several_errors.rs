static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "lz4", exclude = "[", colour = 1);

fn main() {
    let _ = ASSETS.len();
}
