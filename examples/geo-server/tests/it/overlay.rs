//! `--spa-overlay` in the real process: a file flipped between two contents by rename holds two
//! versions in memory, not one per flip, and renames under concurrent readers stay within the
//! bounds SECURITY.md gives (16 versions of a path, their bytes, and one copy per reader while
//! a changed file is read).

use std::path::Path;
use std::time::{Duration, Instant};

use bindery_test_support::replace_by_rename;

use crate::process::start;

const MIB: u64 = 1 << 20;

/// The process's resident memory, from `/proc/<pid>/status`.
fn rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    let line = status
        .lines()
        .find(|line| line.starts_with("VmRSS:"))
        .expect("VmRSS");
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|value| value.parse().ok())
        .expect("a number of KiB");
    kib * 1024
}

/// The body and ETag of `url`.
async fn fetch(client: &reqwest::Client, url: &str) -> (Vec<u8>, String) {
    let response = client.get(url).send().await.expect("request");
    assert_eq!(response.status(), 200, "{url}");
    let etag = response.headers()["etag"]
        .to_str()
        .expect("etag")
        .to_owned();
    (response.bytes().await.expect("body").to_vec(), etag)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn overlay_flips_hold_two_versions_and_renames_under_readers_stay_bounded() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("theme.bin");
    let server = start(&["--spa-overlay", dir.path().to_str().expect("UTF-8")]);
    let client = reqwest::Client::new();
    // The server's own start-up work done (its first requests), before anything is measured.
    for _ in 0..20 {
        let _ = client.get(format!("{}/app.js", server.base)).send().await;
    }
    let url = format!("{}/theme.bin", server.base);
    let two = flips_hold_two_versions(server.child.id(), &client, &url, &path).await;
    renames_under_readers_stay_bounded(server.child.id(), &client, &url, &path, two).await;
}

/// 40 renames between two 1 MiB contents, a GET after each: two ETags, and RSS within 3 MiB
/// of what two versions cost. Returns the RSS after the first two.
async fn flips_hold_two_versions(
    pid: u32,
    client: &reqwest::Client,
    url: &str,
    path: &Path,
) -> u64 {
    let versions = [
        bindery_test_support::noise(MIB as usize, 1),
        bindery_test_support::noise(MIB as usize, 2),
    ];
    let before = rss(pid);
    let mut etags = std::collections::BTreeSet::new();
    let mut two = 0;
    for round in 0..40 {
        let version = &versions[round % 2];
        replace_by_rename(path, version);
        let (body, etag) = fetch(client, url).await;
        assert!(body == *version, "round {round}: another body");
        etags.insert(etag);
        if round == 1 {
            two = rss(pid);
        }
    }
    let flipped = rss(pid);
    eprintln!(
        "RSS before {} KiB, after two versions {} KiB, after 40 flips {} KiB",
        before / 1024,
        two / 1024,
        flipped / 1024
    );
    assert_eq!(etags.len(), 2, "two versions, two ETags");
    assert!(
        flipped <= two + 3 * MIB,
        "40 flips grew RSS by {} KiB past two versions",
        (flipped - two) / 1024
    );
    two
}

/// Twenty readers while a writer renames new contents in for five seconds: at most 16 versions
/// kept, plus one copy per reader of a file read while it changed.
async fn renames_under_readers_stay_bounded(
    pid: u32,
    client: &reqwest::Client,
    url: &str,
    path: &Path,
    two: u64,
) {
    let stop = Instant::now() + Duration::from_secs(5);
    let writer = {
        let path = path.to_owned();
        std::thread::spawn(move || {
            let mut seed = 3;
            while Instant::now() < stop {
                replace_by_rename(&path, &bindery_test_support::noise(MIB as usize, seed));
                seed += 1;
                std::thread::sleep(Duration::from_millis(5));
            }
            seed - 3
        })
    };
    let readers: Vec<_> = (0..20)
        .map(|_| {
            let (client, url) = (client.clone(), url.to_owned());
            tokio::spawn(async move {
                let mut answers = 0;
                while Instant::now() < stop {
                    let response = client.get(&url).send().await.expect("request");
                    assert!(response.status() == 200 || response.status() == 404);
                    response.bytes().await.expect("body");
                    answers += 1;
                }
                answers
            })
        })
        .collect();
    let mut answers = 0;
    for reader in readers {
        answers += reader.await.expect("reader");
    }
    let renames = writer.join().expect("writer");
    let after = rss(pid);
    eprintln!(
        "{renames} renames under {answers} reads: RSS {} KiB ({} KiB past two versions)",
        after / 1024,
        after.saturating_sub(two) / 1024
    );
    assert!(renames > 16, "the bound was reached: {renames} renames");
    let bound = 16 * MIB + 20 * MIB + 8 * MIB;
    assert!(
        after <= two + bound,
        "renames under readers grew RSS by {} KiB past two versions",
        (after - two) / 1024
    );
}

/// What anyone who can write the overlay folder's parent can do: rename the folder away and
/// put a link to `/etc`-like folder in its place, or a hard link in it. The process goes on
/// serving the folder it opened; nothing of the link's target comes out.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_overlay_folder_swapped_for_a_link_or_holding_a_hard_link_serves_none_of_the_target() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("overlay");
    let target = dir.path().join("etc");
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::fs::create_dir_all(&target).expect("mkdir");
    std::fs::write(target.join("passwd"), "root:x:0:0:TARGET").expect("write");
    std::fs::write(target.join("theme.css"), "TARGET").expect("write");
    std::fs::write(folder.join("theme.css"), "body{color:red}").expect("write");
    let server = start(&["--spa-overlay", folder.to_str().expect("UTF-8")]);
    let client = reqwest::Client::new();
    let get = |path: &str| {
        let request = client.get(format!("{}{path}", server.base));
        async move {
            let response = request.send().await.expect("request");
            (
                response.status().as_u16(),
                response.text().await.expect("body"),
            )
        }
    };
    assert_eq!(get("/theme.css").await, (200, "body{color:red}".to_owned()));
    std::fs::rename(&folder, dir.path().join("moved")).expect("rename");
    std::os::unix::fs::symlink(&target, &folder).expect("link");
    let (status, body) = get("/passwd").await;
    assert!(!body.contains("TARGET"), "{status}: {body}");
    assert_eq!(
        get("/theme.css").await.1,
        "body{color:red}",
        "the folder opened at start"
    );
    // A hard link to the target's file, in the folder the process holds.
    std::fs::hard_link(target.join("passwd"), dir.path().join("moved/secret.css")).expect("link");
    let (status, body) = get("/secret.css").await;
    assert!(!body.contains("TARGET"), "{status}: {body}");
}
