// A catalog that asks for Vite's manifest from bindery with its default features (the `vite`
// feature reads it): the error points at the setting and names the feature. (A missing
// manifest is bindery-codegen's `a_missing_bundler_manifest_or_releases_folder_…` test.)
static ASSETS: bindery::Catalog = bindery::embed!(".", include = "Cargo.toml", manifest = "vite");

fn main() {
    let _ = ASSETS.len();
}
