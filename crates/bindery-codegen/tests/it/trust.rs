//! The cache cannot be made to serve what the folder does not hold: planted blobs and packs are
//! replaced, symlinks are never written through, and a file that changes while the build runs
//! fails it.

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use bindery_codegen::{Error, Mode, Options, Stored};

use crate::tree;

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .expect("valid gzip");
    out
}

fn gzip_blob(manifest: &bindery_codegen::Manifest) -> PathBuf {
    match &manifest.entries[0].stored {
        Stored::Gzip { blob, .. } => blob.clone(),
        Stored::Raw => panic!("text compresses"),
    }
}

#[test]
fn a_blob_planted_under_the_name_of_the_next_build_is_replaced() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = tempfile::tempdir().expect("cache");
    let text = "the genuine page, repeated. ".repeat(100);
    tree::write(dir.path(), &[("page.html", text.as_bytes())]);
    // Another user of a shared cache knows the content hash (the file is public) and plants a
    // valid gzip of other bytes under the name the build will look for.
    let hash = format!("{:032x}", xxhash_rust::xxh3::xxh3_128(text.as_bytes()));
    let planted = cache.path().join("gzip").join(format!("{hash}-9.gz"));
    std::fs::create_dir_all(planted.parent().expect("folder")).expect("mkdir");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(
        &mut encoder,
        "<script>evil()</script>".repeat(50).as_bytes(),
    )
    .expect("gzip");
    std::fs::write(&planted, encoder.finish().expect("gzip")).expect("plant");

    let options = Options::new(dir.path())
        .mode(Mode::Gzip)
        .cache_dir(cache.path());
    let manifest = options.build().expect("build");
    let blob = gzip_blob(&manifest);
    assert_eq!(blob, planted, "the blob keeps its content-addressed name");
    assert!(
        gunzip(&std::fs::read(&blob).expect("blob")) == text.as_bytes(),
        "the genuine bytes"
    );

    // Rewritten in place after a build, with as many bytes: the next build notices.
    let genuine = std::fs::read(&blob).expect("blob");
    std::fs::write(&blob, vec![b'X'; genuine.len()]).expect("overwrite");
    let rebuilt = options.build().expect("rebuild");
    assert!(
        std::fs::read(gzip_blob(&rebuilt)).expect("blob") == genuine,
        "made again"
    );
}

#[test]
fn a_pack_overwritten_in_place_with_as_many_bytes_is_written_again() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = tempfile::tempdir().expect("cache");
    tree::write(
        dir.path(),
        &[
            ("a.txt", b"alpha"),
            ("b.txt", b"bravo"),
            ("c.css", b"body{}"),
        ],
    );
    let options = Options::new(dir.path()).cache_dir(cache.path()).pack(true);
    let manifest = options.build().expect("build");
    let pack = manifest.pack.expect("packed").blob;
    let genuine = std::fs::read(&pack).expect("pack");
    std::fs::write(&pack, vec![b'X'; genuine.len()]).expect("overwrite");
    let rebuilt = options.build().expect("rebuild");
    let pack = rebuilt.pack.expect("packed").blob;
    assert!(
        std::fs::read(&pack).expect("pack") == genuine,
        "written again"
    );
    assert_eq!(&genuine[..5], b"alpha");
}

#[test]
fn a_touched_blob_is_checked_and_kept_without_compressing_again() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = tempfile::tempdir().expect("cache");
    let text = "kept when only its times change ".repeat(100);
    tree::write(dir.path(), &[("page.html", text.as_bytes())]);
    let options = Options::new(dir.path())
        .mode(Mode::Gzip)
        .cache_dir(cache.path());
    let blob = gzip_blob(&options.build().expect("build"));
    let before = std::fs::read(&blob).expect("blob");
    // Same bytes, a new identity (a `touch`, a copy back): hashed, found intact, kept.
    let file = std::fs::File::options()
        .write(true)
        .open(&blob)
        .expect("open");
    file.set_modified(std::time::SystemTime::now())
        .expect("touch");
    drop(file);
    let after = gzip_blob(&options.build().expect("rebuild"));
    assert!(std::fs::read(after).expect("blob") == before, "kept");
}

/// Every name the cache's temporary files had before they were made with `O_EXCL` and random
/// names: `.<name>.<pid>.<counter>.tmp`.
fn predictable_names(dir: &Path, name: &str) -> Vec<PathBuf> {
    (0..64)
        .map(|counter| dir.join(format!(".{name}.{}.{counter}.tmp", std::process::id())))
        .collect()
}

#[test]
fn symlinks_planted_in_the_cache_are_never_written_through() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = tempfile::tempdir().expect("cache");
    let victim_dir = tempfile::tempdir().expect("victim");
    let victim = victim_dir.path().join("victim.txt");
    std::fs::write(&victim, b"precious").expect("victim");
    let text = "compressible text for the gzip blob. ".repeat(100);
    tree::write(
        dir.path(),
        &[
            ("page.html", text.as_bytes()),
            ("a.txt", b"alpha"),
            ("b.txt", b"bravo"),
        ],
    );
    let hash = format!("{:032x}", xxhash_rust::xxh3::xxh3_128(text.as_bytes()));
    for folder in ["gzip", "packs", "hashes", "raw"] {
        let folder = cache.path().join(folder);
        std::fs::create_dir_all(&folder).expect("mkdir");
        let mut names = predictable_names(&folder, &hash);
        names.extend(predictable_names(&folder, "pack"));
        names.extend(predictable_names(&folder, "hashes"));
        for name in names {
            std::os::unix::fs::symlink(&victim, name).expect("symlink");
        }
    }
    // And at the final names the build will write: renamed over, never followed.
    let blob = cache.path().join("gzip").join(format!("{hash}-9.gz"));
    std::os::unix::fs::symlink(&victim, &blob).expect("symlink");

    let manifest = Options::new(dir.path())
        .mode(Mode::Gzip)
        .cache_dir(cache.path())
        .pack(true)
        .snapshots(true)
        .build()
        .expect("build");
    assert_eq!(std::fs::read(&victim).expect("victim"), b"precious");
    let page = manifest
        .entries
        .iter()
        .find(|entry| entry.path == "page.html")
        .expect("page");
    let Stored::Gzip { blob: written, .. } = &page.stored else {
        panic!("compressible");
    };
    assert_eq!(written, &blob);
    let metadata = std::fs::symlink_metadata(written).expect("blob");
    assert!(
        metadata.is_file(),
        "the planted link was replaced by a file"
    );
    assert_eq!(
        metadata.permissions().mode() & 0o077,
        0,
        "private to its owner"
    );
    assert!(
        gunzip(&std::fs::read(written).expect("blob")) == text.as_bytes(),
        "genuine"
    );
}

#[test]
fn a_file_rewritten_while_the_build_runs_fails_it_naming_the_file() {
    let setups: [fn(Options) -> Options; 3] = [
        |options| options,
        |options| options.mode(Mode::Gzip),
        |options| options.pack(true).snapshots(true),
    ];
    for setup in setups {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = tempfile::tempdir().expect("cache");
        tree::write(
            dir.path(),
            &[
                ("a.txt", b"alpha"),
                ("b.txt", b"bravo"),
                ("c.txt", b"charlie"),
            ],
        );
        let options = setup(Options::new(dir.path())).cache_dir(cache.path());
        let rewritten = dir.path().join("a.txt");
        // The build reports a file once it is stored; a watcher rewrites it just then.
        let result = options.build_with_progress(&mut |progress| {
            if progress.path == "a.txt" {
                std::fs::write(&rewritten, b"ALPHA, longer now").expect("rewrite");
            }
        });
        let error = result.expect_err("the file changed during the build");
        assert!(
            matches!(&error, Error::Changed { path } if path == &rewritten),
            "{error:?}"
        );
        assert_eq!(
            error.to_string(),
            format!(
                "`{}` changed during the build; build again",
                rewritten.display()
            )
        );
        // Built again once it is quiet, it is embedded as it now is.
        let manifest = options.build().expect("quiet now");
        assert_eq!(manifest.entries[0].len, 17);
    }
}

#[test]
fn a_cache_folder_others_can_write_to_is_made_private() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = tempfile::tempdir().expect("cache");
    std::fs::set_permissions(cache.path(), std::fs::Permissions::from_mode(0o777)).expect("chmod");
    tree::write(dir.path(), &[("a.txt", b"alpha")]);
    Options::new(dir.path())
        .cache_dir(cache.path())
        .build()
        .expect("build");
    let mode = std::fs::metadata(cache.path())
        .expect("cache")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700);
}

#[test]
fn a_cache_folder_of_another_user_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    tree::write(dir.path(), &[("a.txt", b"alpha")]);
    // As root, a folder given to `nobody`; as anyone else, `/`, which belongs to root.
    let others = tempfile::tempdir().expect("tempdir");
    let foreign = if rustix::process::geteuid().is_root() {
        let foreign = others.path().join("cache");
        std::fs::create_dir(&foreign).expect("mkdir");
        std::os::unix::fs::chown(&foreign, Some(65534), Some(65534)).expect("chown");
        foreign
    } else {
        PathBuf::from("/")
    };
    let error = Options::new(dir.path())
        .cache_dir(&foreign)
        .build()
        .expect_err("refused");
    assert!(matches!(error, Error::UnsafeCache { .. }), "{error:?}");
    assert!(error.to_string().contains("BINDERY_CACHE_DIR"), "{error}");
}
