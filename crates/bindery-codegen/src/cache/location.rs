//! Where the build cache lives, and that it is private: owned by the user who builds, and
//! writable by nobody else. A cache another local user could write to would let them plant bytes
//! that a binary then serves under its genuine ETag.

use std::path::{Path, PathBuf};

use crate::Error;

/// Where compressed blobs, packs and snapshots are cached when no directory is given.
///
/// In order: `$BINDERY_CACHE_DIR`; `$CARGO_TARGET_DIR/bindery`; `target/bindery` in the nearest
/// folder above `near` whose `target/` holds cargo's `CACHEDIR.TAG` and belongs to this user;
/// else this user's own cache folder (`$XDG_CACHE_HOME/bindery` or `~/.cache/bindery` on Linux,
/// `~/Library/Caches/bindery` on macOS, `%LOCALAPPDATA%\bindery` on Windows). Never a shared
/// temporary folder: when none of these exists, the build fails and asks for
/// `BINDERY_CACHE_DIR`. Whichever is chosen is made private when it is used (see
/// [`Options::build`](crate::Options::build)).
///
/// ```
/// let dir = bindery_codegen::default_cache_dir(std::path::Path::new(".")).unwrap();
/// assert!(dir.ends_with("bindery") || std::env::var_os("BINDERY_CACHE_DIR").is_some());
/// ```
pub fn default_cache_dir(near: &Path) -> Result<PathBuf, Error> {
    if let Some(dir) = std::env::var_os("BINDERY_CACHE_DIR").filter(|dir| !dir.is_empty()) {
        return Ok(absolute(PathBuf::from(dir)));
    }
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR").filter(|dir| !dir.is_empty()) {
        return Ok(absolute(PathBuf::from(dir)).join("bindery"));
    }
    let start = std::path::absolute(near).unwrap_or_else(|_| near.to_path_buf());
    for folder in start.ancestors() {
        let target = folder.join("target");
        if target.join("CACHEDIR.TAG").is_file() && is_own(&target) {
            return Ok(target.join("bindery"));
        }
    }
    user_cache_dir()
        .map(|dir| dir.join("bindery"))
        .ok_or(Error::NoCacheDir)
}

/// This user's own cache folder: `$XDG_CACHE_HOME` (when absolute), else `~/.cache`;
/// `~/Library/Caches` on macOS; `%LOCALAPPDATA%` on Windows.
fn user_cache_dir() -> Option<PathBuf> {
    let from = |name: &str| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|dir| dir.is_absolute())
    };
    if cfg!(windows) {
        return from("LOCALAPPDATA");
    }
    if cfg!(target_os = "macos") {
        return from("HOME").map(|home| home.join("Library/Caches"));
    }
    from("XDG_CACHE_HOME").or_else(|| from("HOME").map(|home| home.join(".cache")))
}

/// The user this build runs as (its effective user id): the owner of `/proc/self` on Linux,
/// else of a file this process creates. Asked once per process.
#[cfg(unix)]
fn user() -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    static USER: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    *USER.get_or_init(|| {
        if let Ok(metadata) = std::fs::metadata("/proc/self") {
            return Some(metadata.uid());
        }
        let (file, path) = super::staged::create(&std::env::temp_dir()).ok()?;
        let owner = file.metadata().ok().map(|metadata| metadata.uid());
        let _ = std::fs::remove_file(path);
        owner
    })
}

fn absolute(dir: PathBuf) -> PathBuf {
    if dir.is_absolute() {
        dir
    } else {
        std::env::current_dir().unwrap_or_default().join(dir)
    }
}

/// Whether `path` belongs to the user running this build (always true where ownership is not
/// checked).
fn is_own(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).is_ok_and(|metadata| Some(metadata.uid()) == user())
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        true
    }
}

/// Creates the cache folder if needed (mode 0700 on Unix) and checks that it is private: a folder,
/// owned by this user. One that others may write to is made private (the cache is bindery's
/// alone); one owned by another user is refused.
pub(crate) fn prepare(dir: &Path) -> Result<(), Error> {
    create_private(dir)?;
    let metadata = std::fs::metadata(dir).map_err(|error| Error::write(dir, error))?;
    if !metadata.is_dir() {
        return Err(Error::UnsafeCache {
            path: dir.to_path_buf(),
            reason: "it is not a folder".to_owned(),
        });
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let Some(user) = user() else {
            return Err(Error::UnsafeCache {
                path: dir.to_path_buf(),
                reason: "the user this build runs as cannot be told".to_owned(),
            });
        };
        if metadata.uid() != user {
            return Err(Error::UnsafeCache {
                path: dir.to_path_buf(),
                reason: format!(
                    "it belongs to user {} and this build runs as user {user}",
                    metadata.uid()
                ),
            });
        }
        if metadata.mode() & 0o022 != 0 {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
                .map_err(|error| Error::write(dir, error))?;
        }
    }
    Ok(())
}

/// `create_dir_all`, with every folder it creates readable and writable by its owner only.
pub(crate) fn create_private(dir: &Path) -> Result<(), Error> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(dir)
        .map_err(|error| Error::write(dir, error))
}
