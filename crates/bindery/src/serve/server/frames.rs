//! The client's bytes, followed as they are read, only far enough to see a request head or
//! header block begun and not complete, which hyper gives no sign of: over HTTP/2, a header
//! block opening and closing (a HEADERS frame without END_HEADERS, then CONTINUATION frames
//! until one carries it); over HTTP/1, bytes read after the end of a head (`\r\n\r\n`), the
//! start of a next head pipelined behind a request. Either has the header deadline.
//!
//! The first bytes tell: the HTTP/2 preface, or anything else (HTTP/1). Frame payloads are
//! skipped, not read; HTTP/1 bytes are looked at only when asked (not while a request with a
//! body is read), from the end of each read back to the last head's end.

/// The connection preface of a client speaking HTTP/2.
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const HEADERS: u8 = 0x1;
const CONTINUATION: u8 = 0x9;
const END_HEADERS: u8 = 0x4;

/// What a read told of header blocks and heads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Block {
    /// HTTP/2: a header block began and is not complete.
    Opened,
    /// HTTP/2: the open header block ended.
    Closed,
    /// HTTP/1: a head ended and more bytes followed it: a next head has begun.
    HeadBegun,
    /// HTTP/1: the read ended exactly at a head's end.
    HeadsComplete,
}

/// The end of an HTTP/1 head.
const HEAD_END: &[u8; 4] = b"\r\n\r\n";

/// Where the follower is in the client's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Matched this many bytes of the preface.
    Preface(usize),
    /// Read this many bytes of a frame's 9-byte header.
    Header([u8; 9], usize),
    /// This many bytes of a payload left to skip.
    Payload(usize),
    /// HTTP/1: the last bytes read (up to 3 kept), for a head's end across two reads.
    Http1([u8; 3], usize),
}

/// Follows one connection's frames.
#[derive(Debug)]
pub(super) struct Frames {
    state: State,
}

impl Default for Frames {
    fn default() -> Self {
        Frames {
            state: State::Preface(0),
        }
    }
}

impl Frames {
    /// Follows `bytes`, the next the client sent; `on_block` hears what they tell. HTTP/1
    /// heads are looked for only when `scan_heads` (no request with a body being read).
    pub(super) fn feed(
        &mut self,
        mut bytes: &[u8],
        scan_heads: bool,
        on_block: &mut dyn FnMut(Block),
    ) {
        while !bytes.is_empty() {
            match &mut self.state {
                State::Http1(carry, carried) => {
                    follow_http1(carry, carried, bytes, scan_heads, on_block);
                    return;
                }
                State::Preface(matched) => {
                    let want = &PREFACE[*matched..];
                    let take = want.len().min(bytes.len());
                    if bytes[..take] != want[..take] {
                        let seen = *matched;
                        self.state = State::Http1([0; 3], 0);
                        // What matched of the preface was HTTP/1's too (`P` of `PUT`).
                        let mut replay = PREFACE[..seen].to_vec();
                        replay.extend_from_slice(bytes);
                        if let State::Http1(carry, carried) = &mut self.state {
                            follow_http1(carry, carried, &replay, scan_heads, on_block);
                        }
                        return;
                    }
                    *matched += take;
                    bytes = &bytes[take..];
                    if *matched == PREFACE.len() {
                        self.state = State::Header([0; 9], 0);
                    }
                }
                State::Header(header, filled) => {
                    let take = (9 - *filled).min(bytes.len());
                    header[*filled..*filled + take].copy_from_slice(&bytes[..take]);
                    *filled += take;
                    bytes = &bytes[take..];
                    if *filled == 9 {
                        let header = *header;
                        self.state = State::Payload(frame_begun(&header, on_block));
                    }
                }
                State::Payload(left) => {
                    let take = (*left).min(bytes.len());
                    *left -= take;
                    bytes = &bytes[take..];
                }
            }
            if self.state == State::Payload(0) {
                self.state = State::Header([0; 9], 0);
            }
        }
        if self.state == State::Payload(0) {
            self.state = State::Header([0; 9], 0);
        }
    }
}

/// Follows HTTP/1 bytes: where the last head's end lies in them (or across the bytes carried
/// from the read before), and whether bytes follow it.
fn follow_http1(
    carry: &mut [u8; 3],
    carried: &mut usize,
    bytes: &[u8],
    scan_heads: bool,
    on_block: &mut dyn FnMut(Block),
) {
    if scan_heads {
        // Searched from the end: a head's end is near it in every read but a long head's.
        let in_bytes = bytes
            .windows(HEAD_END.len())
            .rposition(|window| window == HEAD_END)
            .map(|at| at + HEAD_END.len());
        let ended_at = in_bytes.or_else(|| {
            // Across the two reads: the carried bytes then the first of these.
            let mut joint = [0u8; 6];
            let kept = &carry[3 - *carried..];
            let first = &bytes[..bytes.len().min(3)];
            joint[..kept.len()].copy_from_slice(kept);
            joint[kept.len()..kept.len() + first.len()].copy_from_slice(first);
            let joint = &joint[..kept.len() + first.len()];
            joint
                .windows(HEAD_END.len())
                .rposition(|window| window == HEAD_END)
                .map(|at| at + HEAD_END.len() - kept.len())
        });
        match ended_at {
            Some(end) if end == bytes.len() => on_block(Block::HeadsComplete),
            Some(_) => on_block(Block::HeadBegun),
            None => {}
        }
    }
    // Keep the last three bytes, for a head's end split across reads.
    let take = bytes.len().min(3);
    let mut kept = [0u8; 6];
    let old = &carry[3 - *carried..];
    kept[..old.len()].copy_from_slice(old);
    kept[old.len()..old.len() + take].copy_from_slice(&bytes[bytes.len() - take..]);
    let total = old.len() + take;
    let keep = total.min(3);
    carry[3 - keep..].copy_from_slice(&kept[total - keep..total]);
    *carried = keep;
}

/// Reads a frame's header: tells `on_block` what it does to header blocks; the payload's length.
fn frame_begun(header: &[u8; 9], on_block: &mut dyn FnMut(Block)) -> usize {
    let length =
        usize::from(header[0]) << 16 | usize::from(header[1]) << 8 | usize::from(header[2]);
    let (kind, flags) = (header[3], header[4]);
    let ends = flags & END_HEADERS != 0;
    match kind {
        HEADERS if !ends => on_block(Block::Opened),
        CONTINUATION if ends => on_block(Block::Closed),
        _ => {}
    }
    length
}

#[cfg(test)]
mod tests {
    use super::{Block, Frames, PREFACE};

    fn frame(kind: u8, flags: u8, payload: usize) -> Vec<u8> {
        let mut out = vec![
            (payload >> 16) as u8,
            (payload >> 8) as u8,
            payload as u8,
            kind,
            flags,
        ];
        out.extend([0, 0, 0, 1]);
        out.extend(std::iter::repeat_n(0xAB, payload));
        out
    }

    fn follow(chunks: &[&[u8]]) -> Vec<Block> {
        let mut frames = Frames::default();
        let mut seen = Vec::new();
        for chunk in chunks {
            frames.feed(chunk, true, &mut |block| seen.push(block));
        }
        seen
    }

    #[test]
    fn header_blocks_are_seen_to_open_and_close_across_reads_of_any_size() {
        let mut bytes = PREFACE.to_vec();
        bytes.extend(frame(0x4, 0, 6)); // SETTINGS
        bytes.extend(frame(0x1, 0x4 | 0x1, 40)); // a whole block: nothing to tell
        bytes.extend(frame(0x1, 0x1, 300)); // HEADERS, no END_HEADERS
        bytes.extend(frame(0x9, 0, 20)); // CONTINUATION
        bytes.extend(frame(0x9, 0x4, 5)); // the last CONTINUATION
        bytes.extend(frame(0x0, 0x1, 70_000)); // DATA, skipped
        bytes.extend(frame(0x1, 0, 3)); // another block left open
        let whole = follow(&[&bytes]);
        assert_eq!(whole, [Block::Opened, Block::Closed, Block::Opened]);
        for size in [1, 2, 7, 9, 10, 4096] {
            let chunks: Vec<&[u8]> = bytes.chunks(size).collect();
            assert_eq!(follow(&chunks), whole, "read {size} bytes at a time");
        }
    }

    #[test]
    fn http1_is_no_frame_and_its_heads_ends_are_seen_in_any_read() {
        assert!(follow(&[b"PUT / HTTP/1.1\r\n", &frame(0x1, 0, 3)]).is_empty());
        assert!(follow(&[b"GET /", b"PRI * HTTP/2.0"]).is_empty());
        let head = b"GET / HTTP/1.1\r\nhost: t\r\n\r\n";
        assert_eq!(follow(&[head]), [Block::HeadsComplete]);
        let mut pipelined = head.to_vec();
        pipelined.extend_from_slice(b"GET / HT");
        assert_eq!(follow(&[&pipelined]), [Block::HeadBegun]);
        // The end split across reads, at every place.
        for split in 1..head.len() {
            let (first, second) = head.split_at(split);
            let seen = follow(&[first, second]);
            assert_eq!(
                seen.last(),
                Some(&Block::HeadsComplete),
                "split at {split}: {seen:?}"
            );
        }
        let mut frames = Frames::default();
        let mut seen = Vec::new();
        frames.feed(&pipelined, false, &mut |block| seen.push(block));
        assert!(seen.is_empty(), "not looked at while a body is read");
    }
}
