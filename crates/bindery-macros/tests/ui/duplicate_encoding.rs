static ASSETS: bindery::Catalog =
    bindery::embed!("../../assets/fixtures", mode = "gzip", precompress = ["gzip", "gzip"]);

fn main() {
    let _ = ASSETS.len();
}
