//! The client's HTTP/2 frames, followed as they are read, only far enough to see a header block
//! open and close (a HEADERS frame without END_HEADERS, then CONTINUATION frames until one
//! carries it): a block left open has the header deadline, as an HTTP/1 head does. hyper
//! gives no sign of a block it is still receiving.
//!
//! The first bytes tell: the HTTP/2 preface, or anything else (HTTP/1), after which nothing more
//! is looked at. Frame payloads are skipped, not read.

/// The connection preface of a client speaking HTTP/2.
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const HEADERS: u8 = 0x1;
const CONTINUATION: u8 = 0x9;
const END_HEADERS: u8 = 0x4;

/// What a read told of header blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Block {
    /// A header block began and is not complete.
    Opened,
    /// The open header block ended.
    Closed,
}

/// Where the follower is in the client's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Matched this many bytes of the preface.
    Preface(usize),
    /// Read this many bytes of a frame's 9-byte header.
    Header([u8; 9], usize),
    /// This many bytes of a payload left to skip.
    Payload(usize),
    /// Not HTTP/2 (or past a malformed frame): nothing more is looked at.
    Off,
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
    /// Follows `bytes`, the next the client sent; `on_block` hears each block opened or closed.
    pub(super) fn feed(&mut self, mut bytes: &[u8], on_block: &mut dyn FnMut(Block)) {
        while !bytes.is_empty() {
            match &mut self.state {
                State::Off => return,
                State::Preface(matched) => {
                    let want = &PREFACE[*matched..];
                    let take = want.len().min(bytes.len());
                    if bytes[..take] != want[..take] {
                        self.state = State::Off;
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
            frames.feed(chunk, &mut |block| seen.push(block));
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
    fn http1_turns_it_off_at_once() {
        assert!(follow(&[b"PUT / HTTP/1.1\r\n", &frame(0x1, 0, 3)]).is_empty());
        assert!(follow(&[b"GET /", b"PRI * HTTP/2.0"]).is_empty());
    }
}
