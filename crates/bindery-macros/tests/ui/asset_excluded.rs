static SITE: bindery::Catalog = bindery::embed!("../../../../assets/fixtures", exclude = "**/*.bin");

fn main() {
    let _ = bindery::asset!(SITE, "random.bin").url();
}
