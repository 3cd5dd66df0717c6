//! The HTTP rules the stages apply, each with its RFC: ranges, content negotiation, compression
//! dictionaries, request paths, `multipart/byteranges` bodies.

pub(crate) mod dictionary;
pub(crate) mod encoding;
pub(crate) mod multipart;
pub(crate) mod path;
pub(crate) mod range;
