//! Compile-fail snapshots of the macro.
