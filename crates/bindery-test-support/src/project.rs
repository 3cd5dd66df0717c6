//! Throwaway cargo projects outside the workspace, as a user's crate would be, and the
//! workspace's own paths for their `path = "…"` dependencies.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The root of the bindery workspace, absolute.
///
/// ```
/// assert!(bindery_test_support::workspace().join("Cargo.lock").is_file());
/// ```
pub fn workspace() -> PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .expect("the workspace root exists")
}

/// The absolute path of a workspace crate, for `path = "…"` dependencies: `crate_path("bindery")`.
///
/// ```
/// let path = bindery_test_support::crate_path("bindery-cli");
/// assert!(std::path::Path::new(&path).join("Cargo.toml").is_file());
/// ```
pub fn crate_path(name: &str) -> String {
    workspace().join("crates").join(name).display().to_string()
}

/// A project in a temporary folder outside the workspace, with a copy of the workspace's
/// `Cargo.lock` so it builds offline with the same versions. Projects given the same target
/// folder share compiled dependencies.
///
/// ```no_run
/// use bindery_test_support::{Project, crate_path};
///
/// let project = Project::new("/tmp/shared-target");
/// project.write(
///     "Cargo.toml",
///     format!("[package]\nname = \"user\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n[workspace]\n\n\
///              [dependencies]\nbindery = {{ path = {:?} }}\n", crate_path("bindery")),
/// );
/// project.write("src/main.rs", "fn main() {}");
/// assert!(project.cargo(&["build"]).status().unwrap().success());
/// ```
pub struct Project {
    dir: tempfile::TempDir,
    target: PathBuf,
}

impl Project {
    /// An empty project (just the lock file) whose builds go to `target`.
    pub fn new(target: impl Into<PathBuf>) -> Project {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::copy(
            workspace().join("Cargo.lock"),
            dir.path().join("Cargo.lock"),
        )
        .expect("copy the lock file");
        Project {
            dir,
            target: target.into(),
        }
    }

    /// The project's folder.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The target folder its builds use.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Writes a file of the project, creating folders.
    pub fn write(&self, path: &str, contents: impl AsRef<[u8]>) {
        let path = self.path().join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, contents).expect("write");
    }

    /// Deletes a file of the project.
    pub fn remove(&self, path: &str) {
        std::fs::remove_file(self.path().join(path)).expect("remove");
    }

    /// `cargo <args>`, offline and without colour, in the project's folder with its target
    /// folder, clear of the outer build's `RUSTFLAGS` and bindery cache setting. Works for
    /// aliases too (`cargo xtask …`).
    ///
    /// Its builds skip the work no test reads (see [`quick_build_profiles`]): the same `cfg` as
    /// a user's build, a fraction of the compile.
    pub fn cargo(&self, args: &[&str]) -> Command {
        let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        command
            .args(args)
            .current_dir(self.path())
            .env("CARGO_NET_OFFLINE", "true")
            .env("CARGO_TERM_COLOR", "never")
            .env("CARGO_TARGET_DIR", &self.target)
            .env_remove("RUSTFLAGS")
            .env_remove("BINDERY_CACHE_DIR");
        quick_build_profiles(&mut command);
        command
    }

    /// A command run in the project's folder (a binary it built or installed).
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        command.current_dir(self.path()).env("CI", "true");
        command
    }
}

/// Sets a cargo command's profiles to build what a test runs and nothing it never reads: dev
/// builds keep line tables only (a panic's backtrace still names file and line) and release
/// builds are not optimized. Neither changes the `cfg` a crate sees (`debug_assertions` stays
/// off in release, on in dev), so a test of what a release build embeds or leaves out holds as
/// it would for the user; what it saves is the debuginfo and LLVM's optimization of every
/// dependency, which are most of a throwaway crate's build (BENCHMARKS.md, "What CI costs").
/// A variable the caller's environment already sets wins.
///
/// ```
/// let mut command = std::process::Command::new("cargo");
/// bindery_test_support::quick_build_profiles(&mut command);
/// let key = "CARGO_PROFILE_RELEASE_OPT_LEVEL";
/// let set_here = command.get_envs().any(|(name, _)| name == key);
/// assert!(set_here || std::env::var_os(key).is_some());
/// ```
pub fn quick_build_profiles(command: &mut Command) {
    for (key, value) in [
        ("CARGO_PROFILE_DEV_DEBUG", "line-tables-only"),
        ("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0"),
    ] {
        if std::env::var_os(key).is_none() {
            command.env(key, value);
        }
    }
}
