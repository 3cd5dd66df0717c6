//! geo-server through its router (`oneshot`) and as a real process.

mod api;
mod databases;
mod process;
mod reload;
mod site;
mod support;
