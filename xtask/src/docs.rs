//! The pages a reader follows: README.md and docs/*.md. Every program they show is a file of the
//! workspace that a build compiles: a block preceded by `<!-- file: path -->` must be that file
//! exactly, and a Rust block with a `fn main` must have such a line. Every relative link must
//! lead to a file, README.md and BENCHMARKS.md fit in their [`LINE_LIMITS`], and every
//! reference to a section of BENCHMARKS.md (`BENCHMARKS.md, "Title"`), in a page or in the
//! code's comments, names a heading it has; ARCHITECTURE.md is a true map (map.rs). Run by
//! `cargo xtask docs`, `lint-code` and the test
//! `the_pages_show_each_program_as_it_is_built`.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// The pages checked, under the workspace root: README.md and every `docs/*.md`.
fn pages(root: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut pages = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs")).context("docs/")? {
        let path = entry?.path();
        if path.extension().is_some_and(|extension| extension == "md") {
            pages.push(path);
        }
    }
    pages.sort();
    Ok(pages)
}

/// One fenced block of a page: its language, its text, the file it says it is, and its line.
#[derive(Debug)]
struct Block {
    language: String,
    text: String,
    file: Option<String>,
    line: usize,
}

/// The fenced blocks of a page, in order.
fn blocks(page: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut lines = page.lines().enumerate();
    let mut previous: Option<&str> = None;
    while let Some((number, line)) = lines.next() {
        if let Some(language) = line.strip_prefix("```") {
            let file = previous
                .and_then(|line| line.trim().strip_prefix("<!-- file:"))
                .and_then(|rest| rest.strip_suffix("-->"))
                .map(|path| path.trim().to_owned());
            let mut text = String::new();
            for (_, line) in lines.by_ref() {
                if line.starts_with("```") {
                    break;
                }
                text.push_str(line);
                text.push('\n');
            }
            blocks.push(Block {
                language: language.trim().to_owned(),
                text,
                file,
                line: number + 1,
            });
            previous = None;
            continue;
        }
        if !line.trim().is_empty() {
            previous = Some(line);
        }
    }
    blocks
}

/// The relative link targets of a page (`](path)` and `](path#part)`), web links left out.
fn links(page: &str) -> Vec<&str> {
    page.split("](")
        .skip(1)
        .filter_map(|rest| rest.split_once(')').map(|(target, _)| target))
        .map(|target| target.split('#').next().unwrap_or_default())
        .filter(|target| {
            !target.is_empty() && !target.contains("://") && !target.starts_with("mailto:")
        })
        .collect()
}

/// The pages with a length limit: the most lines each may have, and where the rest belongs.
pub const LINE_LIMITS: [(&str, usize, &str); 2] = [
    ("README.md", README_LINES, "move a walk-through to docs/"),
    (
        "BENCHMARKS.md",
        400,
        "keep each claim's current figure; git keeps the superseded runs",
    ),
];

/// The most lines README.md may have: what a reader takes in before choosing a page of docs/.
pub const README_LINES: usize = 250;

/// The folders whose Rust files' comments may cite a section of BENCHMARKS.md.
const CODE: [&str; 5] = ["crates", "xtask", "examples", "benches", "fuzz"];

/// The section titles `text` cites as `BENCHMARKS.md, "Title"` (or `[BENCHMARKS.md](…), "Title"`),
/// with the text's line breaks and comment markers taken as spaces.
fn cited_sections(text: &str) -> Vec<String> {
    let joined = text
        .lines()
        .map(|line| {
            let line = line.trim_start();
            ["//!", "///", "//"]
                .iter()
                .find_map(|marker| line.strip_prefix(marker))
                .unwrap_or(line)
                .trim()
        })
        .collect::<Vec<_>>()
        .join(" ");
    joined
        .split("BENCHMARKS.md")
        .skip(1)
        .filter_map(|rest| {
            let rest = match rest.strip_prefix("](") {
                Some(link) => link.split_once(')')?.1,
                None => rest,
            };
            let title = rest.strip_prefix(", \"")?.split_once('"')?.0;
            Some(title.to_owned())
        })
        .collect()
}

/// Each citation of a BENCHMARKS.md section, in the pages and the code, that names no heading.
fn dangling_citations(root: &Path, pages: &[PathBuf]) -> anyhow::Result<Vec<String>> {
    let Ok(benchmarks) = std::fs::read_to_string(root.join("BENCHMARKS.md")) else {
        return Ok(Vec::new());
    };
    let headings: Vec<&str> = benchmarks
        .lines()
        .filter_map(|line| line.strip_prefix('#'))
        .map(|line| line.trim_start_matches('#').trim())
        .collect();
    let mut sources = pages.to_vec();
    for extra in ["SECURITY.md", "ARCHITECTURE.md", "Cargo.toml"] {
        sources.push(root.join(extra));
    }
    for folder in CODE {
        let folder = root.join(folder);
        if folder.is_dir() {
            sources.extend(crate::process::rust_files(&folder)?);
        }
    }
    // This checker's own comments and tests show the form with made-up titles.
    let checker = root.join("xtask/src/docs.rs");
    sources.retain(|source| *source != checker);
    let mut offences = Vec::new();
    for source in sources {
        let Ok(text) = std::fs::read_to_string(&source) else {
            continue;
        };
        for title in cited_sections(&text) {
            if !headings.iter().any(|heading| heading.starts_with(&title)) {
                let name = source.strip_prefix(root).unwrap_or(&source).display();
                offences.push(format!("{name}: BENCHMARKS.md has no section \"{title}\""));
            }
        }
    }
    Ok(offences)
}

/// `cargo xtask docs`, from the workspace root.
pub fn run() -> anyhow::Result<()> {
    check(Path::new("."))?;
    eprintln!(
        "docs: every program the pages show is its file, every link leads somewhere, and \
         ARCHITECTURE.md maps every source file"
    );
    Ok(())
}

/// Checks every page under `root`; fails listing each offence.
pub fn check(root: &Path) -> anyhow::Result<()> {
    let mut offences = Vec::new();
    for (page, limit, remedy) in LINE_LIMITS {
        let text = std::fs::read_to_string(root.join(page)).with_context(|| page.to_owned())?;
        let lines = text.lines().count();
        if lines > limit {
            offences.push(format!(
                "{page}: {lines} lines, more than {limit}: {remedy}"
            ));
        }
    }
    let pages = pages(root)?;
    offences.extend(dangling_citations(root, &pages)?);
    offences.extend(crate::map::offences(root)?);
    for page in pages {
        let text = std::fs::read_to_string(&page)?;
        let name = page
            .strip_prefix(root)
            .unwrap_or(&page)
            .display()
            .to_string();
        for block in blocks(&text) {
            match &block.file {
                Some(file) => match std::fs::read_to_string(root.join(file)) {
                    Ok(contents) if contents == block.text => {}
                    Ok(_) => offences.push(format!(
                        "{name}:{}: the block differs from {file}",
                        block.line
                    )),
                    Err(error) => {
                        offences.push(format!("{name}:{}: {file}: {error}", block.line))
                    }
                },
                None if block.language.starts_with("rust") && block.text.contains("fn main") => {
                    offences.push(format!(
                        "{name}:{}: a program without `<!-- file: … -->`: make it a file a build compiles",
                        block.line
                    ))
                }
                None => {}
            }
        }
        let folder = page.parent().unwrap_or(root);
        for target in links(&text) {
            if !folder.join(target).exists() {
                offences.push(format!("{name}: the link {target} leads nowhere"));
            }
        }
    }
    if !offences.is_empty() {
        bail!("{}", offences.join("\n"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{blocks, check, links};

    #[test]
    fn the_pages_show_each_program_as_it_is_built() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        if let Err(offences) = check(&root) {
            panic!("{offences}");
        }
    }

    #[test]
    fn blocks_know_their_file_and_links_their_targets() {
        let page = "text\n\n<!-- file: a.rs -->\n```rust\nfn main() {}\n```\n\n```sh\nls\n```\n\
                    see [x](docs/x.md#part) and [web](https://example.com)\n";
        let found = blocks(page);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].file.as_deref(), Some("a.rs"));
        assert_eq!(found[0].text, "fn main() {}\n");
        assert_eq!(
            (found[1].language.as_str(), found[1].file.as_deref()),
            ("sh", None)
        );
        assert_eq!(links(page), ["docs/x.md"]);
    }

    #[test]
    fn a_page_that_differs_from_its_file_is_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("docs")).expect("docs");
        std::fs::write(dir.path().join("ARCHITECTURE.md"), "# Map\n").expect("map");
        std::fs::write(dir.path().join("a.rs"), "fn main() {}\n").expect("file");
        std::fs::write(dir.path().join("BENCHMARKS.md"), "# Benchmarks\n").expect("benchmarks");
        std::fs::write(
            dir.path().join("README.md"),
            "<!-- file: a.rs -->\n```rust\nfn main() { changed(); }\n```\n",
        )
        .expect("readme");
        std::fs::write(
            dir.path().join("docs/b.md"),
            "```rust\nfn main() {}\n```\n[gone](nowhere.md)\n",
        )
        .expect("page");
        let error = check(dir.path()).expect_err("three offences").to_string();
        assert!(
            error.contains("README.md:2: the block differs from a.rs"),
            "{error}"
        );
        assert!(error.contains("docs/b.md:1: a program without"), "{error}");
        assert!(
            error.contains("the link nowhere.md leads nowhere"),
            "{error}"
        );
    }

    #[test]
    fn a_readme_longer_than_a_screenful_or_two_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("docs")).expect("docs");
        std::fs::write(dir.path().join("ARCHITECTURE.md"), "# Map\n").expect("map");
        std::fs::write(dir.path().join("BENCHMARKS.md"), "# Benchmarks\n").expect("benchmarks");
        let fits = "line\n".repeat(super::README_LINES);
        std::fs::write(dir.path().join("README.md"), &fits).expect("readme");
        check(dir.path()).expect("250 lines fit");
        std::fs::write(dir.path().join("README.md"), fits + "one more\n").expect("readme");
        let error = check(dir.path()).expect_err("251 lines").to_string();
        assert!(
            error.contains("README.md: 251 lines, more than 250"),
            "{error}"
        );
    }

    #[test]
    fn benchmarks_past_its_limit_or_a_citation_of_a_missing_section_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("docs")).expect("docs");
        std::fs::create_dir_all(dir.path().join("crates/a/src")).expect("crate");
        std::fs::write(
            dir.path().join("ARCHITECTURE.md"),
            "# Map\n## crates/a/src\n- `lib.rs` the crate\n",
        )
        .expect("map");
        let benchmarks = format!(
            "# Benchmarks\n## Zero-copy sending against nginx\n{}",
            "x\n".repeat(398)
        );
        std::fs::write(dir.path().join("BENCHMARKS.md"), &benchmarks).expect("benchmarks");
        std::fs::write(
            dir.path().join("README.md"),
            "See [BENCHMARKS.md](BENCHMARKS.md), \"Zero-copy sending\".\n",
        )
        .expect("readme");
        std::fs::write(
            dir.path().join("crates/a/src/lib.rs"),
            "/// Measured (BENCHMARKS.md,\n/// \"Zero-copy sending against nginx\").\nfn a() {}\n",
        )
        .expect("code");
        check(dir.path()).expect("400 lines and citations of headings it has");
        std::fs::write(
            dir.path().join("crates/a/src/lib.rs"),
            "// BENCHMARKS.md, \"What CI\n// costs\"\n",
        )
        .expect("code");
        std::fs::write(dir.path().join("BENCHMARKS.md"), benchmarks + "one more\n")
            .expect("benchmarks");
        let error = check(dir.path()).expect_err("two offences").to_string();
        assert!(
            error.contains("BENCHMARKS.md: 401 lines, more than 400"),
            "{error}"
        );
        assert!(
            error.contains("crates/a/src/lib.rs: BENCHMARKS.md has no section \"What CI costs\""),
            "{error}"
        );
    }
}
