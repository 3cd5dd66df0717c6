//! The folder as a jail: a key is opened only as the folder lists it, never through a link
//! out of it (dev mode resolves links inside; an overlay follows none).

/// Whether no segment of `relative` is a link. On Unix [`open_beneath`] refuses links by
/// itself; elsewhere this checks each segment before the open (a window remains there).
#[cfg(all(unix, feature = "dev", debug_assertions))]
pub(super) fn is_link_free(_root: &std::path::Path, _relative: &str) -> bool {
    true
}

#[cfg(not(unix))]
pub(super) fn is_link_free(root: &std::path::Path, relative: &str) -> bool {
    let mut path = root.to_path_buf();
    relative.split('/').all(|segment| {
        path.push(segment);
        std::fs::symlink_metadata(&path).is_ok_and(|metadata| !metadata.file_type().is_symlink())
    })
}

#[cfg(any(test, all(feature = "dev", debug_assertions), not(unix)))]
/// Whether the file found on disk (`disk`, its real path) is the one the rules kept under the
/// key asked for (`relative`): decided on what was found, not only on the string asked.
///
/// The key must be spelled exactly as the folder's entries are, as a build's walk lists them:
/// a file system may accept another spelling (`APP.JS.MAP` for `app.js.map` on a
/// case-insensitive one, another Unicode normalisation) and `realpath` may keep it, which
/// would let a spelling the rules do not recognise serve an excluded file. When the real path
/// differs from the key (a link inside the folder), the rules must keep the file found too: a
/// link never serves an excluded or hidden file under an innocent name.
pub(super) fn is_found_as_asked(
    root: &std::path::Path,
    relative: &str,
    disk: &std::path::Path,
    filter: &bindery_core::scan::Filter,
) -> bool {
    let Some(found) = disk
        .strip_prefix(root)
        .ok()
        .and_then(std::path::Path::to_str)
    else {
        return false;
    };
    is_spelled_as_listed(root, relative)
        && (found == relative || (filter.keeps(found) && is_spelled_as_listed(root, found)))
}

#[cfg(any(test, all(feature = "dev", debug_assertions), not(unix)))]
/// Whether each segment of `relative` is, byte for byte, the name of an entry of its folder.
pub(super) fn is_spelled_as_listed(root: &std::path::Path, relative: &str) -> bool {
    let mut folder = root.to_path_buf();
    for segment in relative.split('/') {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            return false;
        };
        let listed = entries
            .flatten()
            .any(|entry| entry.file_name().as_encoded_bytes() == segment.as_bytes());
        if !listed {
            return false;
        }
        folder.push(segment);
    }
    true
}

/// Whether `relative` is a precompressed sibling (`app.js.br` beside `app.js`), which a catalog
/// built with `siblings = true` does not list.
pub(super) fn is_sibling(relative: &str, exists: &dyn Fn(&str) -> bool) -> bool {
    crate::Encoding::ALL.into_iter().any(|encoding| {
        relative
            .strip_suffix(encoding.extension())
            .and_then(|rest| rest.strip_suffix('.'))
            .is_some_and(exists)
    })
}

#[cfg(any(all(feature = "dev", debug_assertions), not(unix)))]
/// `path` with symlinks resolved, if that lies inside `root` (itself resolved).
pub(super) fn jailed(root: &std::path::Path, path: &std::path::Path) -> Option<std::path::PathBuf> {
    let resolved = std::fs::canonicalize(path).ok()?;
    resolved.starts_with(root).then_some(resolved)
}

/// Opens `inside` (a real path below `root`, no links in it) from `root` down, one name at a
/// time, following no link: whatever is swapped in along the way after the checks is refused,
/// never followed out of the folder. Non-blocking, so a FIFO planted there cannot hang a
/// request (it is then refused as not a regular file).
#[cfg(all(unix, any(test, all(feature = "dev", debug_assertions))))]
pub(super) fn open_beneath(
    root: &std::path::Path,
    inside: &std::path::Path,
) -> Option<std::fs::File> {
    use rustix::fs::{CWD, Mode, OFlags, openat};
    let base = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOFOLLOW;
    let mut folder = openat(CWD, root, base | OFlags::DIRECTORY, Mode::empty()).ok()?;
    let mut names = inside.components().peekable();
    while let Some(name) = names.next() {
        let std::path::Component::Normal(name) = name else {
            return None;
        };
        if names.peek().is_none() {
            let file = openat(&folder, name, base | OFlags::NONBLOCK, Mode::empty()).ok()?;
            return Some(std::fs::File::from(file));
        }
        folder = openat(&folder, name, base | OFlags::DIRECTORY, Mode::empty()).ok()?;
    }
    None
}

/// Elsewhere, the real path checked just before (a check-then-open window remains there).
#[cfg(not(unix))]
pub(super) fn open_beneath(
    root: &std::path::Path,
    inside: &std::path::Path,
) -> Option<std::fs::File> {
    std::fs::File::open(root.join(inside)).ok()
}
