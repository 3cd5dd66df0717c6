//! Programs started by tests that say where they listen on their first line of output.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// Starts `command` with its standard output piped and returns the child with the first line
/// it prints, trimmed: the servers the tests start print their address there. Panics, naming
/// the program, when it cannot start or exits before printing a line.
///
/// ```
/// let mut command = std::process::Command::new("echo");
/// command.arg("listening 127.0.0.1:8080");
/// let (mut child, line) = bindery_test_support::spawn_with_first_line(&mut command);
/// assert_eq!(line, "listening 127.0.0.1:8080");
/// child.wait().unwrap();
/// ```
pub fn spawn_with_first_line(command: &mut Command) -> (Child, String) {
    let program = command.get_program().to_string_lossy().into_owned();
    let mut child = command
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("{program} starts: {error}"));
    let mut line = String::new();
    let read = BufReader::new(child.stdout.take().expect("a piped stdout"))
        .read_line(&mut line)
        .unwrap_or_else(|error| panic!("{program}'s first line: {error}"));
    if read == 0 {
        let _ = child.kill();
        let status = child.wait();
        panic!("{program} printed nothing before it ended ({status:?})");
    }
    (child, line.trim().to_owned())
}
