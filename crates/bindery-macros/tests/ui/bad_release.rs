// A catalog that keeps releases from bindery with its default features (the `releases` feature
// reads their records): the error points at the setting and names the feature.
static ASSETS: bindery::Catalog = bindery::embed!(".", include = "Cargo.toml", releases = "Cargo.toml");

fn main() {
    let _ = ASSETS.len();
}
