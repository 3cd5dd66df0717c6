//! Which address a request came from when proxies you run stand in front: the forwarding
//! header your proxy writes (`X-Forwarded-For` by default, or `Forwarded`, RFC 7239; never both:
//! a client may send the other) is believed only from a peer in a trusted range, and read from
//! the right: each trusted address vouches for the one to its left, and the first address that
//! is not trusted is the client. What lies further left is the client's own text and never read.
//!
//! When the walk meets an entry that names no address (`unknown`, garbage) or ends with every
//! address trusted, the client's address is not known, and the answer says so
//! ([`Unknown`]): taking the proxy's address instead would answer for the proxy, and taking the
//! left-most trusted entry would let a client inside a trusted range choose its address.
//!
//! The same ranges tell the [`Server`](super::Server)'s connection cap whom not to charge
//! ([`Server::trusted_proxies`](super::Server::trusted_proxies)).

use std::net::IpAddr;
use std::str::FromStr;

use http::HeaderMap;
use ipnet::IpNet;

/// The forwarding header a trusted proxy writes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ForwardingHeader {
    /// `X-Forwarded-For: client, proxy1` (nginx's `$proxy_add_x_forwarded_for`).
    #[default]
    XForwardedFor,
    /// `Forwarded: for=client, for=proxy1` (RFC 7239).
    Forwarded,
}

/// Why a forwarding header's name was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a forwarding header: give `x-forwarded-for` or `forwarded`")]
pub struct BadHeader(pub String);

impl FromStr for ForwardingHeader {
    type Err = BadHeader;

    /// `x-forwarded-for` or `forwarded`, in any case.
    ///
    /// ```
    /// use bindery::serve::server::ForwardingHeader;
    /// assert_eq!("Forwarded".parse(), Ok(ForwardingHeader::Forwarded));
    /// assert!("x-real-ip".parse::<ForwardingHeader>().is_err());
    /// ```
    fn from_str(text: &str) -> Result<Self, BadHeader> {
        match text.to_ascii_lowercase().as_str() {
            "x-forwarded-for" => Ok(ForwardingHeader::XForwardedFor),
            "forwarded" => Ok(ForwardingHeader::Forwarded),
            _ => Err(BadHeader(text.to_owned())),
        }
    }
}

impl ForwardingHeader {
    /// The header's name.
    pub fn name(self) -> &'static str {
        match self {
            ForwardingHeader::XForwardedFor => "x-forwarded-for",
            ForwardingHeader::Forwarded => "forwarded",
        }
    }
}

/// Why the client's address is not known, though the peer is a trusted proxy.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unknown {
    /// An entry the walk reached names no address.
    #[error("the {header} header has an entry that names no address: {entry:?}")]
    Unreadable {
        /// The header read.
        header: &'static str,
        /// The entry, as sent.
        entry: String,
    },
    /// Every address in the header is a trusted proxy: none is the client's.
    #[error("every address in the {header} header is a trusted proxy")]
    AllTrusted {
        /// The header read.
        header: &'static str,
    },
}

/// The proxies whose forwarding header is believed: a list of address ranges, and the header.
///
/// ```
/// use bindery::serve::server::TrustedProxies;
/// let trusted: TrustedProxies = "10.0.0.0/8,::1".parse().unwrap();
/// let mut headers = http::HeaderMap::new();
/// headers.insert("x-forwarded-for", "8.8.8.8, 203.0.113.7".parse().unwrap());
/// // From the proxy: the right-most address that is not a trusted proxy.
/// assert_eq!(trusted.client("10.1.2.3".parse().unwrap(), &headers).unwrap().to_string(), "203.0.113.7");
/// // From anyone else: the peer itself, whatever the headers say.
/// assert_eq!(trusted.client("192.0.2.1".parse().unwrap(), &headers).unwrap().to_string(), "192.0.2.1");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies {
    ranges: Vec<IpNet>,
    header: ForwardingHeader,
}

/// Why a list of trusted ranges was refused.
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
                ranges.push(canonical_range(range));
            } else {
                let address = entry.parse::<IpAddr>().map_err(|_| bad())?;
                ranges.push(IpNet::from(address.to_canonical()));
            }
        }
        Ok(TrustedProxies {
            ranges,
            header: ForwardingHeader::default(),
        })
    }
}

/// A range as peers are compared with it: an IPv4-mapped IPv6 range (`::ffff:10.0.0.0/104`) is
/// the IPv4 range it maps, since peers are compared as IPv4 (`::ffff:10.0.0.2` is 10.0.0.2).
fn canonical_range(range: IpNet) -> IpNet {
    let IpNet::V6(v6) = range else {
        return range;
    };
    match (v6.addr().to_ipv4_mapped(), v6.prefix_len().checked_sub(96)) {
        (Some(v4), Some(prefix)) => ipnet::Ipv4Net::new(v4, prefix).map_or(range, IpNet::V4),
        _ => range,
    }
}

/// What `loopback` (and the bare `--trust-proxy`) stands for.
const LOOPBACK: [&str; 2] = ["127.0.0.0/8", "::1/128"];

impl TrustedProxies {
    /// Trust nobody: the peer is always the client.
    pub fn none() -> Self {
        TrustedProxies::default()
    }

    /// The same ranges, reading `header` (`X-Forwarded-For` unless told).
    pub fn reading(mut self, header: ForwardingHeader) -> Self {
        self.header = header;
        self
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
    /// trusted proxy (or sent no forwarding header); then the right-most address of the header
    /// that is not itself a trusted proxy, or [`Unknown`] when an entry on the way names no
    /// address or every one is trusted. Only [the chosen header](Self::reading) is read.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> Result<IpAddr, Unknown> {
        let peer = peer.to_canonical();
        if !self.trusts(peer) {
            return Ok(peer);
        }
        let header = self.header.name();
        let parse = match self.header {
            ForwardingHeader::XForwardedFor => x_forwarded_for_entry,
            ForwardingHeader::Forwarded => forwarded_node,
        };
        let entries = entries(headers, header);
        if entries.is_empty() {
            return Ok(peer);
        }
        for entry in entries.iter().rev() {
            let Some(address) = parse(entry) else {
                return Err(Unknown::Unreadable {
                    header,
                    entry: (*entry).to_owned(),
                });
            };
            if !self.trusts(address) {
                return Ok(address.to_canonical());
            }
        }
        Err(Unknown::AllTrusted { header })
    }
}

/// Every entry of every `name` header line, in order (a line that is not text is one
/// unreadable entry).
fn entries<'a>(headers: &'a HeaderMap, name: &str) -> Vec<&'a str> {
    headers
        .get_all(name)
        .iter()
        .flat_map(|line| match line.to_str() {
            Ok(text) => text.split(',').map(str::trim).collect::<Vec<_>>(),
            Err(_) => vec!["(not text)"],
        })
        .collect()
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
/// IPv6 address. Strict: what [`parse_address`] accepts, nothing more.
fn node_address(node: &str) -> Option<IpAddr> {
    if let Some(rest) = node.strip_prefix('[') {
        let (inside, after) = rest.split_once(']')?;
        if !(after.is_empty() || is_port(after.strip_prefix(':')?)) {
            return None;
        }
        return match parse_address(inside).ok()? {
            IpAddr::V6(address) => Some(IpAddr::V6(address)),
            // `[::ffff:1.2.3.4]` is canonicalised to IPv4 by the parser; that is still one address.
            v4 => Some(v4),
        };
    }
    if let Ok(address) = parse_address(node) {
        return Some(address);
    }
    // `a.b.c.d:port`: exactly one colon, so never a bare IPv6 address.
    let (host, port) = node.split_once(':')?;
    if port.contains(':') || !is_port(port) {
        return None;
    }
    match parse_address(host).ok()? {
        IpAddr::V4(address) => Some(IpAddr::V4(address)),
        IpAddr::V6(_) => None,
    }
}

/// An IPv4 or IPv6 address, strictly: no zone id, no leading zeros (std's parser refuses them),
/// nothing longer than the longest text form (45 characters); IPv4-mapped IPv6 is IPv4.
fn parse_address(text: &str) -> Result<IpAddr, std::net::AddrParseError> {
    let text = if text.len() > 45 || text.contains('%') {
        ""
    } else {
        text
    };
    text.parse::<IpAddr>().map(|address| address.to_canonical())
}

fn is_port(text: &str) -> bool {
    !text.is_empty() && text.len() <= 5 && text.bytes().all(|byte| byte.is_ascii_digit())
}

#[cfg(test)]
mod tests;
