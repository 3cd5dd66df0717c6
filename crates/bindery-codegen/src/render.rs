//! Source text from a [`Manifest`]: the readable module `bindery embed` (bindery-cli) writes.

use proc_macro2::Ident;
use quote::quote;

use crate::Manifest;
use crate::emit::{self, Locator};

/// Whether `name` can name the generated `static` (a Rust identifier, not a keyword).
///
/// ```
/// use bindery_codegen::render::is_identifier;
/// assert!(is_identifier("ASSETS"));
/// assert!(!is_identifier("my-assets"));
/// assert!(!is_identifier("static"));
/// ```
pub fn is_identifier(name: &str) -> bool {
    syn::parse_str::<Ident>(name).is_ok()
}

/// Renders a module defining `pub static <name>: bindery::Catalog`, formatted, headed by `header`
/// (written as `//` comment lines: say what regenerates the file).
///
/// The static is wrapped in `::bindery::__bindery_module! { contract = N; … }`, which records
/// the generated-code contract it was written for ([`CONTRACT`](crate::CONTRACT)), this crate's
/// version and `regenerate`, the command that writes it again. A `bindery` runtime that reads
/// another contract turns the module into one compile error naming both versions and that
/// command, instead of errors about its private API or, worse, wrong bytes.
///
/// Returns `None` when `name` is not a valid Rust identifier.
///
/// ```
/// use bindery_codegen::{Options, emit::Locator, render::module};
/// let root = std::path::absolute("../../assets/fixtures").unwrap();
/// let manifest = Options::new(&root).include("hello.txt").build().unwrap();
/// let locator = Locator::Module { module_dir: root.clone(), blob_dir: root.join("bindata"), manifest_dir: None, dev: false };
/// let text = module(&manifest, &locator, "ASSETS", "generated: do not edit", "bindery embed .").unwrap();
/// assert!(text.starts_with("// generated: do not edit\n"));
/// assert!(text.contains(&format!("contract = {};", bindery_codegen::CONTRACT)));
/// assert!(text.contains("pub static ASSETS: ::bindery::Catalog"));
/// assert!(text.contains(r#"include_bytes!("hello.txt")"#));
/// ```
pub fn module(
    manifest: &Manifest,
    locator: &Locator,
    name: &str,
    header: &str,
    regenerate: &str,
) -> Option<String> {
    let name: Ident = syn::parse_str(name).ok()?;
    let catalog = emit::catalog(manifest, locator);
    let doc = format!(
        " {} files embedded in `{}` mode.",
        manifest.entries.len(),
        manifest.mode
    );
    let runtime = crate::runtime(&manifest.crate_path);
    let tokens = quote! {
        #[doc = #doc]
        #[rustfmt::skip]
        pub static #name: #runtime::Catalog = #catalog;
    };
    let file: syn::File = syn::parse2(tokens).ok()?;
    let mut text = String::new();
    for line in header.lines() {
        text.push_str("//");
        if !line.is_empty() {
            text.push(' ');
            text.push_str(line);
        }
        text.push('\n');
    }
    let quoted = |value: &str| {
        let mut literal = String::new();
        crate::emit::push_literal(&mut literal, value);
        literal
    };
    text.push_str(&format!(
        "\n{}::__bindery_module! {{\n    contract = {};\n    generator = {};\n    \
         regenerate = {};\n    name = {name};\n\n",
        runtime.to_string().replace(' ', ""),
        crate::CONTRACT,
        quoted(concat!("bindery-codegen ", env!("CARGO_PKG_VERSION"))),
        quoted(regenerate),
    ));
    for line in prettyplease::unparse(&file).lines() {
        if !line.is_empty() {
            text.push_str("    ");
            text.push_str(line);
        }
        text.push('\n');
    }
    text.push_str("}\n");
    Some(text)
}
