//! Per-file header values computed once when the service is built, never per request. Text
//! the catalog holds for the program's life (ETags, media types) becomes a static value
//! (`HeaderValue::from_static`): a request's copy of it is a copy of a pointer, with no shared
//! count to touch.

use http::{HeaderName, HeaderValue};

use crate::layout::DictionaryInfo;
use crate::{EmbeddedFile, Encoding};

/// One encoded representation of a file, with its header values ready.
#[derive(Debug, Clone)]
pub(crate) struct Representation {
    pub encoding: Encoding,
    pub bytes: &'static [u8],
    pub etag_text: &'static str,
    pub etag: HeaderValue,
    pub len: HeaderValue,
    pub content_encoding: HeaderValue,
}

impl Representation {
    pub(crate) fn new(encoding: Encoding, bytes: &'static [u8], etag_text: &'static str) -> Self {
        Representation {
            encoding,
            bytes,
            etag_text,
            etag: static_value(etag_text).unwrap_or_else(|| HeaderValue::from_static("invalid")),
            len: HeaderValue::from(bytes.len()),
            content_encoding: HeaderValue::from_static(encoding.as_str()),
        }
    }
}

/// Header values for one file.
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    pub file: &'static EmbeddedFile,
    pub content_type: HeaderValue,
    pub etag: HeaderValue,
    pub last_modified: Option<HeaderValue>,
    pub cache_control: HeaderValue,
    pub identity_len: HeaderValue,
    /// Every encoded representation, smallest first (ties in [`Encoding::ALL`] order), so the
    /// first of the best q-value is the smallest.
    pub representations: Box<[Representation]>,
    /// Headers added by path ([`Builder::headers`](crate::serve::Builder::headers)), in order.
    pub extra: Box<[(HeaderName, HeaderValue)]>,
    /// The file compressed against earlier versions of it, by the dictionary's SHA-256,
    /// smallest first (`dictionaries = true` with kept releases).
    pub deltas: Box<[(&'static [u8; 32], Representation)]>,
    /// `Use-As-Dictionary` (RFC 9842): the file is a dictionary for its next versions.
    pub use_as_dictionary: Option<HeaderValue>,
    /// `Vary`, when the representation depends on request headers.
    pub vary: Option<HeaderValue>,
}

impl Prepared {
    pub(crate) fn new(
        file: &'static EmbeddedFile,
        cache_control: &dyn Fn(&EmbeddedFile) -> HeaderValue,
        extra: Box<[(HeaderName, HeaderValue)]>,
    ) -> Self {
        let representations = representations(file);
        Prepared {
            file,
            content_type: static_value(file.content_type())
                .unwrap_or_else(|| HeaderValue::from_static("application/octet-stream")),
            etag: static_value(file.etag()).unwrap_or_else(|| HeaderValue::from_static("invalid")),
            last_modified: file
                .modified()
                .and_then(|time| HeaderValue::try_from(httpdate::fmt_http_date(time)).ok()),
            cache_control: cache_control(file),
            identity_len: HeaderValue::from(file.len()),
            // `with_dictionary` adds `available-dictionary` when the file has deltas.
            vary: (!representations.is_empty())
                .then(|| HeaderValue::from_static("accept-encoding")),
            representations,
            extra,
            deltas: Box::default(),
            use_as_dictionary: None,
        }
    }

    /// The file's `Content-Type` as `Builder::content_type` chose it, when it did.
    pub(crate) fn with_content_type(mut self, chosen: Option<HeaderValue>) -> Self {
        if let Some(chosen) = chosen {
            self.content_type = chosen;
        }
        self
    }

    /// Adds what makes the file a compression dictionary, served under `mount`: its
    /// `Use-As-Dictionary` and its deltas (which make its answers vary on
    /// `Available-Dictionary` too).
    pub(crate) fn with_dictionary(
        mut self,
        dictionary: Option<&'static DictionaryInfo>,
        mount: &str,
    ) -> Self {
        let Some(dictionary) = dictionary else {
            return self;
        };
        let destination = match dictionary.destination {
            "" => String::new(),
            destination => format!(", match-dest=(\"{destination}\")"),
        };
        self.use_as_dictionary = HeaderValue::try_from(format!(
            "match=\"{mount}/{}\"{destination}",
            dictionary.pattern
        ))
        .ok();
        self.deltas = dictionary
            .deltas
            .iter()
            .map(|delta| {
                let mut representation =
                    Representation::new(Encoding::Zstd, delta.bytes, delta.etag);
                representation.content_encoding = HeaderValue::from_static(delta.coding);
                (delta.dictionary, representation)
            })
            .collect();
        if !self.deltas.is_empty() {
            self.vary = Some(HeaderValue::from_static(
                "accept-encoding, available-dictionary",
            ));
        }
        self
    }

    /// The delta for the dictionary whose SHA-256 is `hash`, if there is one.
    pub(crate) fn delta(&self, hash: &[u8; 32]) -> Option<&Representation> {
        self.deltas
            .iter()
            .find(|(dictionary, _)| *dictionary == hash)
            .map(|(_, representation)| representation)
    }
}

/// `text` as a static header value, when it is a valid one (`from_static` would panic on
/// another).
fn static_value(text: &'static str) -> Option<HeaderValue> {
    HeaderValue::from_str(text)
        .is_ok()
        .then(|| HeaderValue::from_static(text))
}

fn representations(file: &'static EmbeddedFile) -> Box<[Representation]> {
    let mut representations: Vec<Representation> = file
        .encodings()
        .filter_map(|encoding| {
            let (bytes, etag) = file.representation(encoding)?;
            Some(Representation::new(encoding, bytes, etag))
        })
        .collect();
    // A stable sort keeps `Encoding::ALL` order among equal sizes.
    representations.sort_by_key(|representation| representation.bytes.len());
    representations.into_boxed_slice()
}
