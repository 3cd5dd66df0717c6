static TYPED: bindery::Catalog =
    bindery::embed!("../../../../assets/types", types = ["LICENSE=text plain"]);

static DOTS: bindery::Catalog = bindery::embed!("../../../../assets/types", dotfiles = ["well-known"]);

fn main() {
    let _ = (TYPED.len(), DOTS.len());
}
