//! The README's quick start: a folder embedded by the macro, read back without a copy.

// Paths are relative to your crate's Cargo.toml.
static SITE: bindery::Catalog = bindery::embed!("site", mode = "gzip", exclude = ["**/*.map"]);
// Checked when compiled: a typo, or a file `exclude` leaves out, is an error naming the nearest.
const SCRIPT: bindery::Asset = SITE.asset("assets/app.js");

fn main() -> Result<(), bindery::Error> {
    let html = SITE.get("index.html").expect("embedded"); // Cow<'static, [u8]>
    let script = SCRIPT.file(); // its metadata; SCRIPT.url() is the URL a page links
    println!("index.html: {} bytes", html.len());
    println!("{}, etag {}", script.content_type(), script.etag());
    for file in SITE.iter() {
        println!("{} ({} bytes)", file.path(), file.len()); // sorted by path
    }
    SITE.restore(std::env::temp_dir().join("site")) // the tree written back
}
