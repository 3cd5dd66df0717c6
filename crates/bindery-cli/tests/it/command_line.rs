//! `--version`, help, completions and usage errors of the binary itself.

use crate::support::{bindery, stderr, stdout};

#[test]
fn version_names_the_program_and_its_version() {
    let output = bindery(std::path::Path::new("."), &["--version"]);
    assert!(output.status.success());
    assert_eq!(
        stdout(&output).trim(),
        format!("bindery {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn help_embed_lists_every_flag_and_the_examples() {
    let output = bindery(std::path::Path::new("."), &["help", "embed"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let help = stdout(&output);
    assert!(
        help.contains("Usage: bindery embed [OPTIONS] <DIR>"),
        "{help}"
    );
    for flag in [
        "--mode",
        "--out",
        "--name",
        "--prefix",
        "--include",
        "--exclude",
        "--level",
        "--hidden",
        "--large",
        "--check",
    ] {
        assert!(help.contains(flag), "{flag} missing from:\n{help}");
    }
    assert!(help.contains("Examples:"), "{help}");
}

#[test]
fn completions_are_scripts_that_know_the_subcommands() {
    for (shell, marker) in [
        ("bash", "_bindery()"),
        ("zsh", "#compdef bindery"),
        ("fish", "complete -c bindery"),
    ] {
        let output = bindery(std::path::Path::new("."), &["completions", shell]);
        assert!(output.status.success(), "{shell}: {}", stderr(&output));
        let script = stdout(&output);
        assert!(script.contains(marker), "{shell}:\n{script}");
        assert!(script.contains("embed"), "{shell} completes `embed`");
    }
    let unknown = bindery(std::path::Path::new("."), &["completions", "tcsh"]);
    assert_eq!(unknown.status.code(), Some(2));
}

#[test]
fn no_subcommand_or_an_unknown_one_is_a_usage_error() {
    for args in [&[][..], &["emebd", "assets"][..], &["embed"][..]] {
        let output = bindery(std::path::Path::new("."), args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&output).contains("Usage: bindery"),
            "{args:?}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn the_library_entry_parses_like_the_binary() {
    use std::process::ExitCode;
    assert_eq!(
        bindery_cli::run(["bindery", "--version"]),
        ExitCode::SUCCESS
    );
    assert_eq!(
        bindery_cli::run(["bindery", "--no-such-flag"]),
        ExitCode::from(2)
    );
    assert_eq!(
        bindery_cli::run(["target/debug/xtask", "embed", "/no/such/folder"]),
        ExitCode::from(2)
    );
}
