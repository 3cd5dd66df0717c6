//! Turning a caller's path into a catalog key, or refusing it: the rule every build shares
//! (`facts::key`, a copy of `bindery_core::key`'s); and keys compared as the catalog sorts
//! them, in `const` (checked references, generated tables, the bundle's chunks).

use std::cmp::Ordering;

pub(crate) use crate::facts::key::normalise;

/// The byte order of two keys, as the catalog sorts its paths, in `const`.
pub(crate) const fn compare_bytes(left: &[u8], right: &[u8]) -> Ordering {
    let mut index = 0;
    while index < left.len() && index < right.len() {
        if left[index] != right[index] {
            return if left[index] < right[index] {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        }
        index += 1;
    }
    if left.len() < right.len() {
        Ordering::Less
    } else if left.len() > right.len() {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

/// Whether two byte strings are equal, in `const`.
pub(crate) const fn same_bytes(left: &[u8], right: &[u8]) -> bool {
    matches!(compare_bytes(left, right), Ordering::Equal)
}
