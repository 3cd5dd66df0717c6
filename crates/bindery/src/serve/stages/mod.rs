//! The stages a request goes through, in order, each a verb over one noun:
//!
//! - `decide` makes an [`Outcome`](outcome::Outcome) from the site and the request: an error, a
//!   redirect, a miss, or a file [`Served`](outcome::Served) with what of it the request gets,
//!   `Result<Part, Refusal>` (the HTTP rules in [`http`](crate::serve::http) each answer a
//!   `Part` or a `Refusal`: 304, 412, 416);
//! - `response` builds the status and headers, and names the identity bytes still
//!   [`Pending`](response::Pending), if any;
//! - `bodies` gives the pending bytes (lent, cached, inflated within the byte `budget`, or
//!   copied) and makes the [`Answer`](bodies::Answer): ready, or deferred to the blocking pool.

pub(crate) mod bodies;
pub(crate) mod budget;
pub(crate) mod cache;
pub(crate) mod decide;
pub(crate) mod inflate;
pub(crate) mod memory_plan;
pub(crate) mod outcome;
pub(crate) mod response;
