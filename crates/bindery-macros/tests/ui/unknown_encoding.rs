static ASSETS: bindery::Catalog =
    bindery::embed!("../../assets/fixtures", precompress = ["gzip", "deflate"]);

fn main() {
    let _ = ASSETS.len();
}
