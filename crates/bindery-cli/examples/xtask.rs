//! A project's own xtask, go-bindata style: `xtask/src/main.rs` is this one call, and
//! `cargo xtask embed assets/spa --out src/spa.rs` regenerates the committed module.
//! (`[alias] xtask = "run --package xtask --"` in `.cargo/config.toml`.)

fn main() -> std::process::ExitCode {
    bindery_cli::run(std::env::args_os())
}
