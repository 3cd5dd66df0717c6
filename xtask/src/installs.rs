//! Everything `cargo xtask ci` installs, in one table: what it is, where it comes from and
//! which step needs it. The install step walks [`INSTALLS`] and skips what the machine has, so
//! a fresh machine and a warm one run the same steps; a task run alone (`cargo xtask fuzz`,
//! `cargo xtask lint-http`) installs its own part the same way.

use std::process::Command;

use crate::process::{apt_install, cargo, cargo_command, run_command};

/// Where one thing CI needs comes from.
#[derive(Debug, Clone, Copy)]
pub enum Source {
    /// A Debian package, present when `probe` (a file it installs) exists.
    Debian {
        /// The package's name.
        package: &'static str,
        /// A file it installs.
        probe: &'static str,
    },
    /// A cargo subcommand from crates.io, present when `cargo <subcommand> --version` answers.
    Cargo {
        /// What cargo calls it (`nextest`).
        subcommand: &'static str,
        /// The crate that provides it (`cargo-nextest`).
        krate: &'static str,
    },
    /// The npm packages a folder's `package-lock.json` pins, by `npm ci`.
    Npm {
        /// The folder holding `package.json`.
        folder: &'static str,
    },
    /// What a showcase task installs for itself (its versions are pinned there), run with
    /// `--install-only`.
    Task {
        /// The task (`lint-http`).
        task: &'static str,
    },
}

impl std::fmt::Display for Source {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Debian { package, .. } => write!(formatter, "{package} (Debian)"),
            Source::Cargo { krate, .. } => write!(formatter, "{krate} (crates.io)"),
            Source::Npm { folder } => write!(formatter, "{folder}'s npm packages"),
            Source::Task { task } => write!(formatter, "what `cargo xtask {task}` needs"),
        }
    }
}

/// One row of [`INSTALLS`].
#[derive(Debug, Clone, Copy)]
pub struct Install {
    /// Where it comes from.
    pub source: Source,
    /// The CI step (or tests) that needs it.
    pub needed_by: &'static str,
}

/// Where chromium's binary lands: the browser tests are given it.
pub const CHROMIUM: &str = "/usr/bin/chromium";
/// The geo server's browser test (playwright-core, pinned).
pub const E2E: &str = "examples/geo-server/e2e";
/// The Vite front end bindery's Vite tests build (vite and playwright-core, pinned).
pub const VITE_APP: &str = "examples/vite-app";

const fn debian(package: &'static str, probe: &'static str, needed_by: &'static str) -> Install {
    Install {
        source: Source::Debian { package, probe },
        needed_by,
    }
}

/// Everything CI installs, in the order the install step takes it.
pub const INSTALLS: [Install; 14] = [
    debian("chromium", CHROMIUM, "browser test, Vite tests"),
    debian(
        "fonts-noto-color-emoji",
        "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf",
        "browser test (flags in its screenshots)",
    ),
    debian(
        "brotli",
        "/usr/bin/brotli",
        "tests (variants decoded by the reference tool)",
    ),
    debian(
        "zstd",
        "/usr/bin/zstd",
        "tests (variants and deltas decoded)",
    ),
    debian("nginx", "/usr/sbin/nginx", "tests (caching proxy), scale"),
    debian(
        "h2o",
        "/usr/bin/h2o",
        "tests (bench-nginx's peers' configurations)",
    ),
    debian(
        "caddy",
        "/usr/bin/caddy",
        "tests (bench-nginx's peers' configurations)",
    ),
    debian(
        "python3-maxminddb",
        "/usr/lib/python3/dist-packages/maxminddb/__init__.py",
        "tests (geo answers against libmaxminddb's)",
    ),
    debian("wrk", "/usr/bin/wrk", "scale, soak"),
    Install {
        source: Source::Cargo {
            subcommand: "nextest",
            krate: "cargo-nextest",
        },
        needed_by: "tests",
    },
    Install {
        source: Source::Cargo {
            subcommand: "fuzz",
            krate: "cargo-fuzz",
        },
        needed_by: "fuzz",
    },
    Install {
        source: Source::Npm { folder: E2E },
        needed_by: "browser test",
    },
    Install {
        source: Source::Npm { folder: VITE_APP },
        needed_by: "tests (the Vite app built and loaded)",
    },
    Install {
        source: Source::Task { task: "lint-http" },
        needed_by: "REDbot (PyPI, in a venv under target/)",
    },
];

/// Installs every row of [`INSTALLS`] this machine lacks: Debian's in one `apt-get` run.
pub fn install_all() -> anyhow::Result<()> {
    let debian: Vec<(&str, &str)> = INSTALLS
        .iter()
        .filter_map(|row| match row.source {
            Source::Debian { package, probe } => Some((package, probe)),
            _ => None,
        })
        .collect();
    for row in &INSTALLS {
        eprintln!("xtask: install: {} (for {})", row.source, row.needed_by);
    }
    apt_install(&debian)?;
    for row in &INSTALLS {
        match row.source {
            Source::Debian { .. } => {}
            Source::Cargo { subcommand, krate } => ensure_cargo_tool(subcommand, krate)?,
            Source::Npm { folder } => run_command(Command::new("npm").args([
                "ci",
                "--no-audit",
                "--no-fund",
                "--prefix",
                folder,
            ]))?,
            Source::Task { task } => crate::showcase(&[task.into(), "--install-only".into()])?,
        }
    }
    Ok(())
}

/// Installs the cargo subcommand `subcommand` from the crate `krate` when cargo lacks it.
pub fn ensure_cargo_tool(subcommand: &str, krate: &str) -> anyhow::Result<()> {
    let present = cargo_command()
        .args([subcommand, "--version"])
        .output()
        .is_ok_and(|output| output.status.success());
    if present {
        return Ok(());
    }
    cargo(&["install", krate, "--locked"])
}

#[cfg(test)]
mod tests {
    use super::{INSTALLS, Source};

    /// Every Debian package a task or test installs on its own (`apt_install(&[("wrk", …)])`)
    /// is a row of the table: a fresh CI machine gets it in the install step, not halfway.
    #[test]
    fn every_package_a_task_installs_is_in_the_table() -> anyhow::Result<()> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let packages: Vec<&str> = INSTALLS
            .iter()
            .filter_map(|row| match row.source {
                Source::Debian { package, .. } => Some(package),
                _ => None,
            })
            .collect();
        let mut seen = 0;
        for folder in crate::process::crate_folders(&root)? {
            for file in crate::process::rust_files(&folder)? {
                let text = std::fs::read_to_string(&file)?;
                for call in text.split("apt_install(&[(\"").skip(1) {
                    let package = call.split('"').next().unwrap_or_default();
                    seen += 1;
                    assert!(
                        packages.contains(&package),
                        "{}: installs {package}, which INSTALLS does not list",
                        file.display()
                    );
                }
            }
        }
        assert!(seen >= 2, "the scan found the tasks' own installs ({seen})");
        Ok(())
    }
}
