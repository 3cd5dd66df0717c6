//! Emitting: include_bytes! only, deterministic, and the same values for macro and module.

use bindery_codegen::emit::{Locator, catalog};
use bindery_codegen::render::module;
use bindery_codegen::{Mode, Options};
use proc_macro2::{TokenStream, TokenTree};

fn fixtures() -> std::path::PathBuf {
    std::fs::canonicalize("../../assets/fixtures").expect("fixtures exist")
}

/// Fails on any byte-string literal (but a file's 32-byte SHA-256 digest, the value of
/// `__sha256`) or any bracketed list of integer literals.
fn assert_no_byte_literals(tokens: TokenStream) {
    let mut previous: Vec<String> = Vec::new();
    for token in tokens {
        let text = token.to_string();
        match token {
            TokenTree::Literal(literal) => {
                let is_digest = previous.ends_with(&["__sha256".to_owned(), ":".to_owned()])
                    && syn::parse_str::<syn::LitByteStr>(&literal.to_string())
                        .is_ok_and(|digest| digest.value().len() == 32);
                let text = literal.to_string();
                assert!(
                    is_digest || (!text.starts_with("b\"") && !text.starts_with("br")),
                    "{text}"
                );
            }
            TokenTree::Group(group) => {
                let inner: Vec<TokenTree> = group.stream().into_iter().collect();
                let integers = inner
                    .iter()
                    .filter(|token| matches!(token, TokenTree::Literal(l) if l.to_string().chars().all(|c| c.is_ascii_digit())))
                    .count();
                assert!(integers < 8, "looks like a byte array: {}", group);
                assert_no_byte_literals(group.stream());
            }
            _ => {}
        }
        previous.push(text);
    }
}

#[test]
fn every_mode_emits_include_bytes_and_no_byte_array() {
    let workspace = std::fs::canonicalize("../..").expect("workspace");
    for mode in Mode::ALL {
        let manifest = Options::new(fixtures()).mode(mode).build().expect("build");
        let tokens = catalog(&manifest, &Locator::ManifestDir(workspace.clone()));
        let text = tokens.to_string();
        // One `include_bytes!` in the catalog's local macro, which names every file.
        assert_eq!(text.matches("include_bytes").count(), 1, "{mode}");
        assert_eq!(
            text.matches("__bindery_bytes ! (").count(),
            manifest.entries.len(),
            "{mode}"
        );
        assert!(text.contains("CARGO_MANIFEST_DIR"), "{mode}");
        assert_no_byte_literals(tokens);
    }
}

#[test]
fn rendered_modules_are_deterministic_and_relative() {
    let root = fixtures();
    let out = tempfile::tempdir().expect("out");
    let render = || {
        let manifest = Options::new(&root).mode(Mode::Gzip).build().expect("build");
        let locator = Locator::Module {
            module_dir: out.path().to_path_buf(),
            blob_dir: out.path().join("bindata"),
            manifest_dir: None,
            dev: false,
        };
        module(
            &manifest,
            &locator,
            "ASSETS",
            "generated",
            "bindery embed fixtures",
        )
        .expect("valid name")
    };
    let first = render();
    assert_eq!(first, render());
    assert!(!first.contains("include_bytes!(\"/"), "no absolute paths");
    assert!(
        first.contains("\"bindata/"),
        "blobs come from the sibling folder"
    );
    assert!(
        !first.contains("bindery-codegen/.."),
        "paths are normalised"
    );
    assert!(first.contains("#[rustfmt::skip]"));
    syn::parse_file(&first).expect("valid Rust");
}

#[test]
fn an_invalid_name_renders_nothing() {
    let manifest = Options::new(fixtures()).build().expect("build");
    let locator = Locator::Module {
        module_dir: fixtures(),
        blob_dir: fixtures(),
        manifest_dir: None,
        dev: false,
    };
    for name in ["", "1abc", "two words", "fn", "a-b"] {
        assert!(
            module(&manifest, &locator, name, "x", "y").is_none(),
            "{name}"
        );
    }
}

mod large {
    use bindery_codegen::emit::{Locator, catalog};
    use bindery_codegen::{Mode, Options};

    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        for (name, len) in [
            ("small.bin", 10usize),
            ("big.bin", 4096),
            ("quote\"big.bin", 4096),
            ("brace{big}.bin", 4096),
        ] {
            std::fs::write(dir.path().join(name), vec![7u8; len]).expect("write");
        }
        dir
    }

    fn expand(root: &std::path::Path, threshold: Option<u64>, prefix: &str) -> String {
        let manifest = Options::new(root)
            .mode(Mode::Static)
            .large_threshold(threshold)
            .prefix(prefix)
            .build()
            .expect("build");
        catalog(&manifest, &Locator::ManifestDir(root.to_path_buf())).to_string()
    }

    #[test]
    fn files_at_or_above_the_threshold_go_through_the_assembler() {
        let dir = tree();
        let text = expand(dir.path(), Some(4096), "");
        assert_eq!(
            text.matches("__bindery_incbin").count(),
            1,
            "only big.bin: {text}"
        );
        assert_eq!(
            text.matches("__bindery_bytes ! (").count(),
            3,
            "small, and the two unquotable"
        );
        assert_eq!(
            expand(dir.path(), None, "")
                .matches("__bindery_incbin")
                .count(),
            0
        );
        assert_eq!(
            expand(dir.path(), Some(0), "")
                .matches("__bindery_incbin")
                .count(),
            2,
            "0 forces all quotable files"
        );
    }

    #[test]
    fn symbols_name_the_bytes_so_catalogs_of_one_crate_share_them() {
        let dir = tree();
        let symbols = |text: &str| -> Vec<String> {
            text.split("\"__bindery_\"")
                .skip(1)
                .map(|rest| rest.split('"').nth(3).unwrap_or_default().to_owned())
                .collect()
        };
        let first = symbols(&expand(dir.path(), Some(0), ""));
        assert_eq!(first.len(), 2);
        assert_ne!(first[0], first[1], "different bytes, different symbols");
        assert_eq!(
            first,
            symbols(&expand(dir.path(), Some(0), "")),
            "deterministic"
        );
        assert_eq!(
            first,
            symbols(&expand(dir.path(), Some(0), "other")),
            "another catalog of the same bytes names the same symbols"
        );
        std::fs::write(dir.path().join("big.bin"), vec![8u8; 4096]).expect("edit");
        let edited = symbols(&expand(dir.path(), Some(0), ""));
        assert_eq!(edited.len(), 2);
        assert!(
            edited
                .iter()
                .filter(|symbol| first.contains(symbol))
                .count()
                == 1,
            "{first:?} vs {edited:?}"
        );
    }

    #[test]
    fn a_module_without_a_known_crate_folder_falls_back() {
        let dir = tree();
        let manifest = Options::new(dir.path())
            .large_threshold(Some(0))
            .build()
            .expect("build");
        let locator = Locator::Module {
            module_dir: dir.path().to_path_buf(),
            blob_dir: dir.path().join("blobs"),
            manifest_dir: None,
            dev: false,
        };
        let text = catalog(&manifest, &locator).to_string();
        assert!(!text.contains("__bindery_incbin"), "{text}");
    }
}
