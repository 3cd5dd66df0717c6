//! A bundler's manifest read at build time (`manifest = "vite"`): what each chunk needs, the
//! files it names kept under their own hashed names, and every way a manifest can be wrong
//! refused with an error naming the manifest and what is wrong.

use bindery_codegen::{Bundler, Error, Options};

fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (path, contents) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, contents).expect("write");
    }
    dir
}

fn build(options: Options) -> Result<bindery_codegen::Manifest, Error> {
    let cache = tempfile::tempdir().expect("cache");
    options.cache_dir(cache.path()).build()
}

const MANIFEST: &str = r#"{
  "index.html": {"file": "assets/index-Aa11.js", "isEntry": true, "src": "index.html",
                 "imports": ["_vendor-Bb22.js"], "dynamicImports": ["src/lazy.js"],
                 "css": ["assets/index-Cc33.css"], "assets": ["assets/logo-Dd44.svg"]},
  "_vendor-Bb22.js": {"file": "assets/vendor-Bb22.js", "imports": ["_util-Ee55.js"],
                      "css": ["assets/vendor-Ff66.css"]},
  "_util-Ee55.js": {"file": "assets/util-Ee55.js"},
  "src/lazy.js": {"file": "assets/lazy-Gg77.js", "isDynamicEntry": true,
                  "imports": ["_vendor-Bb22.js"]}
}"#;

fn vite_output(manifest: &str) -> tempfile::TempDir {
    tree(&[
        ("index.html", "<!doctype html>"),
        ("favicon.svg", "<svg/>"),
        ("assets/index-Aa11.js", "import './vendor-Bb22.js'"),
        ("assets/vendor-Bb22.js", "import './util-Ee55.js'"),
        ("assets/util-Ee55.js", "export {}"),
        ("assets/lazy-Gg77.js", "export {}"),
        ("assets/index-Cc33.css", "a{}"),
        ("assets/vendor-Ff66.css", "b{}"),
        ("assets/logo-Dd44.svg", "<svg/>"),
        (".vite/manifest.json", manifest),
    ])
}

#[test]
fn each_chunk_gets_what_it_needs_in_load_order() {
    let dist = vite_output(MANIFEST);
    let manifest = build(
        Options::new(dist.path())
            .prefix("static")
            .manifest(Some(Bundler::Vite)),
    )
    .expect("builds");
    let bundle = manifest.bundle.expect("a bundle");
    assert_eq!(bundle.manifest, dist.path().join(".vite/manifest.json"));
    let names: Vec<&str> = bundle
        .chunks
        .iter()
        .map(|chunk| chunk.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "_util-Ee55.js",
            "_vendor-Bb22.js",
            "index.html",
            "src/lazy.js"
        ]
    );
    let index = &bundle.chunks[2];
    assert!(index.entry);
    assert_eq!(index.file, "static/assets/index-Aa11.js");
    // Imported chunks' stylesheets first, then its own; preloads depth first.
    assert_eq!(
        index.styles,
        [
            "static/assets/vendor-Ff66.css",
            "static/assets/index-Cc33.css"
        ]
    );
    assert_eq!(
        index.preloads,
        ["static/assets/util-Ee55.js", "static/assets/vendor-Bb22.js"]
    );
    let lazy = &bundle.chunks[3];
    assert!(!lazy.entry);
    assert_eq!(lazy.styles, ["static/assets/vendor-Ff66.css"]);
    assert_eq!(
        bundle.scripts,
        [
            "static/assets/index-Aa11.js",
            "static/assets/lazy-Gg77.js",
            "static/assets/util-Ee55.js",
            "static/assets/vendor-Bb22.js"
        ]
    );
    assert_eq!(
        bundle.hashed.len(),
        7,
        "every file but index.html and favicon.svg"
    );
    assert!(!bundle.hashed.iter().any(|path| path.ends_with(".html")));
    // The manifest is read, not embedded (a hidden folder).
    assert!(
        !manifest
            .entries
            .iter()
            .any(|entry| entry.path.contains(".vite"))
    );
}

#[test]
fn fingerprints_skip_what_the_bundler_already_hashed() {
    let dist = vite_output(MANIFEST);
    let manifest = build(
        Options::new(dist.path())
            .fingerprint(true)
            .manifest(Some(Bundler::Vite)),
    )
    .expect("builds");
    for entry in &manifest.entries {
        let hashed = entry.path.starts_with("assets/");
        assert_eq!(entry.fingerprinted.is_none(), hashed, "{}", entry.path);
    }
}

#[test]
fn an_import_cycle_is_walked_once() {
    let dist = tree(&[
        ("a.js", "1"),
        ("b.js", "2"),
        (
            ".vite/manifest.json",
            r#"{"a": {"file": "a.js", "isEntry": true, "imports": ["b"]}, "b": {"file": "b.js", "imports": ["a"]}}"#,
        ),
    ]);
    let bundle = build(Options::new(dist.path()).manifest(Some(Bundler::Vite)))
        .expect("builds")
        .bundle
        .expect("a bundle");
    assert_eq!(bundle.chunks[0].preloads, ["b.js"]);
    assert_eq!(bundle.chunks[1].preloads, ["a.js"]);
}

/// The error of building `dist` with the Vite manifest, as text.
fn refused(dist: &tempfile::TempDir, options: impl FnOnce(Options) -> Options) -> String {
    let error = build(options(
        Options::new(dist.path()).manifest(Some(Bundler::Vite)),
    ))
    .expect_err("refused");
    assert!(
        matches!(
            error,
            Error::BundleManifest { .. } | Error::BundleMissingFile { .. }
        ),
        "{error:?}"
    );
    error.to_string()
}

#[test]
fn a_missing_or_broken_manifest_is_refused_naming_it() {
    let dist = tree(&[("index.html", "<p>")]);
    let message = refused(&dist, |options| options);
    assert!(
        message.contains(".vite/manifest.json`: not found"),
        "{message}"
    );
    assert!(message.contains("build.manifest: true"), "{message}");

    let dist = vite_output("{\"index.html\": ");
    let message = refused(&dist, |options| options);
    assert!(message.contains("EOF while parsing"), "{message}");

    let dist = vite_output(r#"{"index.html": {"isEntry": true}}"#);
    let message = refused(&dist, |options| options);
    assert!(message.contains("missing field `file`"), "{message}");

    let dist =
        vite_output(r#"{"index.html": {"file": "assets/index-Aa11.js", "imports": ["_gone.js"]}}"#);
    let message = refused(&dist, |options| options);
    assert!(
        message.contains("`index.html` imports `_gone.js`, which the manifest does not list"),
        "{message}"
    );
}

#[test]
fn a_file_the_manifest_names_but_the_catalog_lacks_is_refused_naming_both() {
    let dist = vite_output(MANIFEST);
    std::fs::remove_file(dist.path().join("assets/lazy-Gg77.js")).expect("remove");
    let message = refused(&dist, |options| options);
    assert!(
        message
            .contains("`src/lazy.js` names `assets/lazy-Gg77.js`, which the catalog does not hold"),
        "{message}"
    );

    // Left out by a rule: the same error, with the prefix the catalog gives it.
    let dist = vite_output(MANIFEST);
    let message = refused(&dist, |options| options.prefix("ui").exclude("**/*.css"));
    assert!(
        message.contains("names `ui/assets/index-Cc33.css`")
            || message.contains("names `ui/assets/vendor-Ff66.css`"),
        "{message}"
    );
}

#[test]
fn the_manifest_belongs_to_the_whole_catalog() {
    let dist = vite_output(MANIFEST);
    let other = tree(&[("a.txt", "a")]);
    let options = Options::new(dist.path()).folder(
        Options::new(other.path())
            .prefix("more")
            .manifest(Some(Bundler::Vite)),
    );
    let problems = options.validate().expect_err("refused");
    assert!(
        problems.iter().any(|problem| problem.folder == 1
            && matches!(&problem.error, Error::CatalogSetting { name } if name == "manifest")),
        "{problems:?}"
    );
    // Given once, for the catalog, it reads the first folder's manifest.
    let manifest = build(
        Options::new(dist.path())
            .manifest(Some(Bundler::Vite))
            .folder(Options::new(other.path()).prefix("more")),
    )
    .expect("builds");
    assert_eq!(manifest.bundle.expect("bundle").chunks.len(), 4);
}
