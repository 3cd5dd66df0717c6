static ASSETS: bindery::Catalog =
    bindery::embed!("../../assets/fixtures", precompress = ["gzip", "gzip"]);

fn main() {
    let _ = ASSETS.len();
}
