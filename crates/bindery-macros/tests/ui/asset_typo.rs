static SITE: bindery::Catalog = bindery::embed!("../../../../assets/fixtures");

const LOGO: bindery::Asset = SITE.asset("images/logo.svgx");

fn main() {
    let style = bindery::asset!(SITE, "styles.css");
    let _ = (LOGO.url(), style.url());
}
