//! A reference to one embedded file that the compiler checks: [`Asset`], made in a `const` by
//! [`Catalog::asset`] or [`asset!`](crate::asset), so that a path the catalog does not hold is
//! a compile error suggesting the nearest ones, not a 404 in production. The search for those
//! ([`nearest`]) is `const` too, and also words the builder's and the templates' errors.

use std::borrow::Cow;

use crate::{Catalog, EmbeddedFile, Error};

mod search;

#[cfg(feature = "serve")]
pub(crate) use search::near_paths;
use std::cmp::Ordering;

use crate::lookup::compare_bytes;
use search::{Message, name_rules, nearest, trim_slash};

/// One file of a catalog, found when the program was compiled: its URL (fingerprinted where
/// the catalog fingerprints, plain in dev mode), integrity, media type and contents. Made in a
/// `const` or `static` by [`Catalog::asset`] or [`asset!`](crate::asset), so a typo fails the
/// build; `Copy`, and as cheap to pass as a reference.
///
/// ```
/// use bindery::{Asset, Catalog};
///
/// static SITE: Catalog = bindery::embed!("../../assets/fixtures", fingerprint = true);
/// const LOGO: Asset = SITE.asset("images/logo.svg");
/// static STYLES: [Asset; 2] = [SITE.asset("style.css"), bindery::asset!(SITE, "/data.json")];
///
/// assert_eq!(LOGO.path(), "images/logo.svg");
/// assert_eq!(Some(LOGO.url()), SITE.url("images/logo.svg"));
/// assert_eq!(LOGO.content_type(), "image/svg+xml; charset=utf-8");
/// assert_eq!(STYLES[1].path(), "data.json");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Asset {
    catalog: &'static Catalog,
    index: usize,
}

impl Asset {
    /// The file, as the binary holds it.
    ///
    /// ```
    /// # static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// const HELLO: bindery::Asset = SITE.asset("hello.txt");
    /// assert_eq!(HELLO.file().len(), SITE.file("hello.txt").unwrap().len());
    /// ```
    pub const fn file(&self) -> &'static EmbeddedFile {
        &self.catalog.files[self.index]
    }

    /// Its path in the catalog, without a leading `/`.
    ///
    /// ```
    /// # static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// assert_eq!(bindery::asset!(SITE, "/hello.txt").path(), "hello.txt");
    /// ```
    pub const fn path(&self) -> &'static str {
        self.file().const_path()
    }

    /// The URL path (relative, without a leading `/`) a page should use, what
    /// [`Catalog::url`] gives: the fingerprinted name when the catalog has them, the plain path
    /// in dev mode and otherwise. A mounted server adds its mount point (`ServeCatalog::url`).
    ///
    /// ```
    /// static HASHED: bindery::Catalog = bindery::embed!("../../assets/fixtures", fingerprint = true);
    /// const STYLE: bindery::Asset = HASHED.asset("style.css");
    /// assert_eq!(Some(STYLE.url()), HASHED.url("style.css"));
    /// ```
    pub const fn url(&self) -> &'static str {
        let urls = self.catalog.urls;
        if self.catalog.is_dev() || self.index >= urls.len() {
            return self.path();
        }
        urls[self.index]
    }

    /// Its Subresource Integrity value (`sha384-…`), when the catalog records them.
    ///
    /// ```
    /// static SRI: bindery::Catalog = bindery::embed!("../../assets/fixtures", integrity = true);
    /// const STYLE: bindery::Asset = SRI.asset("style.css");
    /// assert!(STYLE.integrity().unwrap().starts_with("sha384-"));
    /// ```
    pub const fn integrity(&self) -> Option<&'static str> {
        self.file().integrity()
    }

    /// Its `Content-Type` header value: the media type, with `; charset=utf-8` for text.
    ///
    /// ```
    /// # static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// assert_eq!(bindery::asset!(SITE, "data.json").content_type(), "application/json; charset=utf-8");
    /// ```
    pub const fn content_type(&self) -> &'static str {
        self.file().content_type()
    }

    /// Its contents, read the way the catalog reads them ([`Catalog::get`]): from the folder
    /// in dev mode, borrowed, decompressed or copied otherwise.
    ///
    /// ```
    /// # static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// assert_eq!(&*bindery::asset!(SITE, "hello.txt").contents().unwrap(), b"Hello, bindery!\n");
    /// ```
    pub fn contents(&self) -> Result<Cow<'static, [u8]>, Error> {
        match self.catalog.get(self.path()) {
            Some(contents) => Ok(contents),
            None => self.file().contents(),
        }
    }
}

impl Catalog {
    /// The file at `path` as an [`Asset`], for a `const` or a `static`: a path the catalog
    /// does not hold (a typo, or a file its rules leave out) stops the build with an error
    /// naming the nearest paths it holds. One leading `/` is accepted. Called outside a
    /// `const`, a missing path panics: there use [`file`](Self::file) or
    /// [`url`](Self::url), or [`asset!`](crate::asset), which is always evaluated as a `const`.
    ///
    /// ```
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// const LOGO: bindery::Asset = SITE.asset("images/logo.svg");
    /// assert_eq!(LOGO.path(), "images/logo.svg");
    /// ```
    ///
    /// ```compile_fail,E0080
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// // error: bindery: the catalog has no file `images/logo.svgx`; did you mean `images/logo.svg`?
    /// const LOGO: bindery::Asset = SITE.asset("images/logo.svgx");
    /// ```
    #[track_caller]
    pub const fn asset(&'static self, path: &str) -> Asset {
        let wanted = trim_slash(path.as_bytes());
        let files = self.files;
        let (mut low, mut high) = (0, files.len());
        while low < high {
            let middle = low + (high - low) / 2;
            match compare_bytes(files[middle].const_path().as_bytes(), wanted) {
                Ordering::Less => low = middle + 1,
                Ordering::Greater => high = middle,
                Ordering::Equal => {
                    return Asset {
                        catalog: self,
                        index: middle,
                    };
                }
            }
        }
        let mut message = Message::new();
        message.push(b"bindery: the catalog has no file `");
        message.push(wanted);
        message.push(b"`");
        let near = nearest(files, path);
        let mut shown = 0;
        while shown < near.len() {
            if let Some(index) = near[shown] {
                let before: &[u8] = if shown == 0 {
                    b"; did you mean `"
                } else {
                    b"`, or `"
                };
                message.push(before);
                message.push(files[index].const_path().as_bytes());
            }
            shown += 1;
        }
        if near[0].is_some() {
            message.push(b"`?");
        } else {
            message.push(b", nor one a few edits away");
        }
        name_rules(&mut message, self, wanted);
        panic!("{}", message.text())
    }
}

/// Makes an [`Asset`] in a `const`, wherever an expression may stand: `asset!(CATALOG,
/// "path")`, `CATALOG` being a `static` (or `const`) [`Catalog`], from [`embed!`](crate::embed)
/// or a generated module alike. A path the catalog does not hold fails the build, naming the
/// nearest ones it holds.
///
/// ```
/// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures", fingerprint = true);
///
/// fn stylesheet_link() -> String {
///     let style = bindery::asset!(SITE, "style.css");
///     format!(r#"<link rel="stylesheet" href="/{}">"#, style.url())
/// }
/// assert!(stylesheet_link().contains("style."));
/// ```
///
/// ```compile_fail,E0080
/// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
/// let _ = bindery::asset!(SITE, "styles.css");
/// ```
#[macro_export]
macro_rules! asset {
    ($catalog:path, $path:expr $(,)?) => {{
        const ASSET: $crate::Asset = $crate::Catalog::asset(&$catalog, $path);
        ASSET
    }};
}
