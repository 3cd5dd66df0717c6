static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures", include = ["**/*.txt", "a[b"]);

fn main() {
    let _ = ASSETS.len();
}
