//! What a request gets, as plain data: the decision stage ([`decide`](super::decide)) makes an
//! [`Outcome`], the response stage ([`response`](super::response)) turns it into a response.

use http::StatusCode;

use crate::serve::http::Refusal;
use crate::serve::http::range::Part;
use crate::serve::setup::prepared::{Prepared, Representation};

/// The outcome of a request.
pub(crate) enum Outcome<'a> {
    /// An error answered with its status and reason alone: 400 for a bad path, 405 for another
    /// method.
    Error(StatusCode, &'static str),
    /// Nothing to serve: 404, with the catalog's 404 page (whole, in the encoding negotiated)
    /// when it has one. `varies` when the answer depended on `Accept` (the SPA fallback was
    /// considered).
    NotFound {
        page: Option<Served<'a>>,
        varies: bool,
    },
    /// A redirect to a local `location`: 307 to a folder's trailing slash, 308 to a clean URL.
    Redirect {
        status: StatusCode,
        location: String,
    },
    /// A file: what of it the request gets.
    File(Served<'a>),
}

/// A file found for a request, with its header values.
pub(crate) struct Target<'a> {
    pub(crate) headers: Headers<'a>,
    /// Its place in the service's table (the decompressed cache's key); `None` in dev mode.
    pub(crate) index: Option<usize>,
    /// Asked for by its fingerprinted name, whose bytes never change: served immutable
    /// whatever the policy says of the plain name.
    pub(crate) by_fingerprint: bool,
}

/// A file's prepared headers: from the service's table, or made for a dev catalog's file as
/// it is on disk now (boxed: dev mode only, and it keeps every outcome small to move).
pub(crate) enum Headers<'a> {
    Table(&'a Prepared),
    Disk(Box<Prepared>),
}

impl std::ops::Deref for Headers<'_> {
    type Target = Prepared;

    fn deref(&self) -> &Prepared {
        match self {
            Headers::Table(prepared) => prepared,
            Headers::Disk(prepared) => prepared,
        }
    }
}

/// A file and what of it a request gets.
pub(crate) struct Served<'a> {
    pub(crate) target: Target<'a>,
    /// The encoded representation chosen, or `None` for identity.
    pub(crate) encoded: Option<&'a Representation>,
    /// What of it the request gets once its preconditions and range are evaluated: these
    /// bytes (the whole representation, or ranges of identity), or no body and why.
    pub(crate) selection: Result<Part, Refusal>,
    /// Whether the answer depended on `Accept` (it is the SPA's page for a navigation).
    pub(crate) varies: bool,
}
