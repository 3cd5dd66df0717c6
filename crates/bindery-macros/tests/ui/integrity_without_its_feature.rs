// Integrity strings (and each file's SHA-256) from bindery with its default features: refused,
// naming the feature that computes them, however the option is written.
static ON: bindery::Catalog = bindery::embed!("../../assets/fixtures", integrity = true);
static ALGORITHM: bindery::Catalog = bindery::embed!("../../assets/fixtures", integrity = "sha512");

fn main() {
    let _ = (ON.len(), ALGORITHM.len());
}
