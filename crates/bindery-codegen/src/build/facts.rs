//! What a build knows of one file's content, for the stages that store it.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::Encoding;

/// One file's content as a build knows it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Facts<'a> {
    pub(crate) hash: &'a str,
    pub(crate) len: u64,
    /// The source's modification time: what blobs made from it take.
    pub(crate) source_time: Option<SystemTime>,
    /// The source file, and its precompressed siblings (`siblings = true`).
    pub(crate) source: &'a Path,
    pub(crate) siblings: &'a [(Encoding, PathBuf)],
}

impl Facts<'_> {
    /// The sibling holding the file in `encoding`, if there is one.
    pub(crate) fn sibling(&self, encoding: Encoding) -> Option<&Path> {
        self.siblings
            .iter()
            .find(|(known, _)| *known == encoding)
            .map(|(_, path)| path.as_path())
    }
}
