//! Which address a request came from when proxies you run stand in front: `X-Forwarded-For` and
//! `Forwarded` (RFC 7239) are believed only from a peer in a trusted range, read right to left,
//! and an entry that does not name an address makes the header ignored rather than skipped.
//!
//! Skipping was the hole: with the proxy writing its own entry as `203.0.113.7:51234`,
//! `[2001:db8::1]` or `unknown`, the client's entry to its left was taken.

use std::net::IpAddr;
use std::str::FromStr;

use http::HeaderMap;
use ipnet::IpNet;

/// The proxies whose forwarding headers are believed: a list of address ranges.
///
/// ```
/// use geo_server::proxy::TrustedProxies;
/// let trusted: TrustedProxies = "10.0.0.0/8,::1".parse().unwrap();
/// let mut headers = http::HeaderMap::new();
/// headers.insert("x-forwarded-for", "8.8.8.8, 203.0.113.7".parse().unwrap());
/// // From the proxy: the right-most address that is not a trusted proxy.
/// assert_eq!(trusted.client("10.1.2.3".parse().unwrap(), &headers).to_string(), "203.0.113.7");
/// // From anyone else: the peer itself, whatever the headers say.
/// assert_eq!(trusted.client("192.0.2.1".parse().unwrap(), &headers).to_string(), "192.0.2.1");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies {
    ranges: Vec<IpNet>,
}

/// Why a `--trust-proxy` list was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{entry:?} is not an address range: give CIDRs such as 10.0.0.0/8 or 2001:db8::/32, single \
     addresses, or `loopback`"
)]
pub struct BadRange {
    /// The entry as given.
    pub entry: String,
}

impl FromStr for TrustedProxies {
    type Err = BadRange;

    /// Comma-separated CIDRs or single addresses; `loopback` stands for `127.0.0.0/8,::1/128`.
    fn from_str(text: &str) -> Result<Self, BadRange> {
        let mut ranges = Vec::new();
        for entry in text.split(',').map(str::trim) {
            let bad = || BadRange {
                entry: entry.to_owned(),
            };
            if entry == "loopback" {
                ranges.extend(
                    LOOPBACK
                        .iter()
                        .map(|range| range.parse::<IpNet>().expect("valid")),
                );
            } else if let Ok(range) = entry.parse::<IpNet>() {
                // `10.1.2.3/8` is a typo or a misunderstanding; ranges start at their network.
                if range.trunc() != range {
                    return Err(bad());
                }
                ranges.push(range);
            } else {
                let address = entry.parse::<IpAddr>().map_err(|_| bad())?;
                ranges.push(IpNet::from(address.to_canonical()));
            }
        }
        Ok(TrustedProxies { ranges })
    }
}

/// What `loopback` (and the bare `--trust-proxy`) stands for.
const LOOPBACK: [&str; 2] = ["127.0.0.0/8", "::1/128"];

impl TrustedProxies {
    /// Trust nobody: the peer is always the client.
    pub fn none() -> Self {
        TrustedProxies::default()
    }

    /// Whether any range is trusted.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The trusted ranges.
    pub fn ranges(&self) -> &[IpNet] {
        &self.ranges
    }

    /// Whether `address` lies in a trusted range.
    pub fn trusts(&self, address: IpAddr) -> bool {
        let address = address.to_canonical();
        self.ranges.iter().any(|range| range.contains(&address))
    }

    /// The client's address for a request from `peer` with `headers`: `peer` unless it is a
    /// trusted proxy; then the right-most address of the forwarding header that is not itself
    /// a trusted proxy (the left-most when all are). `peer` again when the header is missing,
    /// when an entry does not name an address (`unknown`, an obfuscated name, garbage), or when
    /// both `Forwarded` and `X-Forwarded-For` are sent: which of the two the proxy wrote is not
    /// known here, and the client may have written the other.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let peer = peer.to_canonical();
        if !self.trusts(peer) {
            return peer;
        }
        let chain = match (
            headers.contains_key(http::header::FORWARDED),
            headers.contains_key("x-forwarded-for"),
        ) {
            (true, false) => chain(headers, http::header::FORWARDED.as_str(), forwarded_node),
            (false, true) => chain(headers, "x-forwarded-for", x_forwarded_for_entry),
            _ => None,
        };
        let Some(chain) = chain else {
            return peer;
        };
        chain
            .iter()
            .rev()
            .find(|address| !self.trusts(**address))
            .or(chain.first())
            .copied()
            .unwrap_or(peer)
    }
}

/// Every address of every `name` header line, in order, or `None` if any entry is not one.
fn chain(
    headers: &HeaderMap,
    name: &str,
    entry: fn(&str) -> Option<IpAddr>,
) -> Option<Vec<IpAddr>> {
    let mut addresses = Vec::new();
    for line in headers.get_all(name) {
        for item in line.to_str().ok()?.split(',') {
            addresses.push(entry(item.trim())?);
        }
    }
    Some(addresses)
}

/// An `X-Forwarded-For` entry: an address, with a port (`203.0.113.7:51234`,
/// `[2001:db8::1]:443`) or in brackets (`[2001:db8::1]`), as proxies write them.
fn x_forwarded_for_entry(entry: &str) -> Option<IpAddr> {
    node_address(entry)
}

/// The `for=` address of one `Forwarded` element (`for=192.0.2.60;proto=http;by=203.0.113.43`,
/// `for="[2001:db8:cafe::17]:4711"`); an element without `for=`, or whose `for` is `unknown`
/// or an obfuscated name, names no address.
fn forwarded_node(element: &str) -> Option<IpAddr> {
    let value = element.split(';').find_map(|pair| {
        let (name, value) = pair.trim().split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("for")
            .then_some(value.trim())
    })?;
    let value = match value.strip_prefix('"') {
        Some(quoted) => quoted.strip_suffix('"')?,
        None => value,
    };
    node_address(value)
}

/// An address with an optional port: `a.b.c.d`, `a.b.c.d:port`, `[v6]`, `[v6]:port`, or a bare
/// IPv6 address. Strict: what [`address::parse`](crate::address::parse) accepts, nothing more.
fn node_address(node: &str) -> Option<IpAddr> {
    if let Some(rest) = node.strip_prefix('[') {
        let (inside, after) = rest.split_once(']')?;
        if !(after.is_empty() || is_port(after.strip_prefix(':')?)) {
            return None;
        }
        return match crate::address::parse(inside).ok()? {
            IpAddr::V6(address) => Some(IpAddr::V6(address)),
            // `[::ffff:1.2.3.4]` is canonicalised to IPv4 by the parser; that is still one address.
            v4 => Some(v4),
        };
    }
    if let Ok(address) = crate::address::parse(node) {
        return Some(address);
    }
    // `a.b.c.d:port`: exactly one colon, so never a bare IPv6 address.
    let (host, port) = node.split_once(':')?;
    if port.contains(':') || !is_port(port) {
        return None;
    }
    match crate::address::parse(host).ok()? {
        IpAddr::V4(address) => Some(IpAddr::V4(address)),
        IpAddr::V6(_) => None,
    }
}

fn is_port(text: &str) -> bool {
    !text.is_empty() && text.len() <= 5 && text.bytes().all(|byte| byte.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::TrustedProxies;
    use http::HeaderMap;
    use std::net::IpAddr;

    fn client(trusted: &str, peer: &str, headers: &[(&str, &str)]) -> String {
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
        trusted.client(peer, &map).to_string()
    }

    #[test]
    fn a_client_entry_never_wins_over_the_proxy_entry() {
        let xff = |value| client("10.0.0.0/8", "10.0.0.2", &[("x-forwarded-for", value)]);
        assert_eq!(xff("8.8.8.8, 203.0.113.7:51234"), "203.0.113.7");
        assert_eq!(xff("8.8.8.8, [2001:db8::1]"), "2001:db8::1");
        assert_eq!(xff("8.8.8.8, [2001:db8::1]:443"), "2001:db8::1");
        assert_eq!(xff("8.8.8.8, 2001:db8::1"), "2001:db8::1");
        // An entry naming no address: the header is ignored, the peer used.
        assert_eq!(xff("8.8.8.8, unknown"), "10.0.0.2");
        assert_eq!(xff("8.8.8.8, 203.0.113.7:99999999"), "10.0.0.2");
        assert_eq!(xff("8.8.8.8,, 203.0.113.7"), "10.0.0.2");
        assert_eq!(xff("8.8.8.8, 010.0.0.1"), "10.0.0.2");
        assert_eq!(xff("8.8.8.8, [2001:db8::1"), "10.0.0.2");
        assert_eq!(xff("8.8.8.8, 1.2.3.4:80:80"), "10.0.0.2");
        // Trusted hops are skipped from the right; the client is the first untrusted.
        assert_eq!(xff("8.8.8.8, 203.0.113.7, 10.9.9.9"), "203.0.113.7");
        // All trusted: the left-most.
        assert_eq!(xff("10.1.1.1, 10.2.2.2"), "10.1.1.1");
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
    }

    #[test]
    fn forwarded_is_read_as_rfc_7239_writes_it() {
        let fwd = |value| client("loopback", "127.0.0.1", &[("forwarded", value)]);
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
        assert_eq!(fwd("for=8.8.8.8, for=unknown"), "127.0.0.1");
        assert_eq!(fwd("for=8.8.8.8, for=_hidden"), "127.0.0.1");
        assert_eq!(fwd("for=8.8.8.8, proto=https"), "127.0.0.1");
        assert_eq!(fwd("for=8.8.8.8, for=\"203.0.113.7"), "127.0.0.1");
        // Both headers: which one the proxy wrote is unknown; the peer.
        assert_eq!(
            client(
                "loopback",
                "127.0.0.1",
                &[
                    ("forwarded", "for=8.8.8.8"),
                    ("x-forwarded-for", "203.0.113.7")
                ]
            ),
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
}
