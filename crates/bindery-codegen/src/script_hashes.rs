//! The CSP hashes of an HTML file's inline scripts (`script_hashes = true`): each `<script>`
//! without `src`, its text as a browser's parser gives it (html5ever, through scraper: line
//! ends normalised, nothing decoded inside the script), hashed with SHA-256.

use crate::{Entry, Error};

/// The `'sha256-…'` source of each inline script of `entry`, when it is HTML; the bytes read
/// again are checked against the build's hash, so the hashes are of what is embedded.
pub(crate) fn of(entry: &Entry) -> Result<Vec<String>, Error> {
    if entry.mime != "text/html" {
        return Ok(Vec::new());
    }
    let source = entry.snapshot.as_deref().unwrap_or(&entry.source);
    let bytes = std::fs::read(source).map_err(|error| Error::read(source, error))?;
    if crate::describe::hash(&bytes) != entry.hash {
        return Err(Error::Changed {
            path: entry.source.clone(),
        });
    }
    Ok(hashes(&String::from_utf8_lossy(&bytes)))
}

#[cfg(feature = "csp")]
fn hashes(html: &str) -> Vec<String> {
    use base64::Engine as _;
    use sha2::Digest as _;

    let document = scraper::Html::parse_document(html);
    let Ok(inline) = scraper::Selector::parse("script:not([src])") else {
        return Vec::new();
    };
    let mut hashes: Vec<String> = Vec::new();
    for script in document.select(&inline) {
        let text: String = script.text().collect();
        let digest = sha2::Sha256::digest(text.as_bytes());
        let hash = format!(
            "'sha256-{}'",
            base64::engine::general_purpose::STANDARD.encode(digest)
        );
        if !hashes.contains(&hash) {
            hashes.push(hash);
        }
    }
    hashes
}

/// Without the `csp` feature validation refuses `script_hashes` before a build starts.
#[cfg(not(feature = "csp"))]
fn hashes(_html: &str) -> Vec<String> {
    Vec::new()
}
