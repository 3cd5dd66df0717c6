//! The `const` searches behind a checked reference's compile error: the paths nearest a
//! missing one, the rules that choose a folder's files, and the text they are written into
//! (no allocation in a `const`). The builder's and the templates' errors use the first too.

use crate::lookup::same_bytes;
use crate::{Catalog, EmbeddedFile};

/// The paths of `files` closest to `path`, nearest first, at most three: the same file name
/// in another folder, or a few edits away (at most a quarter of its length, and at least 2).
/// `const`, so that a checked reference's compile error can name them; bounded work, so that
/// a catalog of many thousand files still fails quickly (past the bound, same names only).
pub(crate) const fn nearest(files: &[EmbeddedFile], path: &str) -> [Option<usize>; 3] {
    let wanted = trim_slash(path.as_bytes());
    let name = file_name(wanted);
    let limit = if wanted.len() / 4 > 2 {
        wanted.len() / 4
    } else {
        2
    };
    let mut best: [Option<(usize, usize)>; 3] = [None; 3];
    let mut budget = EDIT_BUDGET;
    let mut index = 0;
    while index < files.len() {
        let candidate = files[index].const_path().as_bytes();
        let same_name = !name.is_empty() && same_bytes(file_name(candidate), name);
        let mut score = if same_name { Some(0) } else { None };
        let cells = candidate.len() * wanted.len();
        if score.is_none()
            && candidate.len() <= MAX_COMPARED
            && wanted.len() <= MAX_COMPARED
            && candidate.len().abs_diff(wanted.len()) <= limit
            && cells <= budget
        {
            budget -= cells;
            let distance = edits(wanted, candidate);
            if distance <= limit {
                score = Some(distance);
            }
        }
        if let Some(score) = score {
            best = keep(best, (score, index));
        }
        index += 1;
    }
    [
        only_index(best[0]),
        only_index(best[1]),
        only_index(best[2]),
    ]
}

/// The paths [`nearest`] finds, nearest first.
#[cfg(feature = "serve")]
pub(crate) fn near_paths(
    files: &'static [EmbeddedFile],
    path: &str,
) -> impl Iterator<Item = &'static str> {
    nearest(files, path)
        .into_iter()
        .flatten()
        .map(|index| files[index].path())
}

/// The longest paths compared edit by edit.
const MAX_COMPARED: usize = 128;
/// How many edit-distance cells one search may fill, all candidates together.
const EDIT_BUDGET: usize = 400_000;

const fn only_index(entry: Option<(usize, usize)>) -> Option<usize> {
    match entry {
        Some((_, index)) => Some(index),
        None => None,
    }
}

/// `best` with `entry` inserted in order of score (then of path, as files are sorted), the
/// worst dropped past three.
const fn keep(
    mut best: [Option<(usize, usize)>; 3],
    entry: (usize, usize),
) -> [Option<(usize, usize)>; 3] {
    let mut carried = Some(entry);
    let mut slot = 0;
    while slot < best.len() {
        if let Some(current) = carried {
            let goes_here = match best[slot] {
                None => true,
                Some(held) => current.0 < held.0,
            };
            if goes_here {
                carried = best[slot];
                best[slot] = Some(current);
            }
        }
        slot += 1;
    }
    best
}

/// Levenshtein's distance between two byte strings of at most [`MAX_COMPARED`] bytes.
const fn edits(left: &[u8], right: &[u8]) -> usize {
    let mut previous = [0usize; MAX_COMPARED + 1];
    let mut current = [0usize; MAX_COMPARED + 1];
    let mut column = 0;
    while column <= right.len() {
        previous[column] = column;
        column += 1;
    }
    let mut row = 1;
    while row <= left.len() {
        current[0] = row;
        let mut column = 1;
        while column <= right.len() {
            let substitution = previous[column - 1] + (left[row - 1] != right[column - 1]) as usize;
            let deletion = previous[column] + 1;
            let insertion = current[column - 1] + 1;
            let mut least = substitution;
            if deletion < least {
                least = deletion;
            }
            if insertion < least {
                least = insertion;
            }
            current[column] = least;
            column += 1;
        }
        let swapped = previous;
        previous = current;
        current = swapped;
        row += 1;
    }
    previous[right.len()]
}

/// The last segment of a path.
const fn file_name(path: &[u8]) -> &[u8] {
    let mut start = path.len();
    while start > 0 && path[start - 1] != b'/' {
        start -= 1;
    }
    path.split_at(start).1
}

/// `path` without one leading `/`.
pub(crate) const fn trim_slash(path: &[u8]) -> &[u8] {
    match path {
        [b'/', rest @ ..] => rest,
        _ => path,
    }
}

/// Adds to `message` the rules that choose the files of the folder `wanted` would come from
/// (its prefix matches), for a file they leave out is not in the catalog: `exclude = "**/*.map"`,
/// `include = "…"`, and `hidden = false` for a name starting with `.`.
pub(crate) const fn name_rules(message: &mut Message, catalog: &Catalog, wanted: &[u8]) {
    let mut said = false;
    let mut source = 0;
    while source < catalog.dev.len() {
        let folder = &catalog.dev[source];
        source += 1;
        if !starts_with(wanted, folder.prefix.as_bytes()) {
            continue;
        }
        let rules = folder.rules.as_bytes();
        let mut start = 0;
        while start < rules.len() {
            let mut end = start;
            while end < rules.len() && rules[end] != b'\n' {
                end += 1;
            }
            let (line, _) = rules.split_at(end);
            let (_, line) = line.split_at(start);
            let hidden_name = is_hidden(wanted) && same_bytes(line, b"hidden=false");
            if starts_with(line, b"include=") || starts_with(line, b"exclude=") || hidden_name {
                message.push(if said {
                    b", "
                } else {
                    b"; the rules that choose its files: "
                });
                message.push(b"`");
                message.push(line);
                message.push(b"`");
                said = true;
            }
            start = end + 1;
        }
    }
}

/// Whether a segment of `path` starts with `.`.
const fn is_hidden(path: &[u8]) -> bool {
    let mut index = 0;
    while index < path.len() {
        if path[index] == b'.' && (index == 0 || path[index - 1] == b'/') {
            return true;
        }
        index += 1;
    }
    false
}

const fn starts_with(text: &[u8], start: &[u8]) -> bool {
    text.len() >= start.len() && same_bytes(text.split_at(start.len()).0, start)
}

/// A compile error's text, written in a `const` (no allocation there): cut at its capacity.
pub(crate) struct Message {
    bytes: [u8; 1024],
    len: usize,
}

impl Message {
    pub(crate) const fn new() -> Self {
        Message {
            bytes: [0; 1024],
            len: 0,
        }
    }

    pub(crate) const fn push(&mut self, text: &[u8]) {
        let mut index = 0;
        while index < text.len() && self.len < self.bytes.len() {
            self.bytes[self.len] = text[index];
            self.len += 1;
            index += 1;
        }
    }

    /// The text, cut back to whole characters if the capacity split one.
    pub(crate) const fn text(&self) -> &str {
        let mut len = self.len;
        loop {
            match core::str::from_utf8(self.bytes.split_at(len).0) {
                Ok(text) => return text,
                Err(_) if len > 0 => len -= 1,
                Err(_) => return "",
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{edits, keep};

    #[test]
    fn edit_distance_counts_insertions_deletions_and_substitutions() {
        assert_eq!(edits(b"style.css", b"style.css"), 0);
        assert_eq!(edits(b"styles.css", b"style.css"), 1);
        assert_eq!(edits(b"stlye.css", b"style.css"), 2);
        assert_eq!(edits(b"", b"abc"), 3);
        assert_eq!(edits(b"kitten", b"sitting"), 3);
    }

    #[test]
    fn the_three_lowest_scores_are_kept_in_order() {
        let mut best = [None; 3];
        for entry in [(3, 0), (1, 1), (2, 2), (0, 3), (5, 4)] {
            best = keep(best, entry);
        }
        assert_eq!(best, [Some((0, 3)), Some((1, 1)), Some((2, 2))]);
    }
}
