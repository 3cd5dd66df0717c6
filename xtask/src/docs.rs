//! The pages a reader follows: README.md and docs/*.md. Every program they show is a file of the
//! workspace that a build compiles: a block preceded by `<!-- file: path -->` must be that file
//! exactly, and a Rust block with a `fn main` must have such a line. Every relative link must
//! lead to a file, and README.md fits in [`README_LINES`] lines (the rest belongs in docs/).
//! Run by the test `the_pages_show_each_program_as_it_is_built`.

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

/// The most lines README.md may have: what a reader takes in before choosing a page of docs/.
pub const README_LINES: usize = 250;

/// Checks every page under `root`; fails listing each offence.
pub fn check(root: &Path) -> anyhow::Result<()> {
    let mut offences = Vec::new();
    let readme = std::fs::read_to_string(root.join("README.md")).context("README.md")?;
    let lines = readme.lines().count();
    if lines > README_LINES {
        offences.push(format!(
            "README.md: {lines} lines, more than {README_LINES}: move a walk-through to docs/"
        ));
    }
    for page in pages(root)? {
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
        std::fs::write(dir.path().join("a.rs"), "fn main() {}\n").expect("file");
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
}
