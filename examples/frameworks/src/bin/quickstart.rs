//! The README's quick start: a folder embedded by the macro, read back without a copy.

// Paths are relative to your crate's Cargo.toml.
static SITE: bindery::Catalog = bindery::embed!("site", mode = "gzip", exclude = ["**/*.map"]);

fn main() -> Result<(), bindery::Error> {
    let html = SITE.get("index.html").expect("embedded"); // Cow<'static, [u8]>
    let script = SITE.file("assets/app.js").expect("embedded"); // its metadata
    println!("index.html: {} bytes", html.len());
    println!("{}, etag {}", script.content_type(), script.etag());
    for file in SITE.iter() {
        println!("{} ({} bytes)", file.path(), file.len()); // sorted by path
    }
    SITE.restore(std::env::temp_dir().join("site")) // the tree written back
}
