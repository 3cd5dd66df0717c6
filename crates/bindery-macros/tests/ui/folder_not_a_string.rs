static ASSETS: bindery::Catalog = bindery::embed!(assets);

fn main() {
    let _ = ASSETS.len();
}
