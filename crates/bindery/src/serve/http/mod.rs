//! The HTTP rules the stages apply, each with its RFC: ranges, content negotiation, compression
//! dictionaries, request paths, `multipart/byteranges` bodies, and the [`Refusal`] a rule gives.

pub(crate) mod dictionary;
pub(crate) mod encoding;
pub(crate) mod multipart;
pub(crate) mod path;
pub(crate) mod range;

/// Why a request for a file that exists gets no body: what a precondition (RFC 9110 §13.2.2)
/// or a range (§14.2) refuses. Every rule that can refuse returns `Result<_, Refusal>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// 304: the client's copy is current.
    NotModified,
    /// 412: a precondition (`If-Match`, `If-Unmodified-Since`) failed.
    PreconditionFailed,
    /// 416: no byte of the range exists.
    Unsatisfiable,
}
