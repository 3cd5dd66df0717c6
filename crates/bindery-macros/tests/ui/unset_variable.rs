static ASSETS: bindery::Catalog = bindery::embed!("$BINDERY_NO_SUCH_VARIABLE/dist");

fn main() {
    let _ = ASSETS.len();
}
