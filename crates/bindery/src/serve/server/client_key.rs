//! [`ClientKey`]: who a connection is charged to, for the cap's shares and the byte budget's.

use std::net::IpAddr;

/// Who a connection is charged to: an IPv4 address, or the /64 network of an IPv6 one (one
/// subscriber's allocation); IPv4-mapped IPv6 addresses count as IPv4. At the cap, clients are
/// also counted by block (an IPv4 /24; an IPv6 /56 and /48).
///
/// ```
/// use bindery::serve::server::ClientKey;
/// let a = ClientKey::of("2001:db8:1:2::1".parse().unwrap());
/// assert_eq!(a, ClientKey::of("2001:db8:1:2:ffff::9".parse().unwrap()));
/// assert_ne!(a, ClientKey::of("2001:db8:1:3::1".parse().unwrap()));
/// assert_eq!(ClientKey::of("::ffff:10.0.0.1".parse().unwrap()), ClientKey::of("10.0.0.1".parse().unwrap()));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClientKey(pub(super) IpAddr);

impl ClientKey {
    /// The key of a peer address.
    pub fn of(address: IpAddr) -> ClientKey {
        match address.to_canonical() {
            IpAddr::V6(v6) => {
                let network = u128::from(v6) & !((1u128 << 64) - 1);
                ClientKey(IpAddr::V6(network.into()))
            }
            v4 => ClientKey(v4),
        }
    }

    /// The key as one number (IPv4 mapped into `::ffff:0:0/96`), for the byte budget's shares.
    pub(super) fn bits(self) -> u128 {
        match self.0 {
            IpAddr::V4(v4) => u128::from(v4.to_ipv6_mapped()),
            IpAddr::V6(v6) => u128::from(v6),
        }
    }
}
