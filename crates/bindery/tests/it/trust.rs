//! A user's crate serves what its folder holds, whatever its build cache holds: a pack
//! overwritten in place and a blob planted before the first build are both made again, and two
//! catalogs of one folder carry each large file once.

use std::path::{Path, PathBuf};

use bindery_test_support::noise;

use crate::project::{Project, crate_path};

const PRINT_ALL: &str = "
fn main() {
    for file in ASSETS.iter() {
        println!(\"{} {}\", file.path(), String::from_utf8_lossy(&ASSETS.get(file.path()).unwrap()));
    }
}
";

/// The files under `dir` (recursively) whose bytes contain `needle`.
fn files_containing(dir: &Path, needle: &[u8]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_containing(&path, needle));
        } else if std::fs::read(&path)
            .is_ok_and(|bytes| bytes.windows(needle.len()).any(|window| window == needle))
        {
            found.push(path);
        }
    }
    found
}

/// Text no other test writes: this run's own.
fn unique(label: &str) -> String {
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos());
    format!("{label}-{nonce}-{}", std::process::id())
}

#[test]
fn a_pack_overwritten_in_the_cache_is_not_served_after_a_rebuild() {
    let project = Project::new("bindery_trust_pack", "");
    let alpha = unique("alpha");
    let bravo = unique("bravo");
    project.write("assets/a.txt", &alpha);
    project.write("assets/b.txt", &bravo);
    let main =
        format!("static ASSETS: bindery::Catalog = bindery::embed!(\"assets\");\n{PRINT_ALL}");
    project.write("src/main.rs", &main);
    project.build(&[]);
    assert_eq!(project.run(), format!("a.txt {alpha}\nb.txt {bravo}\n"));

    // Another local user, or a careless script, overwrites the pack in place with as many bytes.
    let packs = files_containing(&project.target().join("bindery/packs"), alpha.as_bytes());
    assert_eq!(packs.len(), 1, "{packs:?}");
    let len = std::fs::metadata(&packs[0]).expect("pack").len() as usize;
    std::fs::write(&packs[0], vec![b'X'; len]).expect("overwrite");

    project.write("src/main.rs", format!("{main}// touched\n"));
    project.build(&[]);
    assert_eq!(project.run(), format!("a.txt {alpha}\nb.txt {bravo}\n"));
}

#[test]
fn a_blob_planted_before_the_first_build_is_not_served() {
    let project = Project::with_features("bindery_trust_blob", &["gzip"], "");
    let page = format!("<!doctype html><p>{}</p>\n", unique("genuine")).repeat(40);
    project.write("assets/page.html", &page);
    // The content is public; its hash names the blob the build will look for.
    let hash = format!("{:032x}", xxhash_rust::xxh3::xxh3_128(page.as_bytes()));
    let planted = project.target().join(format!("bindery/gzip/{hash}-9.gz"));
    std::fs::create_dir_all(planted.parent().expect("folder")).expect("mkdir");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut encoder, b"<script>evil()</script>").expect("gzip");
    std::fs::write(&planted, encoder.finish().expect("gzip")).expect("plant");

    project.write(
        "src/main.rs",
        format!("static ASSETS: bindery::Catalog = bindery::embed!(\"assets\", mode = \"gzip\");\n{PRINT_ALL}"),
    );
    project.build(&[]);
    assert_eq!(project.run(), format!("page.html {page}\n"));
}

/// How many times `needle` occurs in `haystack`.
fn occurrences(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .filter(|window| *window == needle)
        .count()
}

#[test]
fn two_catalogs_of_one_folder_carry_each_large_file_once() {
    let codegen = crate_path("bindery-codegen");
    for tracked in [false, true] {
        let name = if tracked {
            "bindery_trust_twice_tracked"
        } else {
            "bindery_trust_twice"
        };
        let build_dependencies =
            format!("[build-dependencies]\nbindery-codegen = {{ path = \"{codegen}\" }}\n");
        let project = Project::with_features(
            name,
            &["gzip"],
            if tracked { &build_dependencies } else { "" },
        );
        if tracked {
            project.write(
                "build.rs",
                "fn main() {\n    bindery_codegen::track(\"assets\");\n}\n",
            );
        }
        // Incompressible: the gzip catalog stores it raw too.
        let large = noise(3 * 1024 * 1024, if tracked { 21 } else { 20 });
        project.write("assets/large.bin", &large);
        project.write("assets/small.txt", "small");
        project.write(
            "src/main.rs",
            "static STATIC: bindery::Catalog = bindery::embed!(\"assets\");\n\
             static GZIP: bindery::Catalog = bindery::embed!(\"assets\", mode = \"gzip\");\n\n\
             fn main() {\n    let (a, b) = (STATIC.file(\"large.bin\").unwrap(), GZIP.file(\"large.bin\").unwrap());\n    \
             assert!(a.raw().unwrap() == b.raw().unwrap());\n    \
             println!(\"{} {}\", a.len(), std::ptr::eq(a.raw().unwrap().as_ptr(), b.raw().unwrap().as_ptr()));\n}\n",
        );
        project.build_release();
        let binary = std::fs::read(project.release_binary()).expect("binary");
        let probe = &large[1024 * 1024..1024 * 1024 + 64];
        assert_eq!(occurrences(&binary, probe), 1, "tracked: {tracked}");
        let output = std::process::Command::new(project.release_binary())
            .output()
            .expect("runs");
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            format!("{} true\n", large.len())
        );
    }
}
