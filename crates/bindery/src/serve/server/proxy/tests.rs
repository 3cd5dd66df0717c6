//! Unit tests of proxy.rs: trusted ranges, forwarding headers, the client they give.

use super::{ForwardingHeader, TrustedProxies};
use http::HeaderMap;
use std::net::IpAddr;

fn client_with(
    trusted: &str,
    header: ForwardingHeader,
    peer: &str,
    headers: &[(&str, &str)],
) -> String {
    let trusted: TrustedProxies = if trusted.is_empty() {
        TrustedProxies::none()
    } else {
        trusted.parse().expect("ranges")
    };
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        map.append(
            http::HeaderName::from_bytes(name.as_bytes()).expect("name"),
            value.parse().expect("value"),
        );
    }
    let peer: IpAddr = peer.parse().expect("peer");
    match trusted.reading(header).client(peer, &map) {
        Ok(address) => address.to_string(),
        Err(_) => "unknown".to_owned(),
    }
}

fn client(trusted: &str, peer: &str, headers: &[(&str, &str)]) -> String {
    client_with(trusted, ForwardingHeader::XForwardedFor, peer, headers)
}

#[test]
fn a_client_entry_never_wins_over_the_proxy_entry() {
    let xff = |value| client("10.0.0.0/8", "10.0.0.2", &[("x-forwarded-for", value)]);
    assert_eq!(xff("8.8.8.8, 203.0.113.7:51234"), "203.0.113.7");
    assert_eq!(xff("8.8.8.8, [2001:db8::1]"), "2001:db8::1");
    assert_eq!(xff("8.8.8.8, [2001:db8::1]:443"), "2001:db8::1");
    assert_eq!(xff("8.8.8.8, 2001:db8::1"), "2001:db8::1");
    // Trusted hops are skipped from the right; the client is the first untrusted.
    assert_eq!(xff("8.8.8.8, 203.0.113.7, 10.9.9.9"), "203.0.113.7");
    // What the client wrote left of its own address is never read, garbage or not.
    assert_eq!(xff("unknown, 203.0.113.7"), "203.0.113.7");
    assert_eq!(xff("8.8.8.8,, 203.0.113.7"), "203.0.113.7");
    assert_eq!(xff("<script>, 010.0.0.1, 203.0.113.7"), "203.0.113.7");
    // Header lines are read in order, as one list.
    assert_eq!(
        client(
            "10.0.0.0/8",
            "10.0.0.2",
            &[
                ("x-forwarded-for", "8.8.8.8"),
                ("x-forwarded-for", "203.0.113.7")
            ]
        ),
        "203.0.113.7"
    );
}

#[test]
fn an_entry_naming_no_address_or_an_all_trusted_chain_leaves_the_client_unknown() {
    let xff = |value| client("10.0.0.0/8", "10.0.0.2", &[("x-forwarded-for", value)]);
    for unreadable in [
        "8.8.8.8, unknown",
        "8.8.8.8, 203.0.113.7:99999999",
        "8.8.8.8, 010.0.0.1",
        "8.8.8.8, [2001:db8::1",
        "8.8.8.8, 1.2.3.4:80:80",
        "8.8.8.8, ",
    ] {
        assert_eq!(xff(unreadable), "unknown", "{unreadable}");
    }
    // Every address a proxy of ours: a client inside a trusted range could have written the
    // left-most one, so none is the client's.
    assert_eq!(xff("10.1.1.1, 10.2.2.2"), "unknown");
    assert_eq!(xff("10.1.1.1"), "unknown");
    // A trusted proxy that forwards nothing is its own client (a health check).
    assert_eq!(client("10.0.0.0/8", "10.0.0.2", &[]), "10.0.0.2");
}

#[test]
fn an_untrusted_peer_is_never_believed() {
    for peer in ["192.0.2.1", "11.0.0.1", "::1", "2001:db8::2"] {
        assert_eq!(
            client("10.0.0.0/8", peer, &[("x-forwarded-for", "8.8.8.8")]),
            peer
        );
        assert_eq!(
            client("10.0.0.0/8", peer, &[("forwarded", "for=8.8.8.8")]),
            peer
        );
    }
    // Nothing trusted: the peer, always.
    assert_eq!(
        client("", "127.0.0.1", &[("x-forwarded-for", "8.8.8.8")]),
        "127.0.0.1"
    );
    // A mapped IPv4 peer is the IPv4 address it maps.
    assert_eq!(
        client(
            "10.0.0.0/8",
            "::ffff:10.0.0.2",
            &[("x-forwarded-for", "8.8.8.8")]
        ),
        "8.8.8.8"
    );
    // And a range written mapped is the IPv4 range it maps, for either spelling of a peer.
    for peer in ["10.1.2.3", "::ffff:10.1.2.3"] {
        assert_eq!(
            client(
                "::ffff:10.0.0.0/104",
                peer,
                &[("x-forwarded-for", "8.8.8.8")]
            ),
            "8.8.8.8",
            "{peer}"
        );
    }
    let mapped: TrustedProxies = "::ffff:192.0.2.1".parse().expect("an address");
    assert!(mapped.trusts("192.0.2.1".parse().expect("address")));
    assert!(!mapped.trusts("192.0.2.2".parse().expect("address")));
}

#[test]
fn forwarded_is_read_as_rfc_7239_writes_it() {
    let fwd = |value| {
        client_with(
            "loopback",
            ForwardingHeader::Forwarded,
            "127.0.0.1",
            &[("forwarded", value)],
        )
    };
    assert_eq!(
        fwd("for=8.8.8.8, for=203.0.113.7;proto=https"),
        "203.0.113.7"
    );
    assert_eq!(
        fwd("for=8.8.8.8, For=\"[2001:db8:cafe::17]:4711\""),
        "2001:db8:cafe::17"
    );
    assert_eq!(
        fwd("for=8.8.8.8, for=\"203.0.113.7:8080\";by=10.0.0.1"),
        "203.0.113.7"
    );
    for unreadable in [
        "for=8.8.8.8, for=unknown",
        "for=8.8.8.8, for=_hidden",
        "for=8.8.8.8, proto=https",
        "for=8.8.8.8, for=\"203.0.113.7",
    ] {
        assert_eq!(fwd(unreadable), "unknown", "{unreadable}");
    }
}

#[test]
fn only_the_header_the_proxy_writes_is_read() {
    let both = [
        ("forwarded", "for=8.8.8.8"),
        ("x-forwarded-for", "203.0.113.7"),
    ];
    // The client sent `Forwarded`; nginx appended to `X-Forwarded-For`.
    assert_eq!(client("loopback", "127.0.0.1", &both), "203.0.113.7");
    assert_eq!(
        client_with("loopback", ForwardingHeader::Forwarded, "127.0.0.1", &both),
        "8.8.8.8"
    );
    // The client's own `Forwarded`, with nothing from the proxy: the proxy forwarded none.
    assert_eq!(
        client("loopback", "127.0.0.1", &[("forwarded", "for=8.8.8.8")]),
        "127.0.0.1"
    );
}

#[test]
fn ranges_parse_strictly() {
    let trusted: TrustedProxies = "loopback".parse().expect("keyword");
    assert!(trusted.trusts("127.9.9.9".parse().expect("v4")));
    assert!(trusted.trusts("::1".parse().expect("v6")));
    assert!(!trusted.trusts("10.0.0.1".parse().expect("v4")));
    let single: TrustedProxies = "192.0.2.7".parse().expect("address");
    assert!(single.trusts("192.0.2.7".parse().expect("v4")));
    assert!(!single.trusts("192.0.2.8".parse().expect("v4")));
    for bad in [
        "10.1.2.3/8",
        "10.0.0.0/33",
        "proxy.internal",
        "",
        "10.0.0.0/8,",
    ] {
        assert!(bad.parse::<TrustedProxies>().is_err(), "{bad:?}");
    }
}
