//! Throwaway crates outside the workspace, built and run with the real cargo.
//!
//! They share one target folder under cargo's test tmp dir, so bindery and its dependencies are
//! compiled once for all of them, and use a copy of the workspace lock file so they build offline
//! with the same versions.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A crate in a temporary folder that depends on bindery by path.
pub struct Project {
    dir: tempfile::TempDir,
    name: String,
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The absolute path of a workspace crate, for `path = ...` dependencies.
pub fn crate_path(name: &str) -> String {
    let path = std::fs::canonicalize(workspace().join("crates").join(name)).expect("crate exists");
    path.display().to_string()
}

fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("projects")
}

impl Project {
    /// Creates the crate `name` with `extra_manifest` appended to its Cargo.toml (features,
    /// build-dependencies, profiles).
    pub fn new(name: &str, extra_manifest: &str) -> Project {
        let dir = tempfile::tempdir().expect("tempdir");
        let workspace = std::fs::canonicalize(workspace()).expect("workspace");
        let manifest = format!(
            "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [workspace]\n\n[dependencies]\nbindery = {{ path = \"{}\" }}\n\n{extra_manifest}\n",
            workspace.join("crates/bindery").display()
        );
        std::fs::write(dir.path().join("Cargo.toml"), manifest).expect("manifest");
        std::fs::copy(workspace.join("Cargo.lock"), dir.path().join("Cargo.lock")).expect("lock");
        Project {
            dir,
            name: name.to_owned(),
        }
    }

    /// The crate's folder.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes a file of the crate, creating folders.
    pub fn write(&self, path: &str, contents: impl AsRef<[u8]>) {
        let path = self.path().join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, contents).expect("write");
    }

    /// Deletes a file of the crate.
    pub fn remove(&self, path: &str) {
        std::fs::remove_file(self.path().join(path)).expect("remove");
    }

    fn cargo(&self, subcommand: &str, envs: &[(&str, &Path)]) -> Output {
        let mut command = Command::new(env!("CARGO"));
        command
            .arg(subcommand)
            .args(["--offline", "--color", "never"])
            .current_dir(self.path())
            .env("CARGO_TARGET_DIR", target_dir())
            .env_remove("RUSTFLAGS")
            .env_remove("BINDERY_CACHE_DIR");
        for (key, value) in envs {
            command.env(key, value);
        }
        command.output().expect("cargo runs")
    }

    /// Builds the crate and returns cargo's stderr; fails the test on a build error.
    pub fn build(&self, envs: &[(&str, &Path)]) -> String {
        let output = self.cargo("build", envs);
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(
            output.status.success(),
            "build of {} failed:\n{stderr}",
            self.name
        );
        stderr
    }

    /// Builds the crate expecting a compile error; returns cargo's stderr.
    pub fn build_error(&self) -> String {
        let output = self.cargo("build", &[]);
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(
            !output.status.success(),
            "{} built, but should not have",
            self.name
        );
        stderr
    }

    /// The built binary.
    pub fn binary(&self) -> PathBuf {
        target_dir().join("debug").join(&self.name)
    }

    /// Runs the built binary (no rebuild) and returns its stdout; fails the test if it fails.
    pub fn run(&self) -> String {
        let binary = self.binary();
        let output = Command::new(&binary)
            .current_dir(self.path())
            .output()
            .expect("binary runs");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            output.status.success(),
            "{} failed:\n{stdout}\n{}",
            self.name,
            String::from_utf8_lossy(&output.stderr)
        );
        stdout
    }

    /// Whether this build compiled the crate itself.
    pub fn compiled_itself(&self, stderr: &str) -> bool {
        stderr.contains(&format!("Compiling {} ", self.name))
    }
}
