//! The response body: bytes already in memory, handed to the server as they are: one slice of
//! the binary (or of a decompressed buffer), or a few (the heads and parts of a
//! `multipart/byteranges` answer), never copied into one. Heap bytes carry their lease of the
//! service's byte budget themselves (budget.rs), for as long as any slice of them lives.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;

/// The body of every answer of a [`ServeCatalog`](super::ServeCatalog): bytes in memory, in
/// one frame or a few (never copied together), with an exact length.
///
/// ```
/// use http_body::Body as _;
/// let body = bindery::serve::Body::from("hello");
/// assert_eq!(body.size_hint().exact(), Some(5));
/// assert_eq!(body.into_bytes(), "hello");
/// ```
#[derive(Debug, Default)]
pub struct Body {
    chunks: Chunks,
}

#[derive(Debug, Default)]
enum Chunks {
    #[default]
    Empty,
    One(Bytes),
    Many(VecDeque<Bytes>),
}

impl Body {
    /// An empty body.
    pub fn empty() -> Body {
        Body::default()
    }

    /// A body of `chunks` in order.
    pub(crate) fn from_chunks(chunks: VecDeque<Bytes>) -> Body {
        Body {
            chunks: Chunks::Many(chunks),
        }
    }

    /// The bytes left, in order (for servers that take bytes, not an `http_body::Body`). Heap
    /// bytes keep their budget lease for as long as the caller holds them.
    pub fn into_chunks(self) -> impl Iterator<Item = Bytes> {
        self.into_deque().into_iter()
    }

    /// The chunks left, for an adapter whose server takes bytes in its own way.
    pub(crate) fn into_deque(self) -> VecDeque<Bytes> {
        match self.chunks {
            Chunks::Empty => VecDeque::new(),
            Chunks::One(bytes) => VecDeque::from([bytes]),
            Chunks::Many(chunks) => chunks,
        }
    }

    /// All the bytes left as one `Bytes`: no copy for a body of one frame (every body but a
    /// multipart one).
    pub fn into_bytes(self) -> Bytes {
        match self.chunks {
            Chunks::Empty => Bytes::new(),
            Chunks::One(bytes) => bytes,
            Chunks::Many(chunks) => chunks.into_iter().flatten().collect(),
        }
    }

    /// How many bytes are left.
    pub fn len(&self) -> u64 {
        match &self.chunks {
            Chunks::Empty => 0,
            Chunks::One(bytes) => bytes.len() as u64,
            Chunks::Many(chunks) => chunks.iter().map(|chunk| chunk.len() as u64).sum(),
        }
    }

    /// Whether no byte is left.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl From<Bytes> for Body {
    fn from(bytes: Bytes) -> Body {
        Body {
            chunks: Chunks::One(bytes),
        }
    }
}

impl From<&'static [u8]> for Body {
    fn from(bytes: &'static [u8]) -> Body {
        Body::from(Bytes::from_static(bytes))
    }
}

impl From<&'static str> for Body {
    fn from(text: &'static str) -> Body {
        Body::from(Bytes::from_static(text.as_bytes()))
    }
}

impl From<Vec<u8>> for Body {
    fn from(bytes: Vec<u8>) -> Body {
        Body::from(Bytes::from(bytes))
    }
}

impl From<String> for Body {
    fn from(text: String) -> Body {
        Body::from(Bytes::from(text))
    }
}

impl http_body::Body for Body {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Infallible>>> {
        let next = match &mut self.chunks {
            Chunks::Empty => None,
            Chunks::One(_) => match std::mem::take(&mut self.chunks) {
                Chunks::One(bytes) => Some(bytes),
                _ => None,
            },
            Chunks::Many(chunks) => chunks.pop_front(),
        };
        Poll::Ready(next.map(|bytes| Ok(http_body::Frame::data(bytes))))
    }

    fn is_end_stream(&self) -> bool {
        match &self.chunks {
            Chunks::Empty => true,
            Chunks::One(_) => false,
            Chunks::Many(chunks) => chunks.is_empty(),
        }
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.len())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use bytes::Bytes;
    use http_body::Body as _;

    use super::Body;

    #[test]
    fn chunks_come_out_in_order_without_copies() {
        static FILE: [u8; 6] = *b"abcdef";
        let whole = Bytes::from_static(&FILE);
        let body = Body::from_chunks(VecDeque::from([
            Bytes::from_static(b"--"),
            whole.slice(1..3),
            whole.slice(4..),
        ]));
        assert_eq!(body.size_hint().exact(), Some(6));
        let chunks: Vec<Bytes> = body.into_chunks().collect();
        assert_eq!(chunks, ["--", "bc", "ef"]);
        assert!(
            FILE.as_ptr_range().contains(&chunks[1].as_ptr()),
            "a slice, not a copy"
        );
        assert!(Body::empty().is_end_stream());
        assert!(!Body::from("x").is_end_stream());
    }
}
