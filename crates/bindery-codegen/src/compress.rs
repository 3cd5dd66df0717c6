//! The encoders that make blobs at build time (gzip, and brotli and zstd behind their
//! features), as streaming writers, and when a blob is worth keeping.

use std::io::Write;

use crate::Encoding;

/// A file whose compressed blob is not at least this many percent smaller than the file is stored
/// raw (gzip mode) or gets no variant for that encoding: it would cost CPU or bytes in the binary
/// for almost no saving.
pub const MIN_SAVING_PERCENT: u64 = 5;

/// Whether a blob of `compressed` bytes for a file of `len` bytes saves enough to be kept.
pub(crate) fn is_worth_it(compressed: u64, len: u64) -> bool {
    compressed * 100 <= len * (100 - MIN_SAVING_PERCENT)
}

/// The cache folder of an encoding. Brotli's and zstd's carry their fixed parameters, so a change
/// of window never reuses blobs made with the old one.
pub(crate) fn cache_folder(encoding: Encoding) -> String {
    match encoding {
        Encoding::Gzip => "gzip".to_owned(),
        Encoding::Br => format!("br-w{}", crate::encoding::BROTLI_WINDOW_LOG),
        Encoding::Zstd => format!("zstd-w{}", crate::encoding::ZSTD_WINDOW_LOG),
    }
}

/// The level a blob of `encoding` is made at: `gzip_level` for gzip, the fixed best levels for
/// the others.
pub(crate) fn level_for(encoding: Encoding, gzip_level: u32) -> u32 {
    match encoding {
        Encoding::Gzip => gzip_level,
        Encoding::Br => crate::encoding::BROTLI_QUALITY,
        Encoding::Zstd => crate::encoding::ZSTD_LEVEL.unsigned_abs(),
    }
}

/// A streaming encoder into `W`. Output depends only on the input and the parameters (gzip
/// headers carry no name and no time), so equal input gives equal blobs on every machine.
pub(crate) enum Encoder<W: Write> {
    #[cfg(feature = "gzip")]
    Gzip(flate2::write::GzEncoder<W>),
    #[cfg(feature = "br")]
    Br(Box<brotli::CompressorWriter<Recording<W>>>),
    #[cfg(feature = "zstd")]
    Zstd(zstd::stream::write::Encoder<'static, W>),
    /// None (with no encoder compiled in, the type still names `W`).
    #[allow(dead_code)]
    Never(std::convert::Infallible, std::marker::PhantomData<W>),
}

impl<W: Write> Encoder<W> {
    /// An encoder for `len` bytes of input at `level`; an error when the encoding's feature is off.
    pub(crate) fn new(
        encoding: Encoding,
        level: u32,
        len: u64,
        writer: W,
    ) -> std::io::Result<Encoder<W>> {
        match encoding {
            #[cfg(feature = "gzip")]
            Encoding::Gzip => Ok(Encoder::Gzip(
                flate2::GzBuilder::new().write(writer, flate2::Compression::new(level)),
            )),
            #[cfg(feature = "br")]
            Encoding::Br => Ok(Encoder::Br(Box::new(brotli::CompressorWriter::new(
                Recording {
                    inner: writer,
                    error: None,
                },
                64 * 1024,
                level,
                crate::encoding::BROTLI_WINDOW_LOG,
            )))),
            #[cfg(feature = "zstd")]
            Encoding::Zstd => {
                let level = i32::try_from(level).unwrap_or(crate::encoding::ZSTD_LEVEL);
                let mut encoder = zstd::stream::write::Encoder::new(writer, level)?;
                encoder.set_pledged_src_size(Some(len))?;
                encoder.include_contentsize(true)?;
                encoder.include_checksum(false)?;
                encoder.window_log(crate::encoding::ZSTD_WINDOW_LOG)?;
                Ok(Encoder::Zstd(encoder))
            }
            #[allow(unreachable_patterns)]
            other => {
                let _ = (writer, level, len);
                Err(std::io::Error::other(format!(
                    "the `{other}` encoder is not compiled in: enable bindery's `{}` feature",
                    other.feature()
                )))
            }
        }
    }

    /// Ends the stream and gives back the writer.
    pub(crate) fn finish(self) -> std::io::Result<W> {
        match self {
            #[cfg(feature = "gzip")]
            Encoder::Gzip(encoder) => encoder.finish(),
            #[cfg(feature = "br")]
            Encoder::Br(encoder) => {
                // The writer swallows errors when it finishes the stream; they were recorded.
                let recording = encoder.into_inner();
                match recording.error {
                    Some(error) => Err(error),
                    None => Ok(recording.inner),
                }
            }
            #[cfg(feature = "zstd")]
            Encoder::Zstd(encoder) => encoder.finish(),
            Encoder::Never(never, _) => match never {},
        }
    }
}

impl<W: Write> Write for Encoder<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let _ = &bytes;
        match self {
            #[cfg(feature = "gzip")]
            Encoder::Gzip(encoder) => encoder.write(bytes),
            #[cfg(feature = "br")]
            Encoder::Br(encoder) => encoder.write(bytes),
            #[cfg(feature = "zstd")]
            Encoder::Zstd(encoder) => encoder.write(bytes),
            Encoder::Never(never, _) => match *never {},
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            #[cfg(feature = "gzip")]
            Encoder::Gzip(encoder) => encoder.flush(),
            #[cfg(feature = "br")]
            Encoder::Br(encoder) => encoder.flush(),
            #[cfg(feature = "zstd")]
            Encoder::Zstd(encoder) => encoder.flush(),
            Encoder::Never(never, _) => match *never {},
        }
    }
}

/// A writer that keeps the first error it returns, for encoders that drop errors on finish.
#[cfg(feature = "br")]
pub(crate) struct Recording<W> {
    inner: W,
    error: Option<std::io::Error>,
}

#[cfg(feature = "br")]
impl<W: Write> Write for Recording<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.inner.write(bytes).inspect_err(|error| {
            self.error
                .get_or_insert_with(|| std::io::Error::new(error.kind(), error.to_string()));
        })
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush().inspect_err(|error| {
            self.error
                .get_or_insert_with(|| std::io::Error::new(error.kind(), error.to_string()));
        })
    }
}
