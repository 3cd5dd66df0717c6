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

/// A server a test started, listening at `address`: the address it printed on its first line
/// (after a prefix such as `listening on http://`); killed and reaped when dropped, so a failed
/// assertion leaves no process behind.
///
/// ```
/// let mut command = std::process::Command::new("sh");
/// command.args(["-c", "echo listening 127.0.0.1:8080; sleep 30"]);
/// let server = bindery_test_support::Listening::start(&mut command, "listening ");
/// assert_eq!(server.address.port(), 8080);
/// ```
#[derive(Debug)]
pub struct Listening {
    child: Child,
    /// Where it listens.
    pub address: std::net::SocketAddr,
}

impl Listening {
    /// Starts `command` and reads its address from its first line, after `prefix`. Panics,
    /// naming the line, when that is no address.
    pub fn start(command: &mut Command, prefix: &str) -> Listening {
        let (mut child, line) = spawn_with_first_line(command);
        match line.strip_prefix(prefix).and_then(|rest| rest.parse().ok()) {
            Some(address) => Listening { child, address },
            None => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("no address after {prefix:?} in the first line: {line:?}");
            }
        }
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
