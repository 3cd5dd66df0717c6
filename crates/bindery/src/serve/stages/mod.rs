//! The stages a request goes through, in order: `decide` (an [`Outcome`](outcome::Outcome) from the
//! site and the request), `response` (status and headers), `bodies` (the body: lent, cached,
//! inflated within the byte `budget`, or copied).

pub(crate) mod bodies;
pub(crate) mod budget;
pub(crate) mod cache;
pub(crate) mod decide;
pub(crate) mod inflate;
pub(crate) mod memory_plan;
pub(crate) mod outcome;
pub(crate) mod response;
