static DIST: bindery::Catalog =
    bindery::embed!("web/dist", hint = "run `npm run build` in web/ first");

fn main() {
    let _ = DIST.len();
}
