//! A jump table into the database's search tree: for every value of an address's first 16
//! bits, the node the walk reaches after them, made once per load. A lookup then starts 16
//! levels down, with one read of a 256 KiB table instead of 16 dependent reads of tree nodes
//! (under a server's load most of those miss the CPU's caches: BENCHMARKS.md, "`/geo` against a
//! bare handler").
//!
//! The walk is the MaxMind DB format's (one node of two records of 24, 28 or 32 bits; a record
//! below the node count is a node, equal to it is "no data", above it points into the data
//! section), and answers what maxminddb's `Reader::lookup` answers: the data offset and the
//! prefix length, or nothing. Where it cannot tell (a database without an IPv4 subtree, a
//! pointer into the separator, a tree shorter than its node count says), it says so and the
//! caller asks maxminddb, which reports the error: the table never turns a broken database
//! into an answer.

use std::net::IpAddr;

use maxminddb::Reader;

/// How many leading bits of an address the table resolves.
const JUMP_BITS: u32 = 16;

/// Bytes between the search tree and the data section.
const DATA_SECTION_SEPARATOR: usize = 16;

/// What the walk found for an address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// A record at this offset of the data section (maxminddb's `LookupResult::offset`), for
    /// the network of this many leading bits of the address (of its IPv4 bits for IPv4).
    Data {
        /// The record's offset in the data section.
        offset: usize,
        /// The matched network's prefix length.
        prefix: u8,
    },
    /// The database has no data for the address.
    Nothing,
}

/// A reader, and the jump table into its tree that lookups start from when it has one.
pub(crate) struct Tree<S: AsRef<[u8]>> {
    pub(crate) reader: Reader<S>,
    pub(crate) jump: Option<TreeJump<S>>,
}

impl<S: AsRef<[u8]>> Tree<S> {
    /// `reader` of `bytes`, with the jump table into its tree made now.
    pub(crate) fn new(reader: Reader<S>, bytes: S) -> Self {
        let jump = TreeJump::new(bytes, reader.metadata());
        Tree { reader, jump }
    }

    /// Heap bytes of the jump table, 0 without one.
    pub(crate) fn jump_table_bytes(&self) -> usize {
        self.jump.as_ref().map_or(0, TreeJump::heap_bytes)
    }
}

/// The nodes at depth 16 under one start node, for one address family.
#[derive(Debug)]
struct Table {
    /// The tree's value after the first 16 bits, per 16-bit prefix: a node, "no data", or a
    /// data pointer.
    values: Box<[u32]>,
    /// The depth each walk ended at, read only where it ended above depth 16 (a terminal).
    depths: Box<[u8]>,
}

/// The search tree of one loaded database, with a jump table per address family it can walk.
///
/// ```
/// let reader = maxminddb::Reader::from_source(geodb::SAMPLE).unwrap();
/// let jump = geo_server::tree_jump::TreeJump::new(geodb::SAMPLE, reader.metadata()).unwrap();
/// let london = "81.2.69.160".parse().unwrap();
/// let found = reader.lookup(london).unwrap();
/// assert_eq!(
///     jump.find(london),
///     Some(geo_server::tree_jump::Found::Data {
///         offset: found.offset().unwrap(),
///         prefix: found.network().unwrap().prefix(),
///     })
/// );
/// ```
#[derive(Debug)]
pub struct TreeJump<S> {
    bytes: S,
    node_count: usize,
    record_bits: u16,
    ipv4: Option<Table>,
    ipv6: Option<Table>,
}

impl<S: AsRef<[u8]>> TreeJump<S> {
    /// The tables for the tree in `bytes`, described by `metadata`; `None` when the metadata
    /// describes no tree this walk reads (an unknown record size, a tree longer than the bytes).
    pub fn new(bytes: S, metadata: &maxminddb::Metadata) -> Option<Self> {
        let record_bits = metadata.record_size;
        let node_count = usize::try_from(metadata.node_count).ok()?;
        let node_bytes = match record_bits {
            24 => 6,
            28 => 7,
            32 => 8,
            _ => return None,
        };
        if node_count.checked_mul(node_bytes)? > bytes.as_ref().len() {
            return None;
        }
        let mut jump = TreeJump {
            bytes,
            node_count,
            record_bits,
            ipv4: None,
            ipv6: None,
        };
        match metadata.ip_version {
            4 => jump.ipv4 = jump.table(0),
            6 => {
                jump.ipv6 = jump.table(0);
                // IPv4 addresses live under ::/96 (maxminddb starts them there too); a tree that
                // ends above it has no IPv4 subtree, and maxminddb answers those itself.
                let mut node = 0;
                for _ in 0..96 {
                    if node >= node_count {
                        break;
                    }
                    node = jump.read(node, 0)?;
                }
                if node < node_count {
                    jump.ipv4 = jump.table(node);
                }
            }
            _ => return None,
        }
        Some(jump)
    }

    /// Heap bytes the tables hold.
    pub fn heap_bytes(&self) -> usize {
        [&self.ipv4, &self.ipv6]
            .into_iter()
            .flatten()
            .map(|table| table.values.len() * 4 + table.depths.len())
            .sum()
    }

    /// What the tree holds for `ip`, or `None` when this walk cannot tell and maxminddb must
    /// answer (no table for its family, a record that points outside the data section).
    pub fn find(&self, ip: IpAddr) -> Option<Found> {
        match ip {
            IpAddr::V4(v4) => self.walk(self.ipv4.as_ref()?, u128::from(u32::from(v4)), 32),
            IpAddr::V6(v6) => self.walk(self.ipv6.as_ref()?, u128::from(v6), 128),
        }
    }

    fn walk(&self, table: &Table, address: u128, width: u32) -> Option<Found> {
        let top = (address >> (width - JUMP_BITS)) as usize;
        let mut value = table.values[top] as usize;
        let mut depth = if value < self.node_count {
            JUMP_BITS
        } else {
            u32::from(table.depths[top])
        };
        while value < self.node_count {
            if depth == width {
                // Out of bits on a node: maxminddb reports no data.
                return Some(Found::Nothing);
            }
            let bit = ((address >> (width - 1 - depth)) & 1) as usize;
            value = self.read(value, bit)?;
            depth += 1;
        }
        if value == self.node_count {
            return Some(Found::Nothing);
        }
        let offset = value
            .checked_sub(self.node_count)?
            .checked_sub(DATA_SECTION_SEPARATOR)?;
        Some(Found::Data {
            offset,
            prefix: u8::try_from(depth).ok()?,
        })
    }

    /// The table of the values 16 levels below `start`.
    fn table(&self, start: usize) -> Option<Table> {
        let size = 1 << JUMP_BITS;
        let mut table = Table {
            values: vec![0; size].into_boxed_slice(),
            depths: vec![0; size].into_boxed_slice(),
        };
        // Depth first: every node down to depth 16 is read once.
        let mut pending = vec![(start, 0_u32, 0_usize)];
        while let Some((value, depth, prefix)) = pending.pop() {
            if value >= self.node_count || depth == JUMP_BITS {
                let span = 1 << (JUMP_BITS - depth);
                let first = prefix << (JUMP_BITS - depth);
                table.values[first..first + span].fill(u32::try_from(value).ok()?);
                table.depths[first..first + span].fill(depth as u8);
                continue;
            }
            for bit in [1, 0] {
                pending.push((self.read(value, bit)?, depth + 1, prefix << 1 | bit));
            }
        }
        Some(table)
    }

    /// One record of a node: the left (`bit` 0) or right (1) child's value.
    #[inline]
    fn read(&self, node: usize, bit: usize) -> Option<usize> {
        let bytes = self.bytes.as_ref();
        let value = match self.record_bits {
            24 => {
                let at = node * 6 + bit * 3;
                let b = bytes.get(at..at + 3)?;
                u32::from_be_bytes([0, b[0], b[1], b[2]])
            }
            28 => {
                // Each record's 24 low bits, and a shared middle byte: its high nibble tops the
                // left record, its low nibble the right one.
                let b = bytes.get(node * 7..node * 7 + 7)?;
                if bit == 0 {
                    u32::from_be_bytes([b[3] >> 4, b[0], b[1], b[2]])
                } else {
                    u32::from_be_bytes([b[3] & 0x0f, b[4], b[5], b[6]])
                }
            }
            _ => {
                let at = node * 8 + bit * 4;
                u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?)
            }
        };
        usize::try_from(value).ok()
    }
}
