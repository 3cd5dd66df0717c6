//! The `bindery` binary: a thin layer over [`bindery_cli::run`].

fn main() -> std::process::ExitCode {
    bindery_cli::run(std::env::args_os())
}
