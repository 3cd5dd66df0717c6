//! Throwaway crates outside the workspace, built and run with the real cargo: a thin layer over
//! `bindery_test_support::Project` that names each crate and gives them all one target folder
//! under cargo's test tmp dir, so bindery and its dependencies are compiled once for all of them.

use std::path::{Path, PathBuf};
use std::process::Output;

pub use bindery_test_support::crate_path;

/// What a throwaway crate that serves over axum adds to its manifest: axum with HTTP/1 on tokio.
pub const AXUM_ON_TOKIO: &str = r#"
[dependencies.axum]
version = "0.8"
default-features = false
features = ["http1", "tokio"]

[dependencies.tokio]
version = "1"
features = ["macros", "rt-multi-thread", "net"]
"#;

/// A crate in a temporary folder that depends on bindery by path.
pub struct Project {
    inner: bindery_test_support::Project,
    name: String,
}

fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("projects")
}

impl Project {
    /// Creates the crate `name` with `extra_manifest` appended to its Cargo.toml (features,
    /// build-dependencies, profiles), depending on bindery with its default features.
    pub fn new(name: &str, extra_manifest: &str) -> Project {
        Project::with_features(name, &[], extra_manifest)
    }

    /// [`new`](Self::new), depending on bindery with `features` too.
    pub fn with_features(name: &str, features: &[&str], extra_manifest: &str) -> Project {
        let inner = bindery_test_support::Project::new(target_dir());
        inner.write(
            "Cargo.toml",
            format!(
                "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
                 [workspace]\n\n[dependencies]\nbindery = {{ path = {:?}, features = {features:?} }}\n\n{extra_manifest}\n",
                crate_path("bindery")
            ),
        );
        Project {
            inner,
            name: name.to_owned(),
        }
    }

    /// The crate's folder.
    pub fn path(&self) -> &Path {
        self.inner.path()
    }

    /// Writes a file of the crate, creating folders.
    pub fn write(&self, path: &str, contents: impl AsRef<[u8]>) {
        self.inner.write(path, contents);
    }

    /// Deletes a file of the crate.
    pub fn remove(&self, path: &str) {
        self.inner.remove(path);
    }

    fn cargo(&self, subcommand: &str, envs: &[(&str, &Path)]) -> Output {
        let mut command = self.inner.cargo(&[subcommand]);
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

    /// Builds the crate in release mode; fails the test on a build error.
    pub fn build_release(&self) {
        let output = self
            .inner
            .cargo(&["build", "--release"])
            .output()
            .expect("cargo runs");
        assert!(
            output.status.success(),
            "release build of {} failed:\n{}",
            self.name,
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// The binary of [`build_release`](Self::build_release).
    pub fn release_binary(&self) -> PathBuf {
        target_dir().join("release").join(&self.name)
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

    /// `cargo <args>` in the crate's folder, with the shared target folder, not yet run.
    pub fn cargo_command(&self, args: &[&str]) -> std::process::Command {
        self.inner.cargo(args)
    }

    /// The target folder every project builds into.
    pub fn target(&self) -> PathBuf {
        target_dir()
    }

    /// The built binary.
    pub fn binary(&self) -> PathBuf {
        target_dir().join("debug").join(&self.name)
    }

    /// Runs the built binary (no rebuild) and returns its stdout; fails the test if it fails.
    pub fn run(&self) -> String {
        self.run_with(&[])
    }

    /// [`run`](Self::run) with arguments.
    pub fn run_with(&self, args: &[&str]) -> String {
        let output = self
            .inner
            .command(self.binary())
            .args(args)
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

    /// Runs `node <script> <args>` in the crate's folder (the Chromium scripts) and reads the
    /// JSON it prints; its stderr when it fails.
    pub fn node_json<I, S>(&self, script: &str, args: I) -> Result<serde_json::Value, String>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let output = std::process::Command::new("node")
            .arg(script)
            .args(args)
            .current_dir(self.path())
            .output()
            .expect("node runs");
        if !output.status.success() {
            return Err(String::from_utf8_lossy(&output.stderr).into_owned());
        }
        Ok(serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|error| panic!("{script} prints JSON: {error}")))
    }

    /// Whether this build compiled the crate itself.
    pub fn compiled_itself(&self, stderr: &str) -> bool {
        stderr.contains(&format!("Compiling {} ", self.name))
    }
}
