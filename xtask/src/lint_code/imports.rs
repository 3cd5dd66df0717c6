//! Import circles between a crate's modules: the modules each file refers to through `crate::`,
//! `super::` and `self::` paths (in `use` and in code), and the circles among them (strongly
//! connected components). A facade (a module that re-exports, `lib.rs` or a `mod.rs`) is not
//! counted as a target of its own children: re-exports point down, not around.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// The module path of a file under `src` (`serve/body.rs` → `["serve", "body"]`, `lib.rs` and
/// `main.rs` → `[]`, `serve/mod.rs` → `["serve"]`).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).unwrap_or(file).with_extension("");
    let mut parts: Vec<String> = relative
        .components()
        .map(|part| part.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// Every path a file names that starts at `crate`, `super` or `self`, with the module it is
/// written in: the file's, or an inline module's inside it (`mod tests { use super::… }`).
struct Paths {
    scope: Vec<String>,
    found: Vec<(Vec<String>, Vec<String>)>,
}

fn is_relative(path: &[String]) -> bool {
    matches!(
        path.first().map(String::as_str),
        Some("crate" | "super" | "self")
    )
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        self.scope.push(item.ident.to_string());
        syn::visit::visit_item_mod(self, item);
        self.scope.pop();
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path
            .segments
            .iter()
            .map(|segment| segment.ident.to_string())
            .collect();
        if is_relative(&segments) {
            self.found.push((self.scope.clone(), segments));
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_use_tree(&mut self, tree: &'ast syn::UseTree) {
        let mut paths = Vec::new();
        flatten(tree, &mut Vec::new(), &mut paths);
        for path in paths.into_iter().filter(|path| is_relative(path)) {
            self.found.push((self.scope.clone(), path));
        }
    }
}

/// The paths a `use` tree names, each to its end.
fn flatten(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            flatten(&path.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(name) => {
            out.push([prefix.as_slice(), &[name.ident.to_string()]].concat())
        }
        syn::UseTree::Rename(rename) => {
            out.push([prefix.as_slice(), &[rename.ident.to_string()]].concat())
        }
        syn::UseTree::Glob(_) => out.push(prefix.clone()),
        syn::UseTree::Group(group) => {
            for item in &group.items {
                flatten(item, prefix, out);
            }
        }
    }
}

/// Names re-exported by a module (`pub use module::Name;`, `pub(crate) use …`): (the facade, the
/// name) → the path it re-exports, as written in the facade.
type Reexports = BTreeMap<(Vec<String>, String), Vec<String>>;

fn reexports_of(module: &[String], parsed: &syn::File, out: &mut Reexports) {
    for item in &parsed.items {
        let syn::Item::Use(item) = item else { continue };
        if matches!(item.vis, syn::Visibility::Inherited) {
            continue;
        }
        let mut paths = Vec::new();
        flatten(&item.tree, &mut Vec::new(), &mut paths);
        for path in paths {
            if let Some(name) = path.last() {
                out.insert((module.to_vec(), name.clone()), path.clone());
            }
        }
    }
}

/// Where a path starts, from module `from`, and its segments after that: `crate::…`,
/// `self::…`, `super::…`, or a child module's name (`body::Body` in `serve/mod.rs`).
fn split<'p>(
    from: &[String],
    path: &'p [String],
    known: &BTreeSet<Vec<String>>,
) -> Option<(Vec<String>, &'p [String])> {
    let first = path.first()?;
    match first.as_str() {
        "crate" => Some((Vec::new(), &path[1..])),
        "self" => Some((from.to_vec(), &path[1..])),
        "super" => {
            let supers = path
                .iter()
                .take_while(|segment| *segment == "super")
                .count();
            let base = from[..from.len().saturating_sub(supers)].to_vec();
            Some((base, &path[supers..]))
        }
        _ => {
            let child = [from, std::slice::from_ref(first)].concat();
            known.contains(&child).then(|| (from.to_vec(), path))
        }
    }
}

/// The longest known module along `rest` from `base`, and what follows it.
fn descend<'p>(
    mut base: Vec<String>,
    mut rest: &'p [String],
    known: &BTreeSet<Vec<String>>,
) -> (Vec<String>, &'p [String]) {
    while let Some(segment) = rest.first() {
        let next = [base.as_slice(), std::slice::from_ref(segment)].concat();
        if !known.contains(&next) {
            break;
        }
        base = next;
        rest = &rest[1..];
    }
    (base, rest)
}

/// The module a path leads to, from module `from`, through one re-export of a facade when
/// the path names one (`crate::EmbeddedFile` is `file`).
fn target(
    from: &[String],
    path: &[String],
    known: &BTreeSet<Vec<String>>,
    reexports: &Reexports,
) -> Option<Vec<String>> {
    let (base, rest) = split(from, path, known)?;
    let (module, remaining) = descend(base, rest, known);
    if let Some(name) = remaining.first()
        && let Some(written) = reexports.get(&(module.clone(), name.clone()))
        && let Some((base, rest)) = split(&module, written, known)
    {
        return Some(descend(base, rest, known).0);
    }
    Some(module)
}

/// Each circle of module imports in the crate whose sources are under `src`, as one line naming its modules.
pub fn circles(src: &Path, files: &[PathBuf]) -> anyhow::Result<Vec<String>> {
    let modules: BTreeMap<Vec<String>, &PathBuf> = files
        .iter()
        .map(|file| (module_of(src, file), file))
        .collect();
    let known: BTreeSet<Vec<String>> = modules.keys().cloned().collect();
    let mut parsed_files = Vec::new();
    let mut reexports = Reexports::new();
    for (module, file) in &modules {
        let parsed = syn::parse_file(&std::fs::read_to_string(file)?)?;
        reexports_of(module, &parsed, &mut reexports);
        parsed_files.push((module, parsed));
    }
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (module, parsed) in &parsed_files {
        let module: &Vec<String> = module;
        let mut paths = Paths {
            scope: module.clone(),
            found: Vec::new(),
        };
        paths.visit_file(parsed);
        for (scope, path) in &paths.found {
            let Some(to) = target(scope, path, &known, &reexports) else {
                continue;
            };
            // A module's own ancestors are facades to it (they declare and re-export it).
            if to == *module || module.starts_with(&to) {
                continue;
            }
            edges.entry(module.clone()).or_default().insert(to);
        }
    }
    Ok(strongly_connected(&known, &edges)
        .into_iter()
        .filter(|component| component.len() > 1)
        .map(|component| {
            let names: Vec<String> = component
                .iter()
                .map(|module| {
                    if module.is_empty() {
                        "crate".to_owned()
                    } else {
                        module.join("::")
                    }
                })
                .collect();
            format!(
                "{}: import circle among {}",
                src.display(),
                names.join(", ")
            )
        })
        .collect())
}

/// The strongly connected components of the module graph (Tarjan's, by petgraph).
fn strongly_connected(
    nodes: &BTreeSet<Vec<String>>,
    edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
) -> Vec<Vec<Vec<String>>> {
    let mut graph = petgraph::graph::DiGraph::<&Vec<String>, ()>::new();
    let index: BTreeMap<&Vec<String>, _> = nodes
        .iter()
        .map(|node| (node, graph.add_node(node)))
        .collect();
    for (from, tos) in edges {
        for to in tos {
            if let (Some(&from), Some(&to)) = (index.get(from), index.get(to)) {
                graph.add_edge(from, to, ());
            }
        }
    }
    petgraph::algo::tarjan_scc(&graph)
        .into_iter()
        .map(|component| {
            let mut modules: Vec<Vec<String>> = component
                .into_iter()
                .map(|node| graph[node].clone())
                .collect();
            modules.sort();
            modules
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::circles;

    /// Writes the files of a crate's `src` into a temporary folder.
    fn crate_of(files: &[(&str, &str)]) -> (tempfile::TempDir, Vec<std::path::PathBuf>) {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = files
            .iter()
            .map(|(name, text)| {
                let path = dir.path().join(name);
                std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
                std::fs::write(&path, text).expect("write");
                path
            })
            .collect();
        (dir, paths)
    }

    #[test]
    fn a_circle_through_a_facade_is_found_and_a_line_is_not() {
        let (dir, files) = crate_of(&[
            ("lib.rs", "mod a; mod b; pub use a::A;"),
            ("a.rs", "pub struct A(pub crate::b::B);"),
            ("b.rs", "pub struct B; fn f(_: crate::A) {}"),
        ]);
        let found = circles(dir.path(), &files).expect("parses");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].ends_with("import circle among a, b"), "{found:?}");
        let (dir, files) = crate_of(&[
            ("lib.rs", "mod a; mod b; pub use a::A;"),
            ("a.rs", "pub struct A(pub crate::b::B);"),
            ("b.rs", "pub struct B;"),
        ]);
        assert_eq!(
            circles(dir.path(), &files).expect("parses"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn super_in_an_inline_module_is_the_file_itself() {
        // `range::tests` uses `super::decide`, range's own function, not the module `decide`.
        let (dir, files) = crate_of(&[
            ("lib.rs", "mod decide; mod range;"),
            ("decide.rs", "use crate::range::decide as choose;"),
            (
                "range.rs",
                "pub fn decide() {} #[cfg(test)] mod tests { use super::decide; }",
            ),
        ]);
        assert_eq!(
            circles(dir.path(), &files).expect("parses"),
            Vec::<String>::new()
        );
    }
}
