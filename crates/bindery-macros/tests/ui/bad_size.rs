static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures", max_file_size = "lots");

fn main() {
    let _ = ASSETS.len();
}
