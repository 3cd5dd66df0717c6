//! Vite's dev server beside a debug build (feature `dev`): with its origin given
//! (`VITE_DEV_SERVER`, or [`Builder::vite_dev_server`](crate::serve::Builder::vite_dev_server)),
//! the entry tags of a catalog with a bundler's manifest load what Vite's backend-integration
//! guide prescribes in development, from the dev server: React's refresh preamble where the
//! front end uses `@vitejs/plugin-react`, Vite's client, then each entry's source modules, so an
//! edit is a hot update. [`Csp::entry_tags`](crate::serve::Csp::entry_tags) then allows that
//! origin, its WebSocket and the nonce Vite gives the styles it injects. Compiled only in builds
//! with debug assertions: a release binary holds none of it.
//!
//! An HTML entry (`index.html`) names its modules in the source HTML only: they come from the
//! record `bindery_codegen::Frontend` writes beside Vite's build (`bindery_core::dev_record`).

use std::fmt::Write as _;

use bindery_core::dev_record::{self, Record};

use crate::serve::Csp;
use crate::serve::setup::build_error::BuildError;
use crate::{Catalog, Error};

/// The variable that gives the dev server's origin.
pub(crate) const VARIABLE: &str = "VITE_DEV_SERVER";

/// The dev server a service's entry tags load from.
#[derive(Debug)]
pub(crate) struct DevServer {
    /// `http://127.0.0.1:5173`: scripts, styles, images and fonts come from it.
    origin: String,
    /// `ws://127.0.0.1:5173`: Vite's client listens for updates on it.
    socket: String,
    /// The origin and Vite's `base` (the mount point, with the catalog's prefix).
    base: String,
    /// What `Frontend::vite` recorded beside the build: each HTML entry's modules, and
    /// whether the front end uses React's plugin, which needs the refresh preamble.
    record: Record,
    /// The nonce Vite's client puts on the styles it injects (`<meta property="csp-nonce">`).
    nonce: String,
}

impl DevServer {
    /// The dev server for `catalog` under `mount`: at `given`, else at the variable's origin;
    /// none without either, or for a catalog without a bundler's manifest.
    pub(crate) fn resolve(
        given: Option<&str>,
        catalog: &'static Catalog,
        mount: &str,
    ) -> Result<Option<DevServer>, BuildError> {
        if catalog.entries().len() == 0 {
            return Ok(None);
        }
        let from_env = std::env::var(VARIABLE).ok();
        let Some(origin) = given
            .or(from_env.as_deref())
            .map(str::trim)
            .filter(|origin| !origin.is_empty())
        else {
            return Ok(None);
        };
        let (origin, socket) = parse(origin).map_err(|reason| BuildError::DevServer {
            origin: origin.to_owned(),
            reason,
        })?;
        let mut server = DevServer {
            base: format!("{origin}{mount}/{}", catalog.prefix()),
            origin,
            socket,
            record: Record::default(),
            nonce: nonce(),
        };
        for source in catalog.dev {
            let record = std::path::Path::new(source.root).join(dev_record::PATH);
            if let Ok(text) = std::fs::read_to_string(record) {
                server.record.add(&text);
            }
        }
        Ok(Some(server))
    }

    /// The modules that load `names` (checked against the manifest, as in release): an HTML
    /// entry's recorded modules, or the entry itself, each once.
    fn modules<'a>(&'a self, catalog: &Catalog, names: &[&'a str]) -> Result<Vec<&'a str>, Error> {
        crate::serve::setup::tags::entries(catalog, names)?;
        let mut modules: Vec<&str> = Vec::new();
        for name in names {
            let loaded: Vec<&str> = if name.ends_with(".html") {
                self.record
                    .entries
                    .iter()
                    .find(|(html, _)| html == name)
                    .map(|(_, modules)| modules.iter().map(String::as_str).collect())
                    .ok_or_else(|| Error::NoDevModules {
                        name: (*name).to_owned(),
                    })?
            } else {
                vec![name]
            };
            for module in loaded {
                if !modules.contains(&module) {
                    modules.push(module);
                }
            }
        }
        Ok(modules)
    }

    /// The URLs on the dev server that load `names`: Vite's client, then each module.
    fn urls(&self, catalog: &Catalog, names: &[&str]) -> Result<Vec<String>, Error> {
        let modules = self.modules(catalog, names)?;
        let module = |module: &&str| {
            let path =
                percent_encoding::utf8_percent_encode(module, crate::serve::http::path::URL_PATH);
            format!("{}{path}", self.base)
        };
        let client = format!("{}@vite/client", self.base);
        Ok(std::iter::once(client)
            .chain(modules.iter().map(module))
            .collect())
    }

    /// The inline module React's plugin needs before any component runs: the refresh runtime
    /// hooked in, and the registration functions its transform calls.
    fn preamble(&self) -> String {
        format!(
            "import {{ injectIntoGlobalHook }} from \"{}@react-refresh\";\n\
             injectIntoGlobalHook(window);\n\
             window.$RefreshReg$ = () => {{}};\n\
             window.$RefreshSig$ = () => (type) => type;\n\
             window.__vite_plugin_react_preamble_installed__ = true;",
            self.base
        )
    }

    /// The tags that load `names` from the dev server: the nonce's `meta`, the preamble, Vite's
    /// client and the modules.
    pub(crate) fn tags(&self, catalog: &Catalog, names: &[&str]) -> Result<String, Error> {
        let urls = self.urls(catalog, names)?;
        let mut html = format!(r#"<meta property="csp-nonce" nonce="{}">"#, self.nonce);
        if self.record.react {
            let _ = write!(
                html,
                "\n<script type=\"module\">{}</script>",
                self.preamble()
            );
        }
        for url in urls {
            let _ = write!(html, "\n<script type=\"module\" src=\"{url}\"></script>");
        }
        Ok(html)
    }

    /// The `Link` header value preloading Vite's client and the modules of `names`.
    pub(crate) fn link(&self, catalog: &Catalog, names: &[&str]) -> Result<String, Error> {
        Ok(self
            .urls(catalog, names)?
            .iter()
            .map(|url| format!("<{url}>; rel=modulepreload; crossorigin"))
            .collect::<Vec<_>>()
            .join(", "))
    }

    /// `policy` allowing the tags: the origin for scripts (and the preamble's hash), styles (and
    /// the nonce), images, fonts and fetches, and its WebSocket.
    pub(crate) fn allow(&self, policy: Csp) -> Csp {
        let preamble = self
            .record
            .react
            .then(|| crate::serve::setup::tags::csp_hash(&self.preamble()));
        let nonce = format!("'nonce-{}'", self.nonce);
        let origin = self.origin.as_str();
        policy
            .add(
                "script-src",
                std::iter::once(origin).chain(preamble.as_deref()),
            )
            .add("style-src", [origin, nonce.as_str()])
            .add("img-src", [origin])
            .add("font-src", [origin])
            .add("connect-src", [origin, self.socket.as_str()])
    }
}

/// The origin (`http://host:port`) and its WebSocket's (`ws://host:port`) of a dev server's
/// address; why not, for anything but an `http` or `https` origin.
fn parse(text: &str) -> Result<(String, String), &'static str> {
    let uri = http::Uri::try_from(text.trim_end_matches('/'))
        .map_err(|_| "not a URL such as http://localhost:5173")?;
    let socket = match uri.scheme_str() {
        Some("http") => "ws",
        Some("https") => "wss",
        _ => return Err("not an http:// or https:// URL"),
    };
    let authority = uri.authority().ok_or("without a host")?.as_str();
    if authority.contains('@') {
        return Err("not an origin: it names a user");
    }
    if !matches!(uri.path(), "" | "/") || uri.query().is_some() {
        return Err("not an origin: it has a path (Vite's base is the mount point)");
    }
    let scheme = uri.scheme_str().unwrap_or("http");
    Ok((
        format!("{scheme}://{authority}"),
        format!("{socket}://{authority}"),
    ))
}

/// A random nonce, made once per service (the page that carries it is rendered once).
fn nonce() -> String {
    use std::hash::{BuildHasher as _, Hasher as _};
    let state = std::collections::hash_map::RandomState::new();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos());
    let word = |index: u8| {
        let mut hasher = state.build_hasher();
        hasher.write_u8(index);
        hasher.write_u128(now);
        hasher.finish()
    };
    format!("{:016x}{:016x}", word(0), word(1))
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn an_origin_gives_its_websocket_and_anything_else_is_refused() {
        assert_eq!(
            parse("http://127.0.0.1:5173/"),
            Ok(("http://127.0.0.1:5173".into(), "ws://127.0.0.1:5173".into()))
        );
        assert_eq!(
            parse("https://dev.example"),
            Ok(("https://dev.example".into(), "wss://dev.example".into()))
        );
        for bad in [
            "localhost:5173",
            "ftp://x",
            "http://u@x",
            "http://x/base/",
            "http://x/?q",
            "http://",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
