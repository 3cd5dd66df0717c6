//! A front end built from `build.rs`: Vite (or any npm script) run into `$OUT_DIR` with a base,
//! npm, pnpm or yarn found by its lock file, cargo told to watch the front end's sources (not
//! `node_modules`, not the output), and a failure that says what to run.
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), bindery_codegen::FrontendError> {
//!     bindery_codegen::Frontend::vite("frontend").base("/").build()?;
//!     Ok(())
//! }
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;

/// A front end to build from a build script: [`vite`](Self::vite) or an npm
/// [`script`](Self::script), then [`build`](Self::build). Vite's build also records, in
/// `.vite/bindery-dev.tsv` of the output, the module scripts each HTML entry of the front end
/// loads and whether its config uses React's plugin: what a debug build served beside Vite's
/// dev server (`VITE_DEV_SERVER`) loads from it instead of the built chunks (feature
/// `frontend`).
#[derive(Debug, Clone)]
pub struct Frontend {
    dir: PathBuf,
    tool: Tool,
    base: String,
    install: bool,
    out: Option<PathBuf>,
}

#[derive(Debug, Clone)]
enum Tool {
    Vite,
    Script(String),
}

/// The package manager a front end's lock file names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackageManager {
    /// `package-lock.json`.
    Npm,
    /// `pnpm-lock.yaml`.
    Pnpm,
    /// `yarn.lock`.
    Yarn,
}

impl PackageManager {
    /// The lock files, in the order they are looked for, with their managers.
    const LOCKS: [(&'static str, PackageManager); 3] = [
        ("package-lock.json", PackageManager::Npm),
        ("pnpm-lock.yaml", PackageManager::Pnpm),
        ("yarn.lock", PackageManager::Yarn),
    ];

    /// The manager whose lock file is in `dir`, if one is.
    ///
    /// ```
    /// use bindery_codegen::PackageManager;
    /// let dir = std::env::temp_dir().join(format!("bindery-doc-pm-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// std::fs::write(dir.join("pnpm-lock.yaml"), "").unwrap();
    /// assert_eq!(PackageManager::in_dir(&dir), Some(PackageManager::Pnpm));
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn in_dir(dir: &Path) -> Option<PackageManager> {
        Self::LOCKS
            .iter()
            .find(|(lock, _)| dir.join(lock).is_file())
            .map(|(_, manager)| *manager)
    }

    /// The program's name (`npm`).
    pub fn program(self) -> &'static str {
        match self {
            PackageManager::Npm => "npm",
            PackageManager::Pnpm => "pnpm",
            PackageManager::Yarn => "yarn",
        }
    }

    /// What installs exactly the locked dependencies (`npm ci`).
    ///
    /// ```
    /// assert_eq!(bindery_codegen::PackageManager::Yarn.install_args(), ["install", "--frozen-lockfile"]);
    /// ```
    pub fn install_args(self) -> &'static [&'static str] {
        match self {
            PackageManager::Npm => &["ci"],
            PackageManager::Pnpm | PackageManager::Yarn => &["install", "--frozen-lockfile"],
        }
    }

    fn lock_file(self) -> &'static str {
        Self::LOCKS
            .iter()
            .find(|(_, manager)| *manager == self)
            .map_or("package-lock.json", |(lock, _)| lock)
    }
}

/// Why a front end did not build, with what to run.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum FrontendError {
    /// The front end's folder is not there.
    #[error("the front end's folder `{}` does not exist", dir.display())]
    NoFolder {
        /// The folder given.
        dir: PathBuf,
    },
    /// No `package.json` in the front end's folder nor in the crate's.
    #[error("no package.json in `{}` nor in the crate's folder", dir.display())]
    NoPackage {
        /// The front end's folder.
        dir: PathBuf,
    },
    /// Node.js did not run.
    #[error(
        "Node.js did not run (`node --version`: {reason}): install Node.js and put `node` on PATH"
    )]
    NoNode {
        /// What running it said.
        reason: String,
    },
    /// The dependencies are not installed.
    #[error("the front end's dependencies are not installed in `{}`: run `{command}` there (or call .install(true))", dir.display())]
    NotInstalled {
        /// The folder holding `package.json`.
        dir: PathBuf,
        /// What installs them (`npm ci`).
        command: String,
    },
    /// The build ran and failed.
    #[error("`{command}` failed ({status}); its output is above")]
    Failed {
        /// The command, as a shell would show it.
        command: String,
        /// How it ended.
        status: std::process::ExitStatus,
    },
    /// The record of what Vite's dev server loads could not be written beside the build.
    #[error("could not write `{}`: {reason}", path.display())]
    Record {
        /// The record's path.
        path: PathBuf,
        /// What writing it said.
        reason: String,
    },
    /// `OUT_DIR` is not set (not run by cargo) and no output folder was given.
    #[error("OUT_DIR is not set: run from a build script, or give .out_dir(…)")]
    NoOutDir,
}

/// A build script that returns this error shows the message, not the variant's fields.
impl std::fmt::Debug for FrontendError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, formatter)
    }
}

impl Frontend {
    /// The Vite project in `dir` (its `index.html`, `src/`, config), built with Vite's
    /// manifest (what `embed!(…, manifest = "vite")` reads) into `$OUT_DIR/dist`.
    pub fn vite(dir: impl Into<PathBuf>) -> Self {
        Frontend::new(dir.into(), Tool::Vite)
    }

    /// The npm script `name` of the front end in `dir` (`npm run build`, or pnpm's or yarn's),
    /// run with `BINDERY_OUT_DIR` (where it must write) and `BINDERY_BASE` in its environment.
    pub fn script(dir: impl Into<PathBuf>, name: &str) -> Self {
        Frontend::new(dir.into(), Tool::Script(name.to_owned()))
    }

    fn new(dir: PathBuf, tool: Tool) -> Self {
        Frontend {
            dir,
            tool,
            base: "/".to_owned(),
            install: false,
            out: None,
        }
    }

    /// The public path the server mounts the front end at (Vite's `base`; `"/"` by default):
    /// the URLs written into the bundles start with it.
    pub fn base(mut self, base: &str) -> Self {
        self.base = base.to_owned();
        self
    }

    /// With `true`, installs the locked dependencies (`npm ci`, …) when `node_modules` is
    /// missing, instead of failing with the command to run.
    pub fn install(mut self, install: bool) -> Self {
        self.install = install;
        self
    }

    /// Where the build writes (default: `$OUT_DIR/dist`).
    pub fn out_dir(mut self, out: impl Into<PathBuf>) -> Self {
        self.out = Some(out.into());
        self
    }

    /// Builds the front end and returns where it wrote; tells cargo to run the build script
    /// again when a source of the front end, its `package.json` or its lock file changes.
    ///
    /// ```
    /// let error = bindery_codegen::Frontend::vite("no/such/frontend").out_dir("dist").build().unwrap_err();
    /// assert_eq!(error.to_string(), "the front end's folder `no/such/frontend` does not exist");
    /// ```
    pub fn build(self) -> Result<PathBuf, FrontendError> {
        if !self.dir.is_dir() {
            return Err(FrontendError::NoFolder { dir: self.dir });
        }
        let out = match &self.out {
            Some(out) => out.clone(),
            None => PathBuf::from(std::env::var_os("OUT_DIR").ok_or(FrontendError::NoOutDir)?)
                .join("dist"),
        };
        // The crate's folder, absolute, so that errors name a folder one can `cd` to.
        let crate_dir = std::env::var_os("CARGO_MANIFEST_DIR")
            .map_or_else(|| PathBuf::from("."), PathBuf::from);
        let package = [crate_dir.join(&self.dir), crate_dir]
            .into_iter()
            .find(|dir| dir.join("package.json").is_file())
            .ok_or_else(|| FrontendError::NoPackage {
                dir: self.dir.clone(),
            })?;
        let manager = PackageManager::in_dir(&package).unwrap_or(PackageManager::Npm);
        for line in watch_lines(&self.dir, &package, manager, &out) {
            println!("{line}");
        }
        check_node()?;
        self.ensure_installed(&package, manager)?;
        let mut command = match &self.tool {
            Tool::Vite => {
                let mut command = Command::new("node");
                command
                    .arg(package.join("node_modules/vite/bin/vite.js"))
                    .arg("build")
                    .arg(&self.dir)
                    .args(["--manifest", "--emptyOutDir", "--logLevel", "warn"])
                    .arg(format!("--base={}", self.base))
                    .arg("--outDir")
                    .arg(&out);
                command
            }
            Tool::Script(name) => {
                let mut command = Command::new(manager.program());
                command.args(["run", name]).current_dir(&package);
                command
            }
        };
        command
            .env("BINDERY_OUT_DIR", &out)
            .env("BINDERY_BASE", &self.base);
        run(&mut command)?;
        if let Tool::Vite = self.tool {
            // For debug builds served beside Vite's dev server: what each HTML entry loads.
            crate::dev_entries::write(&self.dir, &out).map_err(|error| FrontendError::Record {
                path: out.join(bindery_core::dev_record::PATH),
                reason: error.to_string(),
            })?;
        }
        Ok(out)
    }

    /// `node_modules` there, installed now if asked, else the error naming the command.
    fn ensure_installed(
        &self,
        package: &Path,
        manager: PackageManager,
    ) -> Result<(), FrontendError> {
        let needed = match self.tool {
            Tool::Vite => package.join("node_modules/vite/bin/vite.js"),
            Tool::Script(_) => package.join("node_modules"),
        };
        if needed.exists() {
            return Ok(());
        }
        let install = format!("{} {}", manager.program(), manager.install_args().join(" "));
        if !self.install {
            return Err(FrontendError::NotInstalled {
                dir: package.to_path_buf(),
                command: install,
            });
        }
        run(Command::new(manager.program())
            .args(manager.install_args())
            .current_dir(package))
    }
}

/// `cargo::rerun-if-changed` lines: every entry of the front end's folder but `node_modules`,
/// a `dist` of its own and the output, then `package.json` and the lock file where they are.
fn watch_lines(dir: &Path, package: &Path, manager: PackageManager, out: &Path) -> Vec<String> {
    let mut watched: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            !path.ends_with("node_modules") && !path.ends_with("dist") && !out.starts_with(path)
        })
        .collect();
    watched.extend(
        [
            package.join("package.json"),
            package.join(manager.lock_file()),
        ]
        .into_iter()
        .filter(|path| path.is_file()),
    );
    watched.sort();
    watched.dedup();
    watched
        .iter()
        .map(|path| format!("cargo::rerun-if-changed={}", path.display()))
        .collect()
}

/// Whether `node` runs.
fn check_node() -> Result<(), FrontendError> {
    match Command::new("node").arg("--version").output() {
        Ok(output) if output.status.success() => Ok(()),
        Ok(output) => Err(FrontendError::NoNode {
            reason: output.status.to_string(),
        }),
        Err(error) => Err(FrontendError::NoNode {
            reason: error.to_string(),
        }),
    }
}

fn run(command: &mut Command) -> Result<(), FrontendError> {
    let shown = std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(|word| word.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ");
    let status = command.status().map_err(|error| FrontendError::NoNode {
        reason: format!("`{shown}`: {error}"),
    })?;
    if status.success() {
        Ok(())
    } else {
        Err(FrontendError::Failed {
            command: shown,
            status,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{PackageManager, watch_lines};

    #[test]
    fn the_sources_are_watched_and_not_node_modules_or_the_output() -> std::io::Result<()> {
        let root = tempfile::tempdir()?;
        let frontend = root.path().join("frontend");
        for folder in ["src", "public", "node_modules/vite", "dist"] {
            std::fs::create_dir_all(frontend.join(folder))?;
        }
        std::fs::write(frontend.join("index.html"), "")?;
        std::fs::write(root.path().join("package.json"), "{}")?;
        std::fs::write(root.path().join("yarn.lock"), "")?;
        let manager = PackageManager::in_dir(root.path()).unwrap_or(PackageManager::Npm);
        assert_eq!(manager, PackageManager::Yarn);
        let lines = watch_lines(&frontend, root.path(), manager, &frontend.join("build"));
        let watched: Vec<String> = lines
            .iter()
            .map(|line| line.rsplit('/').next().unwrap_or_default().to_owned())
            .collect();
        assert_eq!(
            watched,
            ["index.html", "public", "src", "package.json", "yarn.lock"]
        );
        Ok(())
    }
}
