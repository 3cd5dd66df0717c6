static ASSETS: bindery::Catalog = bindery::embed!("${OUT_DIR/dist");

fn main() {
    let _ = ASSETS.len();
}
