// Every other option whose work a feature compiles, from bindery with its default features:
// each refused where it is written, naming its feature.
static HASHES: bindery::Catalog = bindery::embed!("../../assets/fixtures", script_hashes = true);
static ENCODERS: bindery::Catalog = bindery::embed!("../../assets/fixtures", precompress = ["br", "zstd"]);
static DELTAS: bindery::Catalog = bindery::embed!("../../assets/fixtures", dictionaries = true);

fn main() {
    let _ = (HASHES.len(), ENCODERS.len(), DELTAS.len());
}
