//! The programs are in src/bin.
