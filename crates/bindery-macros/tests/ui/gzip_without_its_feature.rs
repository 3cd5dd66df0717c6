// `gzip` mode and a gzip variant from bindery with its default features: each is refused where
// it is written, naming the feature that compresses (and, for the mode, decompresses).
static MODE: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
static VARIANT: bindery::Catalog = bindery::embed!("../../assets/fixtures", precompress = ["gzip"]);

fn main() {
    let _ = (MODE.len(), VARIANT.len());
}
