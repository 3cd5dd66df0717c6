//! What generated code calls: the runtime's side of generated-code contract 2. Not a public
//! API; its name carries the contract version, which changes whenever this module or the hidden
//! fields of `EmbeddedFile` do (ARCHITECTURE.md, "The generated-code contract").

use crate::file::ETAG_LEN;
use crate::{Catalog, EmbeddedFile, Encoding, Mode};

/// One precompressed wire variant of a file, made at build time and sent as-is.
#[derive(Debug, Clone, Copy)]
pub struct Encoded {
    pub encoding: Encoding,
    pub bytes: &'static [u8],
    pub etag: &'static str,
}

/// What an [`EmbeddedFile`] points to: the blob its stored bytes are in and its description.
/// Files stored as they are, without variants or times, share one per blob and media type (in
/// a packed catalog: one per media type); the others have their own.
#[derive(Debug, Clone, Copy)]
pub struct Info {
    /// The blob holding the stored bytes: the file's own, or the catalog's pack.
    pub data: &'static [u8],
    pub mime: &'static str,
    pub content_type: &'static str,
    /// The uncompressed length when the stored bytes are gzip; `None`: the stored length.
    pub len: Option<usize>,
    /// Set when the stored bytes are the gzip representation.
    pub gzip_etag: Option<&'static str>,
    pub variants: &'static [Encoded],
    pub modified: Option<u64>,
}

impl Info {
    /// A file stored as it is, with no variants and no time.
    pub const fn plain(
        data: &'static [u8],
        mime: &'static str,
        content_type: &'static str,
    ) -> Info {
        Info::dated(data, mime, content_type, None)
    }

    /// A file stored as it is, with no variants, and the catalog's one date (`modified =
    /// "source-date-epoch"`) or none.
    pub const fn dated(
        data: &'static [u8],
        mime: &'static str,
        content_type: &'static str,
        modified: Option<u64>,
    ) -> Info {
        Info {
            data,
            mime,
            content_type,
            len: None,
            gzip_etag: None,
            variants: &[],
            modified,
        }
    }
}

/// The part of an entry's name that is its path (the ETag follows it), as bytes, in `const`.
const fn path_bytes(file: &EmbeddedFile) -> &[u8] {
    file.__name.as_bytes().split_at(file.path_len()).0
}

/// Checks an entry of a generated module, which a person may have edited and whose files may
/// have changed since: its name ends with an ETag, and it stores exactly its own blob (modules
/// are never packed), so a file that grew or shrank after generation fails the build instead
/// of being served cut or padded.
const fn check_entry(file: &EmbeddedFile) {
    let name = file.__name.as_bytes();
    assert!(
        name.len() >= ETAG_LEN
            && name[name.len() - ETAG_LEN] == b'"'
            && name[name.len() - 1] == b'"',
        "bindery: a catalog entry's name does not end with its ETag; regenerate the catalog"
    );
    assert!(
        file.__start == 0 && file.__len == file.__info.data.len(),
        "bindery: a file's bytes do not match its recorded length; regenerate the catalog"
    );
}

/// Builds a catalog whose paths the `embed!` macro has just sorted: no check while compiling
/// (checking thousands of paths in the const evaluator costs rustc measurably on every rebuild;
/// BENCHMARKS.md, "Build cost").
pub const fn sorted_catalog(
    mode: Mode,
    prefix: &'static str,
    dev: Option<&'static DevSource>,
    files: &'static [EmbeddedFile],
    urls: &'static [&'static str],
    by_url: &'static [u32],
) -> Catalog {
    Catalog {
        mode,
        prefix,
        files,
        dev,
        urls,
        by_url,
    }
}

/// Builds a catalog from a generated module, which a person may have edited. Paths must be
/// strictly increasing (lookups binary-search them): checked while compiling, so an
/// out-of-order table can never ship.
pub const fn catalog(
    mode: Mode,
    prefix: &'static str,
    dev: Option<&'static DevSource>,
    files: &'static [EmbeddedFile],
    urls: &'static [&'static str],
    by_url: &'static [u32],
) -> Catalog {
    let mut index = 0;
    while index < files.len() {
        check_entry(&files[index]);
        if index > 0 {
            assert!(
                is_less(path_bytes(&files[index - 1]), path_bytes(&files[index])),
                "bindery: catalog paths are not sorted and unique; regenerate the catalog"
            );
        }
        index += 1;
    }
    assert!(
        (urls.is_empty() || urls.len() == files.len()) && by_url.len() == urls.len(),
        "bindery: the fingerprint tables do not match the files; regenerate the catalog"
    );
    let mut slot = 0;
    while slot < by_url.len() {
        assert!(
            (by_url[slot] as usize) < files.len()
                && (slot == 0
                    || is_less(
                        urls[by_url[slot - 1] as usize].as_bytes(),
                        urls[by_url[slot] as usize].as_bytes()
                    )),
            "bindery: fingerprinted paths are not sorted and unique; regenerate the catalog"
        );
        slot += 1;
    }
    sorted_catalog(mode, prefix, dev, files, urls, by_url)
}

const fn is_less(left: &[u8], right: &[u8]) -> bool {
    let mut index = 0;
    while index < left.len() && index < right.len() {
        if left[index] != right[index] {
            return left[index] < right[index];
        }
        index += 1;
    }
    left.len() < right.len()
}

/// Where and how a catalog reads its folder in dev mode: the folder and the build's rules.
#[derive(Debug)]
pub struct DevSource {
    /// The folder, absolute (from `CARGO_MANIFEST_DIR`).
    pub root: &'static str,
    pub include: &'static [&'static str],
    pub exclude: &'static [&'static str],
    pub include_hidden: bool,
    pub modified: bool,
    /// Whether `.gitignore` and `.ignore` files are honoured (`gitignore = true`).
    pub gitignore: bool,
    /// Whether precompressed siblings are variants, not files (`precompressed = "siblings"`).
    pub siblings: bool,
    /// The one date of every file (`modified = "source-date-epoch"`), fixed at build time.
    pub date: Option<u64>,
    /// The algorithm of the integrity strings, as the build chose it.
    pub integrity: crate::Integrity,
}

/// A catalog's dev source: `Some` with the `dev` feature in builds with debug assertions, `None`
/// otherwise, when the folder's path and the rules never reach the binary.
#[cfg(all(feature = "dev", debug_assertions))]
#[macro_export]
#[doc(hidden)]
macro_rules! __bindery_dev {
    ($root:expr, [$($include:expr),* $(,)?], [$($exclude:expr),* $(,)?], $hidden:expr, $modified:expr, $gitignore:expr, $siblings:expr, $date:expr, $integrity:ident $(,)?) => {
        ::core::option::Option::Some(&$crate::__private_v2::DevSource {
            root: $root,
            include: &[$($include),*],
            exclude: &[$($exclude),*],
            include_hidden: $hidden,
            modified: $modified,
            gitignore: $gitignore,
            siblings: $siblings,
            date: $date,
            integrity: $crate::Integrity::$integrity,
        })
    };
}

/// A catalog's dev source: always `None` without the `dev` feature or in a release build.
#[cfg(not(all(feature = "dev", debug_assertions)))]
#[macro_export]
#[doc(hidden)]
macro_rules! __bindery_dev {
    ($($ignored:tt)*) => {
        ::core::option::Option::None
    };
}

/// The bytes of a large file, placed in the binary by the assembler (`.incbin`) so that rustc
/// and LLVM never hold them: `$symbol` names them, `$path` is the absolute path, `$len` the
/// length codegen measured. Used where `build.rs` sets `cfg(bindery_incbin)` (ELF on x86,
/// x86_64, aarch64, arm, riscv64); elsewhere the fallback below uses `include_bytes!`.
#[cfg(bindery_incbin)]
#[macro_export]
#[doc(hidden)]
macro_rules! __bindery_incbin {
    ($symbol:expr, $path:expr, $len:literal) => {{
        mod incbin {
            ::core::arch::global_asm!(
                // One definition per symbol: catalogs of one crate that hold the same bytes name
                // the same symbol. Within one object file the first definition wins (`.ifndef`);
                // across the crate's object files each is a weak symbol in a COMDAT group of its
                // own name, of which the linker keeps one.
                ::core::concat!(".ifndef ", $symbol),
                ::core::concat!(
                    ".pushsection .rodata.",
                    $symbol,
                    ",\"aG\",%progbits,",
                    $symbol,
                    ",comdat"
                ),
                ".p2align 4",
                ::core::concat!(".weak ", $symbol),
                ::core::concat!(".hidden ", $symbol),
                ::core::concat!($symbol, ":"),
                ::core::concat!(".incbin \"", $path, "\""),
                // Exactly `$len` bytes follow the symbol, or the build fails naming the file: a
                // file that grew or shrank since codegen measured it (a committed module's
                // source edited since) is never cut nor zero-padded under its old ETag. The
                // macro includes its own sealed copy, which holds exactly the bytes measured.
                ::core::concat!(".if (. - ", $symbol, ") != ", $len),
                ::core::concat!(
                    ".error \"bindery: ",
                    $path,
                    " is no longer the ",
                    $len,
                    " bytes its catalog was made from; regenerate the catalog\""
                ),
                ".endif",
                ".popsection",
                ".endif",
            );
        }
        unsafe extern "C" {
            #[link_name = $symbol]
            static BYTES: [u8; $len];
        }
        // SAFETY: `BYTES` is defined by the `global_asm!` just above (or by the same expansion
        // elsewhere in this crate), in this crate's own object code, under a symbol named by
        // this crate's name and the BLAKE3 hash and length of its bytes, with hidden visibility
        // so nothing outside the crate can interpose another definition. Every definition of
        // the symbol therefore holds the same bytes, and the linker keeping any one of them (weak
        // symbols in COMDAT groups) keeps those bytes. The `.if`/`.error` check makes the build
        // fail unless the symbol spans exactly `$len` bytes of its own section, so the array
        // type is exact. The section is
        // allocated and not writable (`"a"`), so the bytes are read-only data for the whole life
        // of the program, and `u8` has neither invalid values nor alignment needs.
        let bytes: &'static [u8] = unsafe { &BYTES };
        bytes
    }};
}

/// The bytes of a large file: `include_bytes!` on targets without the assembler path.
#[cfg(not(bindery_incbin))]
#[macro_export]
#[doc(hidden)]
macro_rules! __bindery_incbin {
    ($symbol:expr, $path:expr, $len:literal) => {
        ::core::include_bytes!($path)
    };
}
