//! Building a [`Manifest`] by stage: scan the folder, then for each file describe it (identity,
//! hash, media type) and store it (blobs, variants, snapshot) from at most one read, then pack
//! the small files, then check that no file changed while the build ran.

mod facts;
mod guard;
mod kept;
mod pack;
mod read;
mod siblings;
mod store;

use std::collections::HashMap;
use std::path::Path;

use crate::cache::{Cache, Hashes};
use crate::identity::Identity;
use crate::scan::{self, Filter, Found};
use crate::{Encoding, Entry, Error, Manifest, Mode, Options, Progress};
use bindery_core::rules::Modified;
use facts::Facts;
use pack::Described;
use store::{Plan, Storage};

impl Options {
    /// Scans the folder and builds the manifest: see [`Manifest`].
    pub fn build(&self) -> Result<Manifest, Error> {
        build(self, &mut |_| {})
    }

    /// Like [`build`](Self::build), reporting each file as it is done (for progress bars).
    ///
    /// ```
    /// let mut seen = 0;
    /// let manifest = bindery_codegen::Options::new("../../assets/fixtures")
    ///     .build_with_progress(&mut |progress| seen = progress.done)
    ///     .unwrap();
    /// assert_eq!(seen, manifest.entries.len());
    /// ```
    pub fn build_with_progress(
        &self,
        progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<Manifest, Error> {
        build(self, progress)
    }
}

/// The parts whose folder exists; for each other (missing under `allow_missing`), what its
/// error says is noted in `manifest`.
fn present_parts<'a>(
    parts: &'a [Options],
    manifest: &mut Manifest,
) -> Result<Vec<&'a Options>, Error> {
    let mut present = Vec::with_capacity(parts.len());
    for part in parts {
        if part.folder_exists()? {
            present.push(part);
        } else {
            let missing = Error::MissingFolder {
                path: part.root.clone(),
                hint: (!part.hint.is_empty()).then(|| part.hint.clone()),
            };
            manifest.missing.push(missing.to_string());
        }
    }
    Ok(present)
}

pub(crate) fn build(
    options: &Options,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Manifest, Error> {
    if let Err(problems) = options.validate() {
        return Err(first(problems));
    }
    let parts = options.parts();
    let mut manifest = empty_manifest(&parts)?;
    let present = present_parts(&parts, &mut manifest)?;
    if present.is_empty() {
        return Ok(manifest);
    }
    let cache = Cache::open(match &options.cache_dir {
        Some(dir) => dir.clone(),
        None => crate::default_cache_dir(&options.root)?,
    })?;
    let mut scans = Vec::with_capacity(present.len());
    for part in &present {
        scans.push(scan_part(part)?);
    }
    guard::sizes(options, &present, &scans)?;
    let date = source_date(options, &present, &mut manifest)?;
    let mut files = Vec::new();
    let mut owners = Vec::new();
    let mut scan_keys = Vec::with_capacity(present.len());
    for (index, (part, scanned)) in present.iter().zip(scans).enumerate() {
        let scan_key = part.rules.scan_key(&part.root);
        let prefix = part.normalised_prefix()?;
        let described = describe_all(part, &cache, &scan_key, &prefix, scanned, progress)?;
        owners.extend(std::iter::repeat_n(index, described.len()));
        files.extend(described);
        scan_keys.push(scan_key);
    }
    if present.len() > 1 {
        files = merge(files, &owners, &present)?;
    }
    if let Some(seconds) = date {
        for file in &mut files {
            file.entry.modified = Some(seconds);
        }
    }
    manifest.bundle = bundle(options, &files)?;
    if options.script_hashes {
        for file in &mut files {
            file.entry.script_hashes = crate::script_hashes::of(&file.entry)?;
        }
    }
    if options.fingerprint {
        let hashed = manifest
            .bundle
            .as_ref()
            .map_or(&[][..], |bundle| &bundle.hashed[..]);
        guard::fingerprints(&mut files, hashed)?;
    }
    kept::merge(options, &cache, &mut files, &mut manifest)?;
    kept::dictionaries(options, &cache, &mut files, &manifest)?;
    if options.pack {
        // The catalogs that would make this same pack from other files: the same folders,
        // filters and storage options. Their older packs are removed when a new one is written.
        let group = format!(
            "{}\0{:?}\0{:?}\0{:?}",
            scan_keys.join("\0"),
            options.mode,
            options.large_threshold,
            options.precompress
        );
        manifest.pack = pack::pack(&cache, &mut files, &group, options.snapshots)?;
    }
    check_unchanged(&files)?;
    manifest.entries = files.into_iter().map(|file| file.entry).collect();
    Ok(manifest)
}

/// With `manifest`, what the bundler's manifest in the first folder says of `files`.
fn bundle(options: &Options, files: &[Described]) -> Result<Option<crate::Bundle>, Error> {
    let Some(bundler) = options.manifest else {
        return Ok(None);
    };
    if !options.folder_exists()? {
        return Ok(None);
    }
    let paths: Vec<&str> = files.iter().map(|file| file.entry.path.as_str()).collect();
    let prefix = options.normalised_prefix()?;
    crate::bundle::read(bundler, &options.root, &prefix, &paths).map(Some)
}

/// One folder's files, and its precompressed siblings taken out of them when asked.
fn scan_part(part: &Options) -> Result<(Vec<Found>, siblings::Siblings), Error> {
    let filter = Filter::for_rules(&part.rules, &part.root)?;
    let mut found = scan::scan(&part.root, &filter)?;
    let siblings = if part.rules.siblings {
        siblings::split(&mut found)
    } else {
        siblings::Siblings::new()
    };
    Ok((found, siblings))
}

/// With `modified = "source-date-epoch"`, the one date of every file: the latest of the
/// folders' dates, recorded in the manifest's rules (dev mode reads it back).
fn source_date(
    options: &Options,
    present: &[&Options],
    manifest: &mut Manifest,
) -> Result<Option<u64>, Error> {
    if options.rules.modified != Modified::SourceDateEpoch {
        return Ok(None);
    }
    let mut latest: Option<crate::SourceDate> = None;
    for part in present {
        let date = crate::source_date::resolve(&part.root, options.crate_dir.as_deref())?;
        if latest
            .as_ref()
            .is_none_or(|known| date.seconds > known.seconds)
        {
            latest = Some(date);
        }
    }
    let seconds = latest.as_ref().map(|date| date.seconds);
    manifest.rules.date = seconds;
    for folder in &mut manifest.more_folders {
        folder.rules.date = seconds;
    }
    manifest.source_date = latest;
    Ok(seconds)
}

/// The files of several folders (`owners`: the index in `present` of each one's folder) in one
/// catalog order; two that give one path fail the build, naming both files and their folders.
fn merge(
    files: Vec<Described>,
    owners: &[usize],
    present: &[&Options],
) -> Result<Vec<Described>, Error> {
    let mut tagged: Vec<(usize, Described)> = owners.iter().copied().zip(files).collect();
    // Stable: of two files with one path, the first folder's comes first.
    tagged.sort_by(|left, right| left.1.entry.path.cmp(&right.1.entry.path));
    if let Some(pair) = tagged
        .windows(2)
        .find(|pair| pair[0].1.entry.path == pair[1].1.entry.path)
    {
        let [(first_owner, first), (second_owner, second)] = pair else {
            unreachable!("windows(2) gives pairs");
        };
        return Err(Error::FolderOverlap {
            key: first.entry.path.clone(),
            files: Box::new([first.entry.source.clone(), second.entry.source.clone()]),
            folders: Box::new([
                present[*first_owner].root.clone(),
                present[*second_owner].root.clone(),
            ]),
        });
    }
    Ok(tagged.into_iter().map(|(_, file)| file).collect())
}

/// The manifest of these folders before any file is added.
fn empty_manifest(parts: &[Options]) -> Result<Manifest, Error> {
    let options = &parts[0];
    let mut more_folders = Vec::with_capacity(parts.len() - 1);
    for part in &parts[1..] {
        more_folders.push(crate::manifest::Folder {
            root: part.root.clone(),
            prefix: part.normalised_prefix()?,
            rules: part.rules.clone(),
        });
    }
    Ok(Manifest {
        mode: options.mode,
        root: options.root.clone(),
        prefix: options.normalised_prefix()?,
        entries: Vec::new(),
        large_threshold: options.large_threshold,
        rules: options.rules.clone(),
        more_folders,
        pack: None,
        name_sources: true,
        crate_path: options.crate_path.clone(),
        source_date: None,
        fingerprint: options.fingerprint,
        bundle: None,
        release_records: Vec::new(),
        missing: Vec::new(),
    })
}

/// How every file of these options is stored.
fn plan(options: &Options) -> Plan {
    Plan {
        mode: options.mode,
        level: options.level,
        encodings: variant_encodings(options),
        modified: options.rules.modified == Modified::Files,
        pack: options.pack,
        snapshots: options.snapshots,
        integrity: options.rules.integrity,
        siblings: siblings::Siblings::new(),
        large: crate::DEFAULT_LARGE_THRESHOLD.min(options.large_threshold.unwrap_or(u64::MAX)),
    }
}

/// Describes and stores every file found, in order, reporting each; remembers their hashes.
fn describe_all(
    options: &Options,
    cache: &Cache,
    scan_key: &str,
    prefix: &str,
    (found_files, siblings): (Vec<Found>, siblings::Siblings),
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Vec<Described>, Error> {
    let mut plan = plan(options);
    plan.siblings = siblings;
    let mut hashes = Hashes::load(cache, scan_key);
    let mut media_types = MediaTypes::new(options)?;
    let total = found_files.len();
    let mut files = Vec::with_capacity(total);
    for found in found_files {
        let file = describe(cache, &plan, &mut hashes, &mut media_types, prefix, found)?;
        progress(Progress {
            done: files.len() + 1,
            total,
            path: &file.entry.path,
            len: file.entry.len,
        });
        files.push(file);
    }
    hashes.save();
    media_types.check(options.deny_unknown_types)?;
    Ok(files)
}

/// Fails naming the first file whose identity is not what it was when the build described it:
/// what would be embedded might not be what was hashed.
fn check_unchanged(files: &[Described]) -> Result<(), Error> {
    match files
        .iter()
        .find(|file| Identity::at(&file.entry.source) != file.identity)
    {
        Some(file) => Err(Error::Changed {
            path: file.entry.source.clone(),
        }),
        None => Ok(()),
    }
}

/// Media types: the `types` rules by catalog path, else by extension (a guess is a table
/// search, slow in the unoptimised builds proc macros get, and depends on the extension only);
/// the files no rule or table knows are noted for `unknown_types = "deny"`.
struct MediaTypes {
    rules: bindery_core::describe::MediaTypes,
    /// By extension: whether a table knows it, the media type, its `Content-Type`.
    by_extension: HashMap<String, (bool, &'static str, String)>,
    unknown: Vec<String>,
}

impl MediaTypes {
    fn new(options: &Options) -> Result<Self, Error> {
        Ok(MediaTypes {
            rules: bindery_core::describe::MediaTypes::new(&options.rules.types)?,
            by_extension: HashMap::new(),
            unknown: Vec::new(),
        })
    }

    /// The media type and `Content-Type` of the file at catalog path `path`.
    fn of(&mut self, path: &str) -> (String, String) {
        if let Some(chosen) = self.rules.of(path) {
            return (chosen.to_owned(), crate::describe::content_type(chosen));
        }
        let extension = Path::new(path)
            .extension()
            .map(|extension| extension.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (known, mime, content_type) = self.by_extension.entry(extension).or_insert_with(|| {
            let mime = crate::describe::mime(path);
            let known = crate::describe::known_mime(path).is_some();
            (known, mime, crate::describe::content_type(mime))
        });
        if !*known {
            self.unknown.push(path.to_owned());
        }
        ((*mime).to_owned(), content_type.clone())
    }

    /// Under `unknown_types = "deny"`, the error naming every file no rule or table knows.
    fn check(mut self, deny: bool) -> Result<(), Error> {
        if !deny || self.unknown.is_empty() {
            return Ok(());
        }
        self.unknown.sort();
        Err(Error::UnknownMediaTypes {
            files: self.unknown,
        })
    }
}

/// One file: its identity before anything is read, its hash (remembered, or from its one read),
/// its storage (from the cache, or made from that read), and the facts recorded about it.
fn describe(
    cache: &Cache,
    plan: &Plan,
    hashes: &mut Hashes,
    media_types: &mut MediaTypes,
    prefix: &str,
    found: Found,
) -> Result<Described, Error> {
    let identity = Identity::at(&found.source);
    let source_time = identity.and_then(pack::modification_time);
    let remembered = hashes
        .known(&found.relative, identity, plan.integrity)
        .zip(identity.map(|identity| identity.len));
    let from_cache = match remembered {
        Some((digests, len)) => {
            let facts = Facts {
                hash: &digests.hash,
                len,
                source_time,
                source: &found.source,
                siblings: plan.siblings_of(&found.relative),
            };
            store::storage(cache, plan, facts, None)?.map(|storage| (digests, len, storage))
        }
        None => None,
    };
    let (digests, len, storage, contents) = match from_cache {
        Some((digests, len, storage)) => (digests, len, storage, None),
        None => read_and_store(cache, plan, hashes, &found, identity)?,
    };
    let crate::describe::Digests {
        hash,
        sha256,
        integrity,
    } = digests;
    let Storage {
        stored,
        variants,
        is_packed,
        snapshot,
    } = storage;
    let (mime, content_type) = media_types.of(&format!("{prefix}{}", found.relative));
    let modified = if plan.modified {
        source_time
            .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|since| since.as_secs())
    } else {
        None
    };
    Ok(Described {
        entry: Entry {
            path: format!("{prefix}{}", found.relative),
            source: found.source,
            len,
            etag: bindery_core::etag(&hash, bindery_core::Tagged::File),
            hash,
            sha256,
            integrity,
            fingerprinted: None,
            mime,
            content_type,
            modified,
            stored,
            variants,
            snapshot,
            script_hashes: Vec::new(),
            kept: None,
            dictionary: None,
        },
        identity,
        contents: if is_packed { contents } else { None },
        is_packed,
    })
}

/// The file's one read, and its storage made from it where the cache lacks it.
fn read_and_store(
    cache: &Cache,
    plan: &Plan,
    hashes: &mut Hashes,
    found: &Found,
    identity: Option<Identity>,
) -> Result<
    (
        crate::describe::Digests,
        u64,
        Storage,
        Option<read::Contents>,
    ),
    Error,
> {
    let read = read::read(
        cache,
        &found.source,
        identity,
        plan.large,
        plan.keeps_large(),
        plan.integrity,
    )?;
    hashes.learn(&found.relative, identity, read.len, &read.digests);
    let mut contents = read.contents;
    let facts = Facts {
        hash: &read.digests.hash,
        len: read.len,
        source_time: identity.and_then(pack::modification_time),
        source: &found.source,
        siblings: plan.siblings_of(&found.relative),
    };
    let storage = store::storage(cache, plan, facts, Some(&mut contents))?
        .ok_or_else(|| internal(&found.source))?;
    Ok((read.digests, read.len, storage, Some(contents)))
}

fn internal(path: &Path) -> Error {
    Error::read(
        path,
        std::io::Error::other("bindery: internal error: a stored form could not be made"),
    )
}

/// The first of a validation's problems: what [`Options::build`] fails with.
fn first(problems: Vec<crate::Problem>) -> Error {
    problems
        .into_iter()
        .next()
        .map_or_else(|| internal(Path::new("")), |problem| problem.error)
}

/// The encodings to add as variants, in [`Encoding::ALL`] order: those asked for, less gzip in
/// gzip mode (the stored bytes are the gzip representation).
fn variant_encodings(options: &Options) -> Vec<Encoding> {
    Encoding::ALL
        .into_iter()
        .filter(|encoding| options.precompress.contains(encoding))
        .filter(|&encoding| !(options.mode == Mode::Gzip && encoding == Encoding::Gzip))
        .collect()
}
