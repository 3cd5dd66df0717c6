//! Unit tests of the server module: each default as its setter's docs and SECURITY.md state it.

use super::limits::{
    LISTEN_BACKLOG, MAX_DEFAULT_CONNECTIONS, MEASURED_CONNECTION_BYTES, RESERVED_DESCRIPTORS,
    WORST_CASE_CONNECTION_BYTES,
};
use super::protocol::{
    HTTP1_BUFFER, HTTP2_CONNECTION_WINDOW, HTTP2_MAX_HEADER_LIST, HTTP2_MAX_PENDING_RESETS,
    HTTP2_MAX_STREAMS, HTTP2_SEND_BUFFER, HTTP2_STREAM_WINDOW,
};
use super::{
    DEFAULT_HEADER_READ_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_PER_CLIENT, DEFAULT_SHUTDOWN_GRACE,
    DEFAULT_UPGRADE_IDLE_TIMEOUT,
};

/// Doc comments and Markdown as one line of words: wrapping and comment markers aside.
fn words(text: &str) -> String {
    text.lines()
        .map(|line| {
            let line = line.trim_start();
            line.strip_prefix("//!")
                .or_else(|| line.strip_prefix("///"))
                .unwrap_or(line)
        })
        .collect::<Vec<_>>()
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn kib(bytes: impl Into<u64>) -> u64 {
    bytes.into() / 1024
}

fn thousands(number: u64) -> String {
    let digits = number.to_string();
    let mut out = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// Each default is a constant of this module; the setters' docs state its value, and so
/// does SECURITY.md (below). A constant changed without its statements fails.
#[test]
fn the_setters_state_each_default_as_the_code_has_it() {
    let docs = words(include_str!("mod.rs"));
    let secs = |duration: std::time::Duration| duration.as_secs();
    let stated_in_docs = [
        format!("HTTP/2 streams open at once on one connection. Default {HTTP2_MAX_STREAMS}."),
        format!(
            "header list accepted, decoded. Default {} KiB.",
            kib(HTTP2_MAX_HEADER_LIST)
        ),
        format!(
            "per HTTP/2 stream. Default {} KiB.",
            kib(HTTP2_SEND_BUFFER as u64)
        ),
        format!(
            "write buffer size. Default {} KiB;",
            kib(HTTP1_BUFFER as u64)
        ),
        format!(
            "({} KiB a stream, {} KiB a connection)",
            kib(HTTP2_STREAM_WINDOW),
            kib(HTTP2_CONNECTION_WINDOW)
        ),
        format!("the new one refused. Default {DEFAULT_PER_CLIENT}."),
        format!("listen backlog of {}", thousands(LISTEN_BACKLOG.into())),
        format!("open-file limit less {RESERVED_DESCRIPTORS}"),
        format!("over {} KiB", kib(WORST_CASE_CONNECTION_BYTES)),
        format!("at most {}.", thousands(MAX_DEFAULT_CONNECTIONS)),
        format!("Default {} s.", secs(DEFAULT_IDLE_TIMEOUT)),
        format!("Default {} s;", secs(DEFAULT_UPGRADE_IDLE_TIMEOUT)),
        format!("Default {} s.", secs(DEFAULT_SHUTDOWN_GRACE)),
        format!(
            "([`Server::header_read_timeout`], {} s:",
            secs(DEFAULT_HEADER_READ_TIMEOUT)
        ),
    ];
    for statement in &stated_in_docs {
        assert!(
            docs.contains(statement.as_str()),
            "the docs do not say: {statement}"
        );
    }
}

/// SECURITY.md's table of limits states each default as the code has it.
#[test]
fn security_md_states_each_default_as_the_code_has_it() {
    let security = words(include_str!("../../../../../SECURITY.md"));
    let secs = |duration: std::time::Duration| duration.as_secs();
    let stated_in_security = [
        format!("| HTTP/2 streams per connection | {HTTP2_MAX_STREAMS} |"),
        format!(
            "| HTTP/2 header list (decoded) | {} KiB |",
            kib(HTTP2_MAX_HEADER_LIST)
        ),
        format!(
            "(references, no copies) | {} KiB |",
            kib(HTTP2_SEND_BUFFER as u64)
        ),
        format!("and write buffer | {} KiB |", kib(HTTP1_BUFFER as u64)),
        format!(
            "| {} KiB a stream, {} KiB a connection |",
            kib(HTTP2_STREAM_WINDOW),
            kib(HTTP2_CONNECTION_WINDOW)
        ),
        format!("(rapid reset) | {HTTP2_MAX_PENDING_RESETS} |"),
        format!("trusted proxies excepted) | {DEFAULT_PER_CLIENT} |"),
        format!(
            "| {}, capped by `net.core.somaxconn`",
            thousands(LISTEN_BACKLOG.into())
        ),
        format!("taken as {} KiB", kib(WORST_CASE_CONNECTION_BYTES)),
        format!(
            "{} KiB above plus the {} KiB an HTTP/2 client may push unread",
            kib(MEASURED_CONNECTION_BYTES),
            kib(HTTP2_CONNECTION_WINDOW)
        ),
        format!("at most {} connections", thousands(MAX_DEFAULT_CONNECTIONS)),
        format!("open-file limit less {RESERVED_DESCRIPTORS}"),
        format!(
            "| {} s | `header_read_timeout`",
            secs(DEFAULT_HEADER_READ_TIMEOUT)
        ),
        format!("| {} s | `idle_timeout`", secs(DEFAULT_IDLE_TIMEOUT)),
        format!(
            "| {} s | `upgrade_idle_timeout` |",
            secs(DEFAULT_UPGRADE_IDLE_TIMEOUT)
        ),
        format!("| {} s | `shutdown_grace`", secs(DEFAULT_SHUTDOWN_GRACE)),
    ];
    for statement in &stated_in_security {
        assert!(
            security.contains(statement.as_str()),
            "SECURITY.md does not say: {statement}"
        );
    }
}
