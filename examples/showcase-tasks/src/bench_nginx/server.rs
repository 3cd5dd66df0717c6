//! A persistent server under test: started once, pinned to core 0, measured many times, stopped
//! when dropped. CPU time and context switches are read for the whole process tree (nginx's
//! master and worker; every thread of a bindery server).

use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};

use anyhow::Context;

use crate::process::{cpu_ticks, spawn_server, wait_until_listening};

/// A running server and where it listens.
pub struct Server {
    pub label: String,
    pub address: String,
    child: Child,
}

impl Server {
    /// Starts a server that says `addr=<address>` on stdout when it listens (bench binaries).
    pub fn start(label: String, command: &mut Command) -> anyhow::Result<Server> {
        let (child, address) = spawn_server(command)?;
        Ok(Server {
            label,
            address,
            child,
        })
    }

    /// Starts a server that listens on `address` once it is up (nginx), and waits for it.
    pub fn start_listening(
        label: String,
        command: &mut Command,
        address: SocketAddr,
    ) -> anyhow::Result<Server> {
        let child = command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("cannot start {label}"))?;
        let server = Server {
            label,
            address: address.to_string(),
            child,
        };
        wait_until_listening(address).with_context(|| server.label.clone())?;
        Ok(server)
    }

    /// The process and its children (nginx's worker), as `/proc` lists them.
    fn pids(&self) -> Vec<u32> {
        let pid = self.child.id();
        let children =
            std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
        std::iter::once(pid)
            .chain(children.split_whitespace().filter_map(|c| c.parse().ok()))
            .collect()
    }

    /// User plus system CPU time of every process of the server, in clock ticks (1/100 s).
    pub fn cpu_ticks(&self) -> anyhow::Result<u64> {
        self.pids().into_iter().map(cpu_ticks).sum()
    }

    /// Voluntary and involuntary context switches of every thread of the server so far.
    pub fn context_switches(&self) -> u64 {
        let mut total = 0;
        for pid in self.pids() {
            let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
                continue;
            };
            for task in tasks.flatten() {
                let status =
                    std::fs::read_to_string(task.path().join("status")).unwrap_or_default();
                total += status
                    .lines()
                    .filter(|line| line.contains("ctxt_switches:"))
                    .filter_map(|line| line.split_whitespace().last()?.parse::<u64>().ok())
                    .sum::<u64>();
            }
        }
        total
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // TERM, not KILL: nginx's master then stops its worker too.
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}
