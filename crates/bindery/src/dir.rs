//! Listing the direct entries of a folder inside a catalog.

use crate::EmbeddedFile;

/// One entry of a [`Dir`] listing: a file, or a sub-folder given by its path.
///
/// ```
/// use bindery::DirEntry;
/// static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures");
///
/// let top: Vec<DirEntry> = ASSETS.dir("").collect();
/// assert!(top.iter().any(|entry| matches!(entry, DirEntry::Dir("images"))));
/// assert!(top.iter().any(|entry| matches!(entry, DirEntry::File(file) if file.path() == "hello.txt")));
/// ```
#[derive(Debug, Clone, Copy)]
pub enum DirEntry {
    /// A file directly in the folder.
    File(&'static EmbeddedFile),
    /// A sub-folder, by its full path in the catalog (no trailing `/`).
    Dir(&'static str),
}

/// The direct entries of one folder, from [`Catalog::dir`](crate::Catalog::dir), in path order.
///
/// It walks the slice of the sorted table that shares the folder's prefix, so listing allocates
/// nothing.
///
/// ```
/// # static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures");
/// assert_eq!(ASSETS.dir("images").count(), 2);
/// assert_eq!(ASSETS.dir("no-such-folder").count(), 0);
/// ```
#[derive(Debug, Clone)]
pub struct Dir {
    files: &'static [EmbeddedFile],
    /// Length of the folder prefix, `/` included (0 for the top).
    prefix_len: usize,
    last_dir: Option<&'static str>,
}

impl Dir {
    pub(crate) fn new(files: &'static [EmbeddedFile], path: &str) -> Dir {
        let folder = path.trim_matches('/');
        let empty = Dir {
            files: &[],
            prefix_len: 0,
            last_dir: None,
        };
        if folder.is_empty() {
            return Dir { files, ..empty };
        }
        if crate::lookup::normalise(folder).is_none() {
            return empty;
        }
        // Every key starting with "folder/" sits in one contiguous run of the sorted table; find
        // its start by comparing against "folder/" byte by byte, without building that string.
        let with_slash = || folder.bytes().chain(std::iter::once(b'/'));
        let start = files.partition_point(|file| file.path().bytes().lt(with_slash()));
        let inside_len = files[start..]
            .iter()
            .take_while(|file| {
                file.path().as_bytes().starts_with(folder.as_bytes())
                    && file.path().as_bytes().get(folder.len()) == Some(&b'/')
            })
            .count();
        Dir {
            files: &files[start..start + inside_len],
            prefix_len: folder.len() + 1,
            last_dir: None,
        }
    }
}

impl Iterator for Dir {
    type Item = DirEntry;

    fn next(&mut self) -> Option<DirEntry> {
        while let Some((file, rest)) = self.files.split_first() {
            self.files = rest;
            let relative = &file.path()[self.prefix_len..];
            match relative.find('/') {
                None => return Some(DirEntry::File(file)),
                Some(slash) => {
                    let dir = &file.path()[..self.prefix_len + slash];
                    if self.last_dir != Some(dir) {
                        self.last_dir = Some(dir);
                        return Some(DirEntry::Dir(dir));
                    }
                }
            }
        }
        None
    }
}
