//! A bundler's manifest read at build time (`manifest = "vite"`): which file each entry point
//! became, the stylesheets and chunks it needs, and every file whose name already carries the
//! bundler's content hash. The runtime gets the result as tables (no JSON at run time).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::Error;

/// The bundlers whose manifest a catalog can read (`manifest = "vite"`).
///
/// ```
/// use bindery_codegen::Bundler;
/// assert_eq!("vite".parse::<Bundler>().unwrap(), Bundler::Vite);
/// assert_eq!(Bundler::Vite.manifest_path(), ".vite/manifest.json");
/// assert!("webpack".parse::<Bundler>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Bundler {
    /// Vite (and Rolldown-Vite): `build.manifest: true` writes `.vite/manifest.json`.
    Vite,
}

impl Bundler {
    /// The words `manifest` takes.
    pub const WORDS: [&'static str; 1] = ["vite"];

    /// Its word.
    pub const fn as_str(self) -> &'static str {
        match self {
            Bundler::Vite => "vite",
        }
    }

    /// Where the bundler writes its manifest, relative to its output folder.
    pub const fn manifest_path(self) -> &'static str {
        match self {
            Bundler::Vite => ".vite/manifest.json",
        }
    }
}

impl FromStr for Bundler {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "vite" => Ok(Bundler::Vite),
            _ => Err(format!("unknown bundler `{text}` (expected \"vite\")")),
        }
    }
}

/// What a catalog knows of its bundler's output: see [`Manifest::bundle`](crate::Manifest::bundle).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bundle {
    /// The manifest read.
    pub manifest: PathBuf,
    /// Every chunk of the manifest, sorted by name.
    pub chunks: Vec<Chunk>,
    /// Every JavaScript file the manifest names (catalog paths, sorted): an import map lists
    /// their integrity, so that a lazily imported one is checked too.
    pub scripts: Vec<String>,
    /// Every file the manifest names (catalog paths, sorted): their names carry the bundler's
    /// content hash, so they are served `immutable` as they are, without a second fingerprint.
    pub hashed: Vec<String>,
}

/// One chunk of a bundler's manifest, with what a page that loads it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// Its key in the manifest: the source it was built from (`index.html`, `src/main.js`).
    pub name: String,
    /// The file it became (catalog path).
    pub file: String,
    /// Whether it is an entry point (`isEntry`).
    pub entry: bool,
    /// The stylesheets it needs: those of the chunks it imports statically (depth first), then
    /// its own, each once (catalog paths).
    pub styles: Vec<String>,
    /// The JavaScript chunks it imports statically, directly or not (catalog paths), for
    /// `modulepreload`.
    pub preloads: Vec<String>,
}

/// One chunk as Vite writes it; other fields are ignored.
#[derive(Debug)]
#[cfg_attr(not(feature = "vite"), allow(dead_code))]
#[cfg_attr(feature = "vite", derive(serde::Deserialize))]
#[cfg_attr(feature = "vite", serde(rename_all = "camelCase"))]
struct ViteChunk {
    file: String,
    #[cfg_attr(feature = "vite", serde(default))]
    is_entry: bool,
    #[cfg_attr(feature = "vite", serde(default))]
    imports: Vec<String>,
    #[cfg_attr(feature = "vite", serde(default))]
    dynamic_imports: Vec<String>,
    #[cfg_attr(feature = "vite", serde(default))]
    css: Vec<String>,
    #[cfg_attr(feature = "vite", serde(default))]
    assets: Vec<String>,
}

/// Reads the manifest of `bundler` in `root` and checks it against the catalog's `paths`
/// (sorted): every file it names must be one, every import a chunk of it.
pub(crate) fn read(
    bundler: Bundler,
    root: &Path,
    prefix: &str,
    paths: &[&str],
) -> Result<Bundle, Error> {
    let manifest = root.join(bundler.manifest_path());
    let raw = parse(&manifest)?;
    let problem = |reason: String| Error::BundleManifest {
        path: manifest.clone(),
        reason,
    };
    let path_of = |chunk: &str, file: &str| -> Result<String, Error> {
        let path = format!("{prefix}{file}");
        if paths.binary_search(&path.as_str()).is_ok() {
            Ok(path)
        } else {
            Err(Error::BundleMissingFile {
                path: manifest.clone(),
                chunk: chunk.to_owned(),
                file: path,
            })
        }
    };
    let mut hashed = Vec::new();
    let mut scripts = Vec::new();
    for (name, chunk) in &raw {
        for import in chunk.imports.iter().chain(&chunk.dynamic_imports) {
            if !raw.contains_key(import) {
                return Err(problem(format!(
                    "`{name}` imports `{import}`, which the manifest does not list"
                )));
            }
        }
        let file = path_of(name, &chunk.file)?;
        if is_script(&file) {
            scripts.push(file.clone());
        }
        hashed.push(file);
        for other in chunk.css.iter().chain(&chunk.assets) {
            hashed.push(path_of(name, other)?);
        }
    }
    let mut chunks = Vec::with_capacity(raw.len());
    for (name, chunk) in &raw {
        let mut needs = Needs::default();
        needs.visit(&raw, name, prefix);
        let file = format!("{prefix}{}", chunk.file);
        // Through an import cycle a chunk can reach itself: it is loaded, not preloaded.
        needs.preloads.retain(|preload| *preload != file);
        chunks.push(Chunk {
            name: name.clone(),
            file,
            entry: chunk.is_entry,
            styles: needs.styles,
            preloads: needs.preloads,
        });
    }
    for list in [&mut hashed, &mut scripts] {
        list.sort();
        list.dedup();
    }
    Ok(Bundle {
        manifest,
        chunks,
        scripts,
        hashed,
    })
}

/// The manifest's chunks by name.
fn parse(manifest: &Path) -> Result<BTreeMap<String, ViteChunk>, Error> {
    let problem = |reason: String| Error::BundleManifest {
        path: manifest.to_path_buf(),
        reason,
    };
    let text = std::fs::read(manifest).map_err(|error| {
        problem(if error.kind() == std::io::ErrorKind::NotFound {
            "not found: build with the bundler's manifest on (Vite: `build.manifest: true` or \
             `vite build --manifest`)"
                .to_owned()
        } else {
            error.to_string()
        })
    })?;
    decode(&text).map_err(problem)
}

/// The manifest's JSON, decoded.
#[cfg(feature = "vite")]
fn decode(text: &[u8]) -> Result<BTreeMap<String, ViteChunk>, String> {
    serde_json::from_slice(text).map_err(|error| error.to_string())
}

/// Without the `vite` feature no manifest is read (validation refuses the setting first).
#[cfg(not(feature = "vite"))]
fn decode(_: &[u8]) -> Result<BTreeMap<String, ViteChunk>, String> {
    Err("reading a bundler's manifest needs the `vite` feature of bindery".to_owned())
}

fn is_script(path: &str) -> bool {
    path.ends_with(".js") || path.ends_with(".mjs")
}

/// What a chunk needs, gathered depth first over its static imports.
#[derive(Default)]
struct Needs {
    visited: Vec<String>,
    styles: Vec<String>,
    preloads: Vec<String>,
}

impl Needs {
    fn visit(&mut self, raw: &BTreeMap<String, ViteChunk>, name: &str, prefix: &str) {
        if self.visited.iter().any(|seen| seen == name) {
            return;
        }
        self.visited.push(name.to_owned());
        let Some(chunk) = raw.get(name) else {
            return;
        };
        for import in &chunk.imports {
            self.visit(raw, import, prefix);
            if let Some(imported) = raw.get(import) {
                push_once(&mut self.preloads, format!("{prefix}{}", imported.file));
            }
        }
        for style in &chunk.css {
            push_once(&mut self.styles, format!("{prefix}{style}"));
        }
    }
}

fn push_once(list: &mut Vec<String>, item: String) {
    if !list.contains(&item) {
        list.push(item);
    }
}
