//! `bindery release`: saves the hashed files of a build as the next release of a releases
//! folder, which the next build's `releases` setting reads back (deploys that keep old tabs
//! working, and deltas against what returning visitors hold).

use std::path::PathBuf;

use bindery_codegen::{Bundler, Options, release};

use crate::Error;

/// Save the hashed files of a build (a bundler's, or fingerprinted names) as the next release
/// in a releases folder, for the next build's `releases`; keep the newest `--keep`.
///
/// ```
/// use clap::Parser;
/// let args = bindery_cli::ReleaseArgs::parse_from(["release", "dist", "--into", "releases", "--manifest", "vite"]);
/// assert_eq!(args.keep, 3);
/// ```
#[derive(Debug, Clone, clap::Parser)]
pub struct ReleaseArgs {
    /// The folder the build embeds (Vite's `dist`).
    pub dir: PathBuf,
    /// The releases folder (the build's `releases`); created when missing.
    #[arg(long)]
    pub into: PathBuf,
    /// How many releases to keep, this one included (the oldest beyond are removed).
    #[arg(long, default_value_t = release::DEFAULT_KEEP, value_parser = clap::value_parser!(u64).range(1..=release::MAX_KEEP))]
    pub keep: u64,
    /// The bundler whose manifest names the hashed files, as the build's `manifest`.
    #[arg(long, value_parser = ["vite"])]
    pub manifest: Option<String>,
    /// The build fingerprints its files (`fingerprint = true`): keep their fingerprinted names.
    #[arg(long)]
    pub fingerprint: bool,
    /// The build's `prefix`.
    #[arg(long, default_value = "")]
    pub prefix: String,
}

/// Saves the release `args` describe; what was done, as one line.
///
/// ```
/// use clap::Parser;
/// let into = tempfile::tempdir().unwrap();
/// let into_text = into.path().to_str().unwrap();
/// let args = bindery_cli::ReleaseArgs::parse_from(["release", "../../assets/fixtures", "--into", into_text, "--fingerprint"]);
/// let said = bindery_cli::save_release(&args).unwrap();
/// assert!(said.starts_with("saved release 1"), "{said}");
/// ```
pub fn save_release(args: &ReleaseArgs) -> Result<String, Error> {
    let bundler = match args.manifest.as_deref() {
        None => None,
        Some(word) => Some(
            word.parse::<Bundler>()
                .map_err(|error| Error::Usage(format!("--manifest: {error}")))?,
        ),
    };
    let options = Options::new(&args.dir)
        .manifest(bundler)
        .fingerprint(args.fingerprint)
        .prefix(&args.prefix);
    if let Err(problems) = options.validate() {
        let problem = problems.into_iter().next().map(|problem| problem.error);
        if let Some(source) = problem {
            return Err(Error::Invalid { flag: None, source });
        }
    }
    let manifest = options.build().map_err(Error::Build)?;
    let saved = release::save(&manifest, &args.into, args.keep).map_err(Error::Build)?;
    let mut said = if saved.wrote {
        format!(
            "saved release {} ({} files) in {}",
            saved.number,
            saved.files,
            saved.folder.display()
        )
    } else {
        format!(
            "release {} in {} already holds these {} files",
            saved.number,
            saved.folder.display(),
            saved.files
        )
    };
    if !saved.removed.is_empty() {
        let removed: Vec<String> = saved.removed.iter().map(u64::to_string).collect();
        said.push_str(&format!("; removed release(s) {}", removed.join(", ")));
    }
    Ok(said)
}
