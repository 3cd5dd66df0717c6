//! What Vite's dev server loads for each HTML entry of a front end, written by
//! [`Frontend`](crate::Frontend) beside its build for bindery's debug builds: with
//! `VITE_DEV_SERVER` set, a page the Rust server renders loads those modules from the dev server.
//! Only the source HTML names them (Vite's manifest names the chunk built from them), so they
//! are read from it here, with a WHATWG tokenizer (html5gum): a script in a comment is no script.
//! The record's format is `bindery_core::dev_record`, which the runtime reads it with.

use std::path::{Component, Path, PathBuf};

use bindery_core::dev_record::{PATH, Record};

/// Vite's config files, by the names Vite looks for in its root.
const CONFIGS: [&str; 6] = [
    "vite.config.js",
    "vite.config.mjs",
    "vite.config.cjs",
    "vite.config.ts",
    "vite.config.mts",
    "vite.config.cts",
];

/// Writes the record of the front end in `root` into `out` (after Vite's build, which empties
/// the folder).
pub(crate) fn write(root: &Path, out: &Path) -> std::io::Result<()> {
    let mut record = Record {
        react: uses_react(root),
        entries: Vec::new(),
    };
    for html in html_files(root, out) {
        if let Ok(text) = std::fs::read_to_string(root.join(&html)) {
            let modules = module_scripts(&text, &html);
            record.entries.push((html, modules));
        }
    }
    let path = out.join(PATH);
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder)?;
    }
    std::fs::write(path, record.to_text())
}

/// Whether the Vite config in `root` uses React's plugin (`@vitejs/plugin-react`, or `-swc`).
fn uses_react(root: &Path) -> bool {
    CONFIGS.iter().any(|name| {
        std::fs::read_to_string(root.join(name))
            .is_ok_and(|config| config.contains("@vitejs/plugin-react"))
    })
}

/// The HTML files under `root`, as `/`-separated paths from it, sorted; not those of
/// `node_modules`, `public` (copied as they are), a `dist`, the output or a dot folder.
fn html_files(root: &Path, out: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut folders = vec![PathBuf::new()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(root.join(&folder)) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                continue;
            };
            let relative = folder.join(name);
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                let skipped = name.starts_with('.')
                    || ["node_modules", "public", "dist"].contains(&name)
                    || out.starts_with(entry.path());
                if !skipped {
                    folders.push(relative);
                }
            } else if kind.is_file() && name.ends_with(".html") {
                let parts: Vec<&str> = relative.iter().filter_map(|part| part.to_str()).collect();
                found.push(parts.join("/"));
            }
        }
    }
    found.sort();
    found
}

/// The module scripts `html` (the file `name`, from Vite's root) loads from its own front end,
/// as paths from the root: `/src/main.js` and `./src/main.js` in `index.html` are `src/main.js`.
/// Scripts from another origin, and paths that climb out of the root, are left out.
fn module_scripts(html: &str, name: &str) -> Vec<String> {
    let mut emitter = html5gum::DefaultEmitter::default();
    emitter.naively_switch_states(true);
    let folder = Path::new(name).parent().unwrap_or(Path::new(""));
    let mut modules = Vec::new();
    for token in html5gum::Tokenizer::new_with_emitter(html, emitter).flatten() {
        let html5gum::Token::StartTag(tag) = token else {
            continue;
        };
        if tag.name.as_slice() != b"script" {
            continue;
        }
        let attribute = |key: &[u8]| {
            tag.attributes
                .get(key)
                .map(|value| String::from_utf8_lossy(&value.value).into_owned())
        };
        let is_module = attribute(b"type").is_some_and(|kind| kind.eq_ignore_ascii_case("module"));
        let Some(src) = attribute(b"src").filter(|_| is_module) else {
            continue;
        };
        if let Some(path) = from_root(folder, src.trim()) {
            modules.push(path);
        }
    }
    modules
}

/// `src` as a path from Vite's root, for an HTML file in `folder`; `None` for a URL of another
/// origin or a path that leaves the root.
fn from_root(folder: &Path, src: &str) -> Option<String> {
    if src.is_empty() || src.starts_with("//") || src.contains("://") || src.starts_with("data:") {
        return None;
    }
    let joined = match src.strip_prefix('/') {
        Some(rooted) => PathBuf::from(rooted),
        None => folder.join(src),
    };
    let mut parts: Vec<&str> = Vec::new();
    for component in joined.components() {
        match component {
            Component::Normal(part) => parts.push(part.to_str()?),
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::{from_root, module_scripts};
    use std::path::Path;

    #[test]
    fn the_module_scripts_of_the_html_are_found_as_paths_from_the_root() {
        let html = r#"<!doctype html><html><head>
            <!-- <script type="module" src="/commented.js"></script> -->
            <script>const s = '<script type="module" src="/in-a-string.js">';</script>
            <script type="MODULE" src="/src/main.js"></script>
            <script type="module" src="./sibling.ts"></script>
            <script src="/classic.js"></script>
            <script type="module" src="https://cdn.example/x.js"></script>
            <script type="module" src="../../out.js"></script>
            </head></html>"#;
        assert_eq!(
            module_scripts(html, "pages/about.html"),
            ["src/main.js", "pages/sibling.ts"]
        );
        assert_eq!(from_root(Path::new(""), "//cdn.example/x.js"), None);
        assert_eq!(
            from_root(Path::new("a"), "../b/c.js"),
            Some("b/c.js".into())
        );
    }

    #[test]
    fn the_record_names_each_html_entry_and_react_when_the_config_uses_it() -> std::io::Result<()> {
        let root = tempfile::tempdir()?;
        let out = root.path().join("build");
        for folder in ["src", "public", "node_modules/x", "nested", "build"] {
            std::fs::create_dir_all(root.path().join(folder))?;
        }
        let page = r#"<script type="module" src="/src/main.tsx"></script>"#;
        for html in [
            "index.html",
            "nested/two.html",
            "public/copied.html",
            "node_modules/x/a.html",
            "build/index.html",
        ] {
            std::fs::write(root.path().join(html), page)?;
        }
        std::fs::write(root.path().join("plain.html"), "<p>no script</p>")?;
        std::fs::write(
            root.path().join("vite.config.ts"),
            "import react from '@vitejs/plugin-react'\n",
        )?;
        super::write(root.path(), &out)?;
        let record = std::fs::read_to_string(out.join(super::PATH))?;
        let lines: Vec<&str> = record.lines().skip(1).collect();
        assert_eq!(
            lines,
            [
                "react\ttrue",
                "entry\tindex.html\tsrc/main.tsx",
                "entry\tnested/two.html\tsrc/main.tsx"
            ]
        );
        Ok(())
    }
}
