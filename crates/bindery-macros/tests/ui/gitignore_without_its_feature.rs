// `.gitignore` rules from bindery with its default features: refused, naming the feature that
// reads them (the walk itself needs none).
static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures", gitignore = true);

fn main() {
    let _ = ASSETS.len();
}
