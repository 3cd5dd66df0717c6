//! `cargo xtask lint-code`: the code-shape rules clippy does not check, over every crate's
//! library sources (`crates/*/src`, tests left out): no function longer than 80 lines, and no
//! public type name defined by two crates (each crate's own `Error` aside), so that a fact the
//! crates share has one definition.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use syn::visit::Visit;

/// The longest a function may be, in lines, signature and body.
const MAX_FUNCTION_LINES: usize = 80;

/// Type names several crates may each define: every crate has its own error type, and the
/// doc-test shims of the READMEs.
const SHARED_NAMES: [&str; 2] = ["Error", "ReadmeDoctests"];

/// Checks every crate under `crates/`; fails listing each offence.
pub fn run() -> anyhow::Result<()> {
    let mut offences = Vec::new();
    let mut types: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for crate_dir in std::fs::read_dir("crates")?.filter_map(Result::ok) {
        let name = crate_dir.file_name().to_string_lossy().into_owned();
        for file in rust_files(&crate_dir.path().join("src"))? {
            let text = std::fs::read_to_string(&file)?;
            let parsed = syn::parse_file(&text)
                .with_context(|| format!("cannot parse {}", file.display()))?;
            let mut visitor = Visitor::default();
            visitor.visit_file(&parsed);
            for (function, lines) in visitor.long_functions {
                offences.push(format!(
                    "{}: fn {function} is {lines} lines (at most {MAX_FUNCTION_LINES})",
                    file.display()
                ));
            }
            for type_name in visitor.types {
                types.entry(type_name).or_default().push(name.clone());
            }
        }
    }
    for (type_name, crates) in &mut types {
        crates.sort();
        crates.dedup();
        if crates.len() > 1 && !SHARED_NAMES.contains(&type_name.as_str()) {
            offences.push(format!(
                "type `{type_name}` is defined by {}",
                crates.join(", ")
            ));
        }
    }
    if !offences.is_empty() {
        bail!("{}", offences.join("\n"));
    }
    eprintln!(
        "lint-code: every function at most {MAX_FUNCTION_LINES} lines, no type defined twice"
    );
    Ok(())
}

fn rust_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)?.filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            files.extend(rust_files(&path)?);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

#[derive(Default)]
struct Visitor {
    long_functions: Vec<(String, usize)>,
    types: Vec<String>,
}

impl Visitor {
    fn function(&mut self, name: &syn::Ident, span: proc_macro2::Span) {
        let lines = span.end().line - span.start().line + 1;
        if lines > MAX_FUNCTION_LINES {
            self.long_functions.push((name.to_string(), lines));
        }
    }
}

/// Whether `#[cfg(test)]` is among the attributes.
fn is_test_only(attributes: &[syn::Attribute]) -> bool {
    attributes.iter().any(|attribute| {
        attribute.path().is_ident("cfg")
            && attribute
                .parse_args::<syn::Ident>()
                .is_ok_and(|ident| ident == "test")
    })
}

impl<'ast> Visit<'ast> for Visitor {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if !is_test_only(&item.attrs) {
            syn::visit::visit_item_mod(self, item);
        }
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        if !is_test_only(&item.attrs) {
            self.function(&item.sig.ident, syn::spanned::Spanned::span(item));
            syn::visit::visit_item_fn(self, item);
        }
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        if !is_test_only(&item.attrs) {
            self.function(&item.sig.ident, syn::spanned::Spanned::span(item));
            syn::visit::visit_impl_item_fn(self, item);
        }
    }

    fn visit_item_struct(&mut self, item: &'ast syn::ItemStruct) {
        if !is_test_only(&item.attrs) && matches!(item.vis, syn::Visibility::Public(_)) {
            self.types.push(item.ident.to_string());
        }
    }

    fn visit_item_enum(&mut self, item: &'ast syn::ItemEnum) {
        if !is_test_only(&item.attrs) && matches!(item.vis, syn::Visibility::Public(_)) {
            self.types.push(item.ident.to_string());
        }
    }
}
