//! `const BUNDLE: &BundleInfo = …;`: what the build knows of the catalog's hashed files, as
//! tables: the bundler's manifest (chunks, scripts, hashed files), the files kept from earlier
//! releases, and each hashed file's dictionary pattern and deltas (RFC 9842).

use std::fmt::Write as _;

use super::entry::cached_bytes;
use super::text::{push_digest_literal, push_string_literal};
use super::{Locator, push_list};
use crate::Manifest;

/// The `BUNDLE` item (`BundleInfo::NONE` when the build knows nothing of hashed files).
pub(super) fn table(manifest: &Manifest, private: &str, locator: &Locator) -> String {
    let kept: Vec<&str> = manifest
        .entries
        .iter()
        .filter(|entry| entry.kept.is_some())
        .map(|entry| entry.path.as_str())
        .collect();
    let has_dictionaries = manifest
        .entries
        .iter()
        .any(|entry| entry.dictionary.is_some());
    if manifest.bundle.is_none() && kept.is_empty() && !has_dictionaries {
        return format!(" const BUNDLE: &{private}::BundleInfo = &{private}::BundleInfo::NONE;");
    }
    let mut text =
        format!(" const BUNDLE: &{private}::BundleInfo = &{private}::BundleInfo {{ chunks: &[");
    let (chunks, scripts, bundled) = match &manifest.bundle {
        Some(bundle) => (&bundle.chunks[..], &bundle.scripts[..], &bundle.hashed[..]),
        None => (&[][..], &[][..], &[][..]),
    };
    for (index, chunk) in chunks.iter().enumerate() {
        if index > 0 {
            text.push_str(", ");
        }
        text.push_str(&format!("{private}::ChunkInfo {{ name: "));
        push_string_literal(&mut text, &chunk.name);
        text.push_str(", file: ");
        push_string_literal(&mut text, &chunk.file);
        text.push_str(&format!(", entry: {}, styles: &[", chunk.entry));
        push_list(&mut text, &chunk.styles);
        text.push_str("], preloads: &[");
        push_list(&mut text, &chunk.preloads);
        text.push_str("] }");
    }
    text.push_str("], scripts: &[");
    push_list(&mut text, scripts);
    // Kept files are served as the bundler's are: immutable, under their own names.
    let mut hashed: Vec<&str> = bundled
        .iter()
        .map(String::as_str)
        .chain(kept.iter().copied())
        .collect();
    hashed.sort_unstable();
    hashed.dedup();
    text.push_str("], hashed: &[");
    push_list(&mut text, &hashed);
    text.push_str("], kept: &[");
    push_list(&mut text, &kept);
    text.push_str("], dictionaries: &[");
    push_dictionaries(&mut text, manifest, private, locator);
    text.push_str("] };");
    text
}

/// One `DictionaryInfo` per file with a dictionary pattern, in path order, each with its deltas.
fn push_dictionaries(text: &mut String, manifest: &Manifest, private: &str, locator: &Locator) {
    let mut first = true;
    for entry in &manifest.entries {
        let Some(dictionary) = &entry.dictionary else {
            continue;
        };
        if !first {
            text.push_str(", ");
        }
        first = false;
        let _ = write!(text, "{private}::DictionaryInfo {{ path: ");
        push_string_literal(text, &entry.path);
        text.push_str(", pattern: ");
        push_string_literal(text, &dictionary.pattern);
        text.push_str(", destination: ");
        push_string_literal(text, dictionary.destination.unwrap_or(""));
        text.push_str(", deltas: { const DELTAS: &[");
        text.push_str(private);
        text.push_str("::DeltaInfo] = &[");
        for (index, delta) in dictionary.deltas.iter().enumerate() {
            if index > 0 {
                text.push_str(", ");
            }
            let _ = write!(text, "{private}::DeltaInfo {{ dictionary: ");
            push_digest_literal(text, &delta.dictionary);
            text.push_str(", coding: \"dcz\", bytes: ");
            text.push_str(&cached_bytes(manifest, &delta.blob, delta.len, locator).to_string());
            text.push_str(", etag: ");
            push_string_literal(text, &delta.etag);
            text.push_str(" }");
        }
        text.push_str("]; DELTAS } }");
    }
}
