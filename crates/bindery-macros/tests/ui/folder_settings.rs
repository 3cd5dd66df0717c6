// A further folder takes only the settings each folder has its own of, each checked like the
// first folder's.
static ASSETS: bindery::Catalog = bindery::embed!(
    "../../assets/fixtures",
    folder("../../assets/spa", mode = "gzip", prefix = "../escape", exclude = "["),
    folder("../../assets/nowhere")
);

fn main() {
    let _ = ASSETS.len();
}
