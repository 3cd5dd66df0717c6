static TYPED: bindery::Catalog = bindery::embed!(
    "../../../../assets/types",
    dotfiles = [".well-known"],
    types = [".well-known/apple-app-site-association=application/json"],
    unknown_types = "deny",
);

fn main() {
    let _ = TYPED.len();
}
