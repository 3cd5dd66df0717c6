//! Who holds the connections: every open connection counted in each address block its client
//! lies in (an IPv4 address in its /24; an IPv6 /64 in its /56 and its /48), each level kept in
//! order of count, so that the client holding the most (the largest block, then the largest
//! part of it, then the largest client in that) is found in O(log n), and each client's own
//! connections in accept order and by how long they have been idle.
//!
//! A block counts as one client: addresses are cheap (one host holds a whole IPv6 /64, a
//! tunnel broker hands out /48s, 127.0.0.0/8 is sixteen million loopback addresses), blocks
//! less so.

use std::collections::{BTreeSet, HashMap};
use std::net::IpAddr;

/// A network: its address bits (IPv4 mapped into `::ffff:0:0/96`) and prefix length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct Block {
    bits: u128,
    prefix: u8,
}

impl Block {
    fn of(address: u128, prefix: u8) -> Block {
        let mask = if prefix == 0 {
            0
        } else {
            u128::MAX << (128 - u32::from(prefix))
        };
        Block {
            bits: address & mask,
            prefix,
        }
    }
}

/// The blocks a client is counted in, widest first; the last is the client itself (an IPv4
/// address, an IPv6 /64).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Lineage {
    blocks: [Block; 3],
    len: usize,
}

impl Lineage {
    /// The lineage of a client's address (already reduced to its key: IPv4, or an IPv6 /64).
    pub(super) fn of(address: IpAddr) -> Lineage {
        match address.to_canonical() {
            IpAddr::V4(v4) => {
                let bits = u128::from(v4.to_ipv6_mapped());
                let block = Block::of(bits, 96 + 24);
                Lineage {
                    blocks: [block, Block::of(bits, 128), block],
                    len: 2,
                }
            }
            IpAddr::V6(v6) => {
                let bits = u128::from(v6);
                Lineage {
                    blocks: [
                        Block::of(bits, 48),
                        Block::of(bits, 56),
                        Block::of(bits, 64),
                    ],
                    len: 3,
                }
            }
        }
    }

    fn blocks(&self) -> &[Block] {
        &self.blocks[..self.len]
    }

    /// The client itself: the narrowest block.
    pub(super) fn client(&self) -> Block {
        self.blocks[self.len - 1]
    }
}

/// One block's count; for a client, its connections too.
#[derive(Debug, Default)]
struct Holder {
    count: usize,
    /// The blocks (or clients) directly inside it, by count.
    parts: BTreeSet<(usize, Block)>,
    /// A client's connections, by id (accept order).
    connections: BTreeSet<u64>,
    /// A client's idle connections: (idle since, id).
    idle: BTreeSet<(u64, u64)>,
}

/// Every block and client holding a connection.
#[derive(Debug, Default)]
pub(super) struct Holders {
    by_block: HashMap<Block, Holder>,
    /// The widest blocks, by count.
    top: BTreeSet<(usize, Block)>,
    /// The most connections any one client holds (kept for the counters).
    clients: usize,
}

impl Holders {
    /// Counts connection `id` of the client of `lineage`.
    pub(super) fn add(&mut self, lineage: &Lineage, id: u64) {
        self.change(lineage, 1);
        let client = self.by_block.entry(lineage.client()).or_default();
        client.connections.insert(id);
        if client.count == 1 {
            self.clients += 1;
        }
    }

    /// Forgets connection `id` (and its idle mark, `idle`) of the client of `lineage`.
    pub(super) fn remove(&mut self, lineage: &Lineage, id: u64, idle: Option<u64>) {
        if let Some(client) = self.by_block.get_mut(&lineage.client()) {
            client.connections.remove(&id);
            if let Some(since) = idle {
                client.idle.remove(&(since, id));
            }
            if client.count == 1 {
                self.clients -= 1;
            }
        }
        self.change(lineage, -1);
    }

    /// Moves a client's connection between idle (since `now`) and busy (`None`).
    pub(super) fn set_idle(
        &mut self,
        lineage: &Lineage,
        id: u64,
        was: Option<u64>,
        now: Option<u64>,
    ) {
        if let Some(client) = self.by_block.get_mut(&lineage.client()) {
            if let Some(since) = was {
                client.idle.remove(&(since, id));
            }
            if let Some(since) = now {
                client.idle.insert((since, id));
            }
        }
    }

    /// Adds `delta` to the count of every block of `lineage`, keeping each level in order.
    fn change(&mut self, lineage: &Lineage, delta: isize) {
        let blocks = lineage.blocks();
        for (level, block) in blocks.iter().enumerate() {
            let holder = self.by_block.entry(*block).or_default();
            let before = holder.count;
            let after = before.saturating_add_signed(delta);
            holder.count = after;
            let is_gone = after == 0;
            if is_gone {
                self.by_block.remove(block);
            }
            let parts = match level.checked_sub(1) {
                None => &mut self.top,
                Some(parent) => match self.by_block.get_mut(&blocks[parent]) {
                    Some(parent) => &mut parent.parts,
                    None => continue,
                },
            };
            if before > 0 {
                parts.remove(&(before, *block));
            }
            if !is_gone {
                parts.insert((after, *block));
            }
        }
    }

    /// How many connections the client of `lineage` holds.
    pub(super) fn count(&self, lineage: &Lineage) -> usize {
        self.by_block
            .get(&lineage.client())
            .map_or(0, |client| client.count)
    }

    /// The client holding the most, block by block: the widest block with the most
    /// connections, the largest part of it, and so down to a client.
    pub(super) fn largest(&self) -> Option<Block> {
        self.largest_within(self.top.last()?.1)
    }

    /// The client holding the most within `block` (itself, for a client).
    fn largest_within(&self, mut block: Block) -> Option<Block> {
        loop {
            let holder = self.by_block.get(&block)?;
            match holder.parts.last() {
                Some((_, part)) if *part != block => block = *part,
                _ => return Some(block),
            }
        }
    }

    /// The client that gives up a connection for a newcomer of `newcomer`'s lineage (`None`: a
    /// trusted proxy, no client) at a full cap: going down block by block, the first level at
    /// which the block holding the most is not the newcomer's own decides, and that block's
    /// largest client gives way only if the block holds at least two more than the newcomer's
    /// would with this connection; otherwise, or when the newcomer is the largest client, nobody
    /// does. So clients of equal shares do not take slots from each other, however often
    /// they reconnect.
    pub(super) fn victim_for(&self, newcomer: Option<&Lineage>) -> Option<Block> {
        let mut parts = &self.top;
        let mut level = 0;
        loop {
            let &(count, block) = parts.last()?;
            let mine = newcomer.and_then(|lineage| lineage.blocks().get(level).copied());
            if Some(block) == mine {
                // The newcomer's own block holds the most here: decide within it.
                let holder = self.by_block.get(&block)?;
                match holder.parts.last() {
                    Some((_, part)) if *part != block => {
                        parts = &holder.parts;
                        level += 1;
                        continue;
                    }
                    _ => return None,
                }
            }
            let my_count = mine
                .and_then(|mine| self.by_block.get(&mine))
                .map_or(0, |holder| holder.count);
            if count <= my_count + 1 {
                return None;
            }
            return self.largest_within(block);
        }
    }

    /// The connection `client` has held longest.
    pub(super) fn oldest(&self, client: Block) -> Option<u64> {
        self.by_block.get(&client)?.connections.first().copied()
    }

    /// The connection of `client` idle the longest.
    pub(super) fn longest_idle(&self, client: Block) -> Option<u64> {
        self.by_block.get(&client)?.idle.first().map(|(_, id)| *id)
    }

    /// The most connections one client holds now, and how many clients hold any.
    pub(super) fn figures(&self) -> (usize, usize) {
        let mut most = 0;
        if let Some(client) = self.largest() {
            most = self.by_block.get(&client).map_or(0, |holder| holder.count);
        }
        (most, self.clients)
    }
}

#[cfg(test)]
mod tests {
    use super::{Holders, Lineage};

    fn lineage(address: &str) -> Lineage {
        Lineage::of(address.parse().expect("address"))
    }

    #[test]
    fn the_largest_holder_is_found_block_by_block() {
        let mut holders = Holders::default();
        // Three addresses of one /24 with one connection each outweigh one address with two.
        for (id, address) in ["10.0.0.1", "10.0.0.2", "10.0.0.3"].iter().enumerate() {
            holders.add(&lineage(address), id as u64);
        }
        holders.add(&lineage("10.9.9.9"), 10);
        holders.add(&lineage("10.9.9.9"), 11);
        let largest = holders.largest().expect("someone");
        assert!(
            [
                lineage("10.0.0.1"),
                lineage("10.0.0.2"),
                lineage("10.0.0.3")
            ]
            .iter()
            .any(|one| one.client() == largest),
            "a client of the busiest /24"
        );
        assert_eq!(holders.figures(), (1, 4));
        // Within a block, the client with the most.
        holders.add(&lineage("10.0.0.2"), 12);
        assert_eq!(holders.largest(), Some(lineage("10.0.0.2").client()));
        assert_eq!(holders.oldest(lineage("10.0.0.2").client()), Some(1));
        holders.remove(&lineage("10.0.0.2"), 1, None);
        holders.remove(&lineage("10.0.0.2"), 12, None);
        assert_eq!(holders.count(&lineage("10.0.0.2")), 0);
        assert_eq!(holders.largest(), Some(lineage("10.9.9.9").client()));
        assert_eq!(holders.figures(), (2, 3));
    }

    #[test]
    fn ipv6_counts_by_64_56_and_48() {
        let mut holders = Holders::default();
        // Many /64s of one /48, one connection each: the /48 is the largest holder.
        for index in 0..5u64 {
            let address = format!("2001:db8:1:{index:x}::1");
            holders.add(&lineage(&address), index);
        }
        holders.add(&lineage("2001:db8:2::1"), 10);
        holders.add(&lineage("2001:db8:2::2"), 11);
        let largest = holders.largest().expect("someone");
        assert_ne!(largest, lineage("2001:db8:2::1").client());
        assert_eq!(
            lineage("2001:db8:2::1"),
            lineage("2001:db8:2::ffff"),
            "one /64"
        );
        for index in 0..5u64 {
            let address = format!("2001:db8:1:{index:x}::1");
            holders.remove(&lineage(&address), index, None);
        }
        assert_eq!(holders.largest(), Some(lineage("2001:db8:2::1").client()));
        assert_eq!(holders.figures(), (2, 1));
    }

    #[test]
    fn a_holder_gives_way_only_to_a_newcomer_holding_two_fewer() {
        let mut holders = Holders::default();
        let (a, b) = (lineage("10.1.0.1"), lineage("10.2.0.1"));
        for id in 0..3 {
            holders.add(&a, id);
        }
        holders.add(&b, 10);
        holders.add(&b, 11);
        // b (2, 3 with the newcomer) against a (3): no.
        assert_eq!(holders.victim_for(Some(&b)), None);
        // A third client (0, 1 with the newcomer) against a (3): a gives way.
        assert_eq!(
            holders.victim_for(Some(&lineage("10.3.0.1"))),
            Some(a.client())
        );
        // a itself: it holds the most.
        assert_eq!(holders.victim_for(Some(&a)), None);
        holders.remove(&b, 11, None);
        assert_eq!(holders.victim_for(Some(&b)), Some(a.client()), "1 + 1 < 3");
        // Within one /24, address against address.
        let mut same = Holders::default();
        for id in 0..4 {
            same.add(&lineage("192.0.2.2"), id);
        }
        assert_eq!(
            same.victim_for(Some(&lineage("192.0.2.9"))),
            Some(lineage("192.0.2.2").client())
        );
    }

    #[test]
    fn idle_connections_are_ordered_per_client() {
        let mut holders = Holders::default();
        let client = lineage("192.0.2.7");
        holders.add(&client, 1);
        holders.add(&client, 2);
        holders.set_idle(&client, 2, None, Some(5));
        holders.set_idle(&client, 1, None, Some(9));
        assert_eq!(holders.longest_idle(client.client()), Some(2));
        holders.set_idle(&client, 2, Some(5), None);
        assert_eq!(holders.longest_idle(client.client()), Some(1));
    }
}
