//! Turning a caller's path into a catalog key, or refusing it: the rule every build shares
//! (`facts::key`, a copy of `bindery_core::key`'s).

pub(crate) use crate::facts::key::normalise;
