//! Replacing the live database file every way a deployment does, in turn, while the load runs.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::server::Server;

/// The ways the live file is replaced, in turn.
#[derive(Debug, Clone, Copy)]
pub enum Swap {
    /// `mv next.mmdb live.mmdb`.
    Rename,
    /// `cp other.mmdb live.mmdb`: the same inode, truncated and written.
    CopyInPlace,
    /// `truncate -s0 live.mmdb`, a pause, then the bytes (`curl -o` on a slow link).
    TruncateThenWrite,
    /// `mv a live; kill -HUP; mv b live`: a rename right after a SIGHUP.
    SighupRace,
}

pub const SWAPS: [Swap; 4] = [
    Swap::Rename,
    Swap::CopyInPlace,
    Swap::TruncateThenWrite,
    Swap::SighupRace,
];

/// The file swapped, and how many times each way.
pub struct Swapper<'a> {
    pub dir: &'a Path,
    pub live: PathBuf,
    pub database: &'a [u8],
    turn: usize,
    pub done: [u32; SWAPS.len()],
}

impl<'a> Swapper<'a> {
    pub fn new(dir: &'a Path, database: &'a [u8]) -> anyhow::Result<Swapper<'a>> {
        let live = dir.join("live.mmdb");
        std::fs::write(&live, database)?;
        Ok(Swapper {
            dir,
            live,
            database,
            turn: 0,
            done: [0; SWAPS.len()],
        })
    }

    /// Swaps every 5 s, the ways in turn, until 7 s before `stretch` is over.
    pub fn during(&mut self, stretch: Duration, server: &Server) -> anyhow::Result<()> {
        let started = Instant::now();
        while started.elapsed() + Duration::from_secs(7) < stretch {
            std::thread::sleep(Duration::from_secs(5));
            let way = self.turn % SWAPS.len();
            self.swap(SWAPS[way], server)?;
            self.done[way] += 1;
            self.turn += 1;
        }
        Ok(())
    }

    fn swap(&self, how: Swap, server: &Server) -> anyhow::Result<()> {
        match how {
            Swap::Rename => {
                let next = self.dir.join("next.mmdb");
                std::fs::write(&next, self.database)?;
                std::fs::rename(&next, &self.live)?;
            }
            Swap::CopyInPlace => {
                let other = self.dir.join("other.mmdb");
                std::fs::write(&other, self.database)?;
                std::fs::copy(&other, &self.live)?;
            }
            Swap::TruncateThenWrite => {
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(&self.live)?
                    .set_len(0)?;
                std::thread::sleep(Duration::from_millis(1500));
                std::fs::write(&self.live, self.database)?;
            }
            Swap::SighupRace => {
                let a = self.dir.join("a.mmdb");
                let b = self.dir.join("b.mmdb");
                std::fs::write(&a, self.database)?;
                std::fs::write(&b, self.database)?;
                std::fs::rename(&a, &self.live)?;
                server.reload()?;
                std::thread::sleep(Duration::from_millis(300));
                std::fs::rename(&b, &self.live)?;
            }
        }
        Ok(())
    }
}
