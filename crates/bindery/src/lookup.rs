//! Turning a caller's path into a catalog key, or refusing it: the rule every build shares
//! (`bindery_core::key`).

pub(crate) use bindery_core::key::normalise;
