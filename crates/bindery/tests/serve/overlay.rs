//! A folder laid over the catalog (`bindery::overlay`): an override is served and the embedded
//! file otherwise; escapes, links out, hidden and oversized files are refused; a file rewritten
//! while requests read it always answers one whole version under its own ETag.

use bindery::overlay::{Order, Overlay};
use bindery::serve::{BuildError, ServeCatalog};
use http::StatusCode;

use bindery_test_support::replace_by_rename;

use crate::support::{FINGERPRINTED, GZIP, STATIC, get};

fn service(overlay: Overlay) -> ServeCatalog {
    ServeCatalog::builder(overlay.catalog())
        .spa_fallback("index.html")
        .overlay(overlay)
        .build()
        .expect("a valid setup")
}

fn on_disk(path: &str) -> Vec<u8> {
    std::fs::read(format!("../../assets/fixtures/{path}")).expect("fixture")
}

#[tokio::test]
async fn the_folder_first_replaces_files_and_the_catalog_answers_the_rest() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("hello.txt"), "overridden\n").expect("write");
    std::fs::write(dir.path().join("index.html"), "<p>custom app</p>").expect("write");
    std::fs::write(dir.path().join("extra.css"), "body{}").expect("write");
    let service = service(Overlay::new(&GZIP, dir.path()).expect("folder"));
    let hello = get(&service, "/hello.txt", &[]).await;
    assert_eq!(
        (hello.status, &hello.body[..]),
        (StatusCode::OK, &b"overridden\n"[..])
    );
    assert_eq!(hello.header("content-type"), "text/plain; charset=utf-8");
    assert_eq!(hello.header("cache-control"), "no-cache");
    assert_ne!(
        hello.header("etag"),
        GZIP.file("hello.txt").expect("embedded").etag()
    );
    let etag = hello.header("etag").to_owned();
    let again = get(&service, "/hello.txt", &[("if-none-match", &etag)]).await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);
    let part = get(&service, "/hello.txt", &[("range", "bytes=0-3")]).await;
    assert_eq!(&part.body[..], b"over");
    assert_eq!(get(&service, "/app.js", &[]).await.body, on_disk("app.js"));
    assert_eq!(get(&service, "/extra.css", &[]).await.body, &b"body{}"[..]);
    // The SPA's page is the overlay's too.
    let deep = get(&service, "/lookup/1.1.1.1", &[("accept", "text/html")]).await;
    assert_eq!(&deep.body[..], b"<p>custom app</p>");
}

#[tokio::test]
async fn the_catalog_first_only_fills_in_what_it_lacks() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("hello.txt"), "overridden\n").expect("write");
    std::fs::write(dir.path().join("extra.css"), "body{}").expect("write");
    let overlay = Overlay::new(&STATIC, dir.path())
        .expect("folder")
        .order(Order::Last);
    let service = service(overlay);
    assert_eq!(
        get(&service, "/hello.txt", &[]).await.body,
        on_disk("hello.txt")
    );
    assert_eq!(get(&service, "/extra.css", &[]).await.body, &b"body{}"[..]);
}

#[cfg(unix)]
#[tokio::test]
async fn escapes_links_out_hidden_excluded_and_oversized_files_are_never_served() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("custom");
    std::fs::create_dir_all(folder.join("sub")).expect("mkdir");
    std::fs::write(dir.path().join("secret.txt"), "SECRET").expect("write");
    std::fs::write(folder.join(".env"), "SECRET").expect("write");
    std::fs::write(folder.join("app.js.map"), "SECRET").expect("write");
    std::fs::write(folder.join("big.bin"), vec![b'x'; 2048]).expect("write");
    std::os::unix::fs::symlink(dir.path().join("secret.txt"), folder.join("hello.txt"))
        .expect("link");
    std::os::unix::fs::symlink(dir.path(), folder.join("sub/up")).expect("link");
    let overlay = Overlay::new(&STATIC, &folder)
        .expect("folder")
        .exclude(["**/*.map"])
        .max_file_size(1024);
    let service = service(overlay);
    for target in [
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/sub/..%2f..%2fsecret.txt",
        "/.env",
        "/app.js.map",
        "/big.bin",
        "/sub/up/secret.txt",
        "/hello.txt",
    ] {
        let reply = get(&service, target, &[]).await;
        assert!(
            !reply.body.windows(6).any(|window| window == b"SECRET"),
            "{target}"
        );
        assert!(reply.body.len() < 2048, "{target}: the oversized file");
    }
    // A link out is no override: the embedded file answers.
    assert_eq!(
        get(&service, "/hello.txt", &[]).await.body,
        on_disk("hello.txt")
    );
}

/// The ETag bindery gives these bytes: the first 128 bits of their BLAKE3 hash, quoted.
fn etag_of(bytes: &[u8]) -> String {
    format!("\"{:032x}\"", xxhash_rust::xxh3::xxh3_128(bytes))
}

/// Rewrites `path` with each of `versions` in turn until `stop`, by rename or in place.
fn rewrite_until(
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    path: std::path::PathBuf,
    versions: [Vec<u8>; 2],
    in_place: bool,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut round = 0;
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            let version = &versions[round % 2];
            if in_place {
                std::fs::write(&path, version).expect("write");
            } else {
                replace_by_rename(&path, version);
            }
            round += 1;
        }
    })
}

#[tokio::test]
async fn a_file_replaced_during_reads_answers_one_whole_version_under_its_own_etag() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("data.json");
    let versions = [vec![b'a'; 300_000], vec![b'b'; 200_000]];
    std::fs::write(&path, &versions[0]).expect("write");
    let service = service(Overlay::new(&STATIC, dir.path()).expect("folder"));
    let embedded = on_disk("data.json");
    for in_place in [false, true] {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let writer = rewrite_until(stop.clone(), path.clone(), versions.clone(), in_place);
        let mut seen = [0, 0];
        for _ in 0..300 {
            let reply = get(&service, "/data.json", &[]).await;
            assert_eq!(reply.status, StatusCode::OK);
            // Whatever was read, its ETag names exactly those bytes.
            assert_eq!(
                reply.header("etag"),
                etag_of(&reply.body),
                "in place: {in_place}"
            );
            match versions
                .iter()
                .position(|version| reply.body == version[..])
            {
                Some(index) => seen[index] += 1,
                // Rewritten in place, a file passes through its truncation and partial writes,
                // each a state it was in while nothing changed during the read: such a prefix
                // may be answered (as by any server; replace files by rename), or, when it kept
                // changing through every read, the embedded file. Replaced by rename it never
                // is: every answer is one version or the other.
                None => assert!(
                    in_place
                        && (reply.body == embedded
                            || versions
                                .iter()
                                .any(|version| version.starts_with(&reply.body))),
                    "bytes of no version (in place: {in_place}, {} bytes)",
                    reply.body.len()
                ),
            }
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        writer.join().expect("writer");
        if !in_place {
            assert!(
                seen[0] > 0 && seen[1] > 0,
                "both versions answered: {seen:?}"
            );
        }
    }
}

#[test]
fn an_overlay_of_another_catalog_is_refused_when_the_service_is_built() {
    let dir = tempfile::tempdir().expect("tempdir");
    let overlay = Overlay::new(&GZIP, dir.path()).expect("folder");
    let error = ServeCatalog::builder(&STATIC)
        .overlay(overlay)
        .build()
        .expect_err("another catalog");
    assert!(matches!(error, BuildError::OverlayOfAnotherCatalog));
}

#[tokio::test]
async fn files_from_the_folder_get_the_per_path_headers_of_their_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("fresh.css"), "a{}").expect("write");
    let overlay = Overlay::new(&STATIC, dir.path()).expect("folder");
    let service = ServeCatalog::builder(&STATIC)
        .headers("*.css", [("access-control-allow-origin", "*")])
        .overlay(overlay)
        .build()
        .expect("a valid setup");
    for path in ["/fresh.css", "/style.css"] {
        let reply = get(&service, path, &[]).await;
        assert_eq!(reply.status, StatusCode::OK, "{path}");
        assert_eq!(reply.header("access-control-allow-origin"), "*", "{path}");
    }
}

/// The fixtures as a build that leaves out source maps, everything under `deep/` and hidden
/// files; and a second folder under `spa/` that leaves out stylesheets.
static EXCLUDING: bindery::Catalog = bindery::embed!(
    "../../assets/fixtures",
    exclude = ["*.map", "deep/**"],
    folder("../../assets/spa", prefix = "spa", exclude = ["*.css"])
);

#[tokio::test]
async fn files_the_build_leaves_out_are_left_out_of_the_overlay_unless_widened() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |path: &str| {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, "OVERLAY").expect("write");
    };
    for path in [
        "app.js.map",
        "deep/x.txt",
        ".env",
        "spa/theme.css",
        "spa/new.js",
        "new.css",
    ] {
        write(path);
    }
    let service = service(Overlay::new(&EXCLUDING, dir.path()).expect("folder"));
    for (target, status) in [
        ("/app.js.map", StatusCode::NOT_FOUND),
        ("/deep/x.txt", StatusCode::NOT_FOUND),
        ("/.env", StatusCode::NOT_FOUND),
        ("/spa/theme.css", StatusCode::NOT_FOUND),
        // Each folder's own rules: `*.css` is left out of `spa/` only.
        ("/new.css", StatusCode::OK),
        ("/spa/new.js", StatusCode::OK),
    ] {
        let reply = get(&service, target, &[]).await;
        assert_eq!(reply.status, status, "{target}");
        assert_eq!(
            reply.body == b"OVERLAY"[..],
            status == StatusCode::OK,
            "{target}"
        );
    }
    // A setter replaces the build's rule: no exclusions at all now.
    let widened = Overlay::new(&EXCLUDING, dir.path())
        .expect("folder")
        .exclude(Vec::<String>::new());
    let service = service_of(&EXCLUDING, widened);
    for target in ["/app.js.map", "/deep/x.txt", "/spa/theme.css"] {
        assert_eq!(
            get(&service, target, &[]).await.body,
            &b"OVERLAY"[..],
            "{target}"
        );
    }
    assert_eq!(
        get(&service, "/.env", &[]).await.status,
        StatusCode::NOT_FOUND
    );
}

fn service_of(catalog: &'static bindery::Catalog, overlay: Overlay) -> ServeCatalog {
    ServeCatalog::builder(catalog)
        .overlay(overlay)
        .build()
        .expect("a valid setup")
}

#[cfg(unix)]
#[tokio::test]
async fn no_link_in_the_overlay_is_followed_even_to_a_file_inside_it() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path();
    std::fs::create_dir_all(folder.join("sub")).expect("mkdir");
    std::fs::write(folder.join("sub/real.txt"), "LINKED").expect("write");
    std::fs::write(folder.join("style.css"), "served").expect("write");
    symlink("sub/real.txt", folder.join("hello.txt")).expect("relative link");
    symlink(folder.join("sub/real.txt"), folder.join("app.js")).expect("absolute link");
    symlink("sub/../sub/real.txt", folder.join("index.html")).expect("link through ..");
    symlink("sub", folder.join("images")).expect("link to a folder");
    std::fs::write(folder.join("sub/logo.svg"), "LINKED").expect("write");
    let service = service(Overlay::new(&STATIC, folder).expect("folder"));
    // A plain file is served; every link, wherever it points, is no file: the catalog answers.
    assert_eq!(get(&service, "/style.css", &[]).await.body, &b"served"[..]);
    assert_eq!(
        get(&service, "/sub/real.txt", &[]).await.body,
        &b"LINKED"[..]
    );
    for path in ["hello.txt", "app.js", "index.html", "images/logo.svg"] {
        let reply = get(&service, &format!("/{path}"), &[]).await;
        assert_eq!(reply.status, StatusCode::OK, "{path}");
        assert_eq!(reply.body, on_disk(path), "{path}: the embedded file");
    }
}

#[tokio::test]
async fn flipping_a_file_between_two_contents_keeps_two_versions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("theme.bin");
    let versions = [vec![b'a'; 64 << 10], vec![b'b'; 48 << 10]];
    let overlay = Overlay::new(&STATIC, dir.path()).expect("folder");
    let service = service(overlay.clone());
    let mut etags = std::collections::BTreeSet::new();
    for round in 0..40 {
        let version = &versions[round % 2];
        replace_by_rename(&path, version);
        let reply = get(&service, "/theme.bin", &[]).await;
        assert_eq!(reply.body, version[..], "round {round}");
        etags.insert(reply.header("etag").to_owned());
    }
    assert_eq!(etags.len(), 2);
    let held = overlay.held();
    assert_eq!((held.versions, held.bytes, held.refused), (2, 112 << 10, 0));
}

#[tokio::test]
async fn past_a_bound_a_new_version_is_refused_and_the_catalog_answers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("hello.txt");
    let overlay = Overlay::new(&STATIC, dir.path())
        .expect("folder")
        .max_versions(3);
    let service = service(overlay.clone());
    for version in 0..3 {
        replace_by_rename(&path, format!("version {version}").as_bytes());
        let reply = get(&service, "/hello.txt", &[]).await;
        assert_eq!(reply.body, format!("version {version}").as_bytes());
    }
    replace_by_rename(&path, b"version 3");
    assert_eq!(
        get(&service, "/hello.txt", &[]).await.body,
        on_disk("hello.txt"),
        "a fourth version is not kept: the embedded file answers"
    );
    // A version already kept is still served when the file holds it again.
    replace_by_rename(&path, b"version 1");
    assert_eq!(
        get(&service, "/hello.txt", &[]).await.body,
        &b"version 1"[..]
    );
    let held = overlay.held();
    assert_eq!((held.versions, held.refused), (3, 1));

    // The byte bound counts every path.
    let small = Overlay::new(&STATIC, dir.path())
        .expect("folder")
        .max_held(12);
    std::fs::write(dir.path().join("a.txt"), "0123456789").expect("write");
    std::fs::write(dir.path().join("b.txt"), "0123456789").expect("write");
    assert!(small.get("a.txt").is_some());
    assert!(small.get("b.txt").is_none(), "20 bytes held would pass 12");
    assert_eq!(small.held().bytes, 10);
}

#[cfg(unix)]
#[tokio::test]
async fn the_folder_swapped_for_a_link_or_another_folder_after_start_serves_none_of_theirs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("custom");
    let outside = dir.path().join("etc");
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::fs::create_dir_all(&outside).expect("mkdir");
    std::fs::write(folder.join("hello.txt"), "overlay\n").expect("write");
    std::fs::write(outside.join("hello.txt"), "TARGET").expect("write");
    std::fs::write(outside.join("passwd"), "TARGET").expect("write");
    let service = service(Overlay::new(&STATIC, &folder).expect("folder"));
    assert_eq!(
        get(&service, "/hello.txt", &[]).await.body,
        &b"overlay\n"[..]
    );
    // What anyone who can write the folder's parent can do: rename it, link another in.
    std::fs::rename(&folder, dir.path().join("moved")).expect("rename");
    std::os::unix::fs::symlink(&outside, &folder).expect("link");
    let passwd = get(&service, "/passwd", &[]).await;
    assert_eq!(passwd.status, StatusCode::NOT_FOUND);
    let hello = get(&service, "/hello.txt", &[]).await;
    assert_eq!(
        hello.body,
        &b"overlay\n"[..],
        "the folder opened at start, not the link's"
    );
    // A real folder in its place changes nothing either, until a restart.
    std::fs::remove_file(&folder).expect("unlink");
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::fs::write(folder.join("passwd"), "TARGET").expect("write");
    assert_eq!(
        get(&service, "/passwd", &[]).await.status,
        StatusCode::NOT_FOUND
    );
}

#[cfg(unix)]
#[tokio::test]
async fn a_hard_link_in_the_folder_is_no_file_there() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("custom");
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::fs::write(dir.path().join("secret"), "TARGET").expect("write");
    // To a file outside the folder (O_NOFOLLOW does not see it), under a new name and under an
    // embedded one.
    std::fs::hard_link(dir.path().join("secret"), folder.join("passwd")).expect("hard link");
    std::fs::hard_link(dir.path().join("secret"), folder.join("hello.txt")).expect("hard link");
    let service = service(Overlay::new(&STATIC, &folder).expect("folder"));
    assert_eq!(
        get(&service, "/passwd", &[]).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        get(&service, "/hello.txt", &[]).await.body,
        on_disk("hello.txt")
    );
}

#[tokio::test]
async fn a_fingerprinted_url_is_immutable_only_over_the_bytes_it_names() {
    let dir = tempfile::tempdir().expect("tempdir");
    let service = service_of(
        &FINGERPRINTED,
        Overlay::new(&FINGERPRINTED, dir.path()).expect("folder"),
    );
    let url = FINGERPRINTED.url("app.js").expect("a fingerprinted name");
    let url = format!("/{url}");
    let embedded = get(&service, &url, &[]).await;
    assert_eq!(embedded.body, on_disk("app.js"));
    assert!(embedded.header("cache-control").contains("immutable"));
    // A hotfix on disk: served under the fingerprinted URL too, but never as immutable.
    std::fs::write(dir.path().join("app.js"), "/* hotfix */").expect("write");
    let hotfix = get(&service, &url, &[]).await;
    assert_eq!(&hotfix.body[..], b"/* hotfix */");
    assert!(
        !hotfix.header("cache-control").contains("immutable"),
        "{}",
        hotfix.header("cache-control")
    );
    assert_eq!(hotfix.header("cache-control"), "no-cache");
    // The same bytes as the build's: immutable is right again.
    std::fs::write(dir.path().join("app.js"), on_disk("app.js")).expect("write");
    let same = get(&service, &url, &[]).await;
    assert!(same.header("cache-control").contains("immutable"));
    // A file there that cannot be read (longer than allowed): the embedded bytes, revalidated.
    let small = service_of(
        &FINGERPRINTED,
        Overlay::new(&FINGERPRINTED, dir.path())
            .expect("folder")
            .max_file_size(4),
    );
    std::fs::write(dir.path().join("app.js"), "/* a longer hotfix */").expect("write");
    let unread = get(&small, &url, &[]).await;
    assert_eq!(unread.body, on_disk("app.js"));
    assert!(
        !unread.header("cache-control").contains("immutable"),
        "{}",
        unread.header("cache-control")
    );
}
