//! The generator as users run it: the real `bindery` binary on temporary trees, a user's own
//! xtask calling `bindery_cli::run`, and the binary installed with `cargo install`.

mod command_line;
mod deploy;
mod generate;
mod support;
mod user_project;
