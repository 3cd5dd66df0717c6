//! The flags of `bindery embed`, and the command line that regenerates a module, recorded in its
//! header.

use std::path::PathBuf;

use bindery_codegen::{
    DEFAULT_LARGE_THRESHOLD, DEFAULT_LEVEL, Encoding, Integrity, Mode, parse_large_threshold,
    parse_size,
};

const EXAMPLES: &str = "Examples:
  bindery embed assets/spa
      writes ./bindata.rs defining `pub static ASSETS: bindery::Catalog` (static mode)
  bindery embed assets/spa --mode gzip --out src/spa.rs --name SPA --exclude '**/*.map'
      writes src/spa.rs and its compressed blobs in src/spa/
  bindery embed assets/spa --mode gzip --out src/spa.rs --name SPA --exclude '**/*.map' --check
      exits 1, naming each stale file, if regenerating would change anything (for CI)

Use the module with `mod spa;` (or `include!`) and a dependency on `bindery`.
Exit status: 0 done or up to date, 1 stale (--check) or a failure, 2 bad arguments or input.";

/// Flags of `bindery embed` (and of `cargo xtask embed` in a project whose xtask calls
/// [`run`](crate::run)).
///
/// ```
/// use clap::Parser;
///
/// #[derive(Parser)]
/// struct Command {
///     #[command(flatten)]
///     embed: bindery_cli::EmbedArgs,
/// }
///
/// let command = Command::parse_from(["embed", "assets/spa", "--mode", "gzip", "--name", "SPA"]);
/// assert_eq!(command.embed.name, "SPA");
/// assert_eq!(command.embed.out, std::path::Path::new("bindata.rs"));
/// ```
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct EmbedArgs {
    /// The folder to embed, e.g. `assets/spa`. `$VAR` and `${VAR}` are replaced by environment
    /// variables when the shell left them (single quotes), e.g. `'$OUT_DIR/dist'`; `$$` is a `$`.
    pub dir: PathBuf,
    /// How the catalog stores files: `static` (zero copy), `gzip` (compressed once, sent as-is
    /// to clients that accept gzip) or `copy` (copied on every read).
    #[arg(long, default_value = "static", value_parser = parse_mode)]
    pub mode: Mode,
    /// The module to write, e.g. `src/spa.rs`; gzip blobs go in a folder named after it
    /// (`src/spa/`).
    #[arg(long, default_value = "bindata.rs")]
    pub out: PathBuf,
    /// The name of the generated `pub static`, e.g. `SPA`.
    #[arg(long, default_value = "ASSETS")]
    pub name: String,
    /// A path put before every catalog path, e.g. `static` gives `static/index.html`.
    #[arg(long)]
    pub prefix: Option<String>,
    /// Embed only files matching this glob (relative to the folder; repeatable), e.g. `'**/*.js'`.
    #[arg(long = "include", value_name = "GLOB")]
    pub include: Vec<String>,
    /// Leave out files matching this glob (repeatable; wins over --include), e.g. `'**/*.map'`.
    #[arg(long = "exclude", value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Gzip level, 0 to 9 (gzip mode).
    #[arg(long, default_value_t = DEFAULT_LEVEL, value_parser = clap::value_parser!(u32).range(0..=9))]
    pub level: u32,
    /// Wire variants to precompress, comma-separated: `br`, `zstd`, `gzip` (any mode). Each is
    /// made once per file content, kept where it saves 5% or more, and sent as-is to clients
    /// that accept it; in gzip mode, gzip is always there.
    #[arg(long, value_name = "ENCODINGS", value_delimiter = ',', value_parser = parse_encoding)]
    pub precompress: Vec<Encoding>,
    /// Embed files and folders whose name starts with `.`.
    #[arg(long)]
    pub hidden: bool,
    /// Stored size in bytes from which a file enters the binary through the assembler
    /// (`.incbin`) instead of `include_bytes!`, sparing rustc; `0` for every file, `off` never.
    #[arg(long, value_name = "BYTES|off", default_value = "1048576", value_parser = parse_large)]
    pub large: Large,
    /// Dev mode (go-bindata's `-debug`): in debug builds with bindery's `dev` feature, the
    /// catalog reads the folder from disk as it is now, with the same rules; release builds
    /// always embed. The module must be inside a crate (a `Cargo.toml` above `--out`).
    #[arg(long)]
    pub dev: bool,
    /// The path the module names the runtime by, for a crate that re-exports bindery
    /// (`pub use bindery;`), e.g. `my_crate::bindery`.
    #[arg(long, value_name = "PATH", default_value = bindery_codegen::DEFAULT_CRATE_PATH)]
    pub crate_path: String,
    /// Give every file one date, the same for every build of one commit on any machine:
    /// `SOURCE_DATE_EPOCH`, else the time of the last commit that touched the folder (or the
    /// current folder). Served as `Last-Modified`.
    #[arg(long, value_name = "source-date-epoch", value_parser = ["source-date-epoch"])]
    pub modified: Option<String>,
    /// The Subresource Integrity algorithm of each file's `integrity()`: `sha256`, `sha384` or
    /// `sha512`.
    #[arg(long, value_name = "ALGORITHM", default_value = "sha384", value_parser = parse_integrity)]
    pub integrity: Integrity,
    /// `siblings`: use the `.br`, `.gz` and `.zst` files beside each file as its variants (once
    /// checked to decode to it) instead of compressing it again; they are not listed.
    #[arg(long, value_name = "siblings", value_parser = ["siblings"])]
    pub precompressed: Option<String>,
    /// Leave out what the folder's `.gitignore` and `.ignore` files ignore, as ripgrep does.
    #[arg(long)]
    pub gitignore: bool,
    /// Make each file also addressable under a content-hashed name (`app.css` →
    /// `app.3f2a9c1d4e5b.css`), served `immutable`; `ASSETS.url("app.css")` gives it.
    #[arg(long)]
    pub fingerprint: bool,
    /// Refuse any file larger than this, e.g. `10MiB`, naming the largest.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_file_size: Option<u64>,
    /// Refuse a folder whose files add up to more than this, e.g. `100MiB`, naming the largest.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_total_size: Option<u64>,
    /// Write nothing; exit 1, naming each stale file, if regenerating would change anything.
    #[arg(long)]
    pub check: bool,
    /// Replace `--out` even when it exists and is not a module `bindery embed` wrote (its header
    /// tells); without it, such a file is left alone and the run fails.
    #[arg(long)]
    pub force: bool,
}

fn parse_mode(text: &str) -> Result<Mode, String> {
    text.parse::<Mode>().map_err(|error| error.to_string())
}

fn parse_integrity(text: &str) -> Result<Integrity, String> {
    text.parse::<Integrity>().map_err(|error| error.to_string())
}

fn parse_encoding(text: &str) -> Result<Encoding, String> {
    text.parse::<Encoding>().map_err(|error| error.to_string())
}

/// The `--large` threshold: `None` is `off`.
///
/// ```
/// use bindery_cli::Large;
/// assert_eq!(Large(None), Large(None));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Large(pub Option<u64>);

fn parse_large(text: &str) -> Result<Large, String> {
    parse_large_threshold(text).map(Large)
}

impl EmbedArgs {
    /// The arguments that regenerate the module, as recorded in its header: deterministic, with
    /// the paths as they were given, defaults left out, shell-quoted where needed.
    pub(crate) fn command_line(&self) -> String {
        let mut words = vec![
            self.dir.display().to_string(),
            "--mode".into(),
            self.mode.to_string(),
            "--out".into(),
            self.out.display().to_string(),
            "--name".into(),
            self.name.clone(),
        ];
        if let Some(prefix) = &self.prefix {
            words.extend(["--prefix".into(), prefix.clone()]);
        }
        for glob in &self.include {
            words.extend(["--include".into(), glob.clone()]);
        }
        for glob in &self.exclude {
            words.extend(["--exclude".into(), glob.clone()]);
        }
        if self.mode == Mode::Gzip && self.level != DEFAULT_LEVEL {
            words.extend(["--level".into(), self.level.to_string()]);
        }
        if !self.precompress.is_empty() {
            let names: Vec<&str> = self.precompress.iter().map(|e| e.as_str()).collect();
            words.extend(["--precompress".into(), names.join(",")]);
        }
        if self.hidden {
            words.push("--hidden".into());
        }
        if self.dev {
            words.push("--dev".into());
        }
        if self.crate_path != bindery_codegen::DEFAULT_CRATE_PATH {
            words.extend(["--crate-path".into(), self.crate_path.clone()]);
        }
        if let Some(modified) = &self.modified {
            words.extend(["--modified".into(), modified.clone()]);
        }
        if self.integrity != Integrity::default() {
            words.extend(["--integrity".into(), self.integrity.as_str().to_owned()]);
        }
        if self.fingerprint {
            words.push("--fingerprint".into());
        }
        if self.gitignore {
            words.push("--gitignore".into());
        }
        if let Some(precompressed) = &self.precompressed {
            words.extend(["--precompressed".into(), precompressed.clone()]);
        }
        if let Some(bytes) = self.max_file_size {
            words.extend(["--max-file-size".into(), bytes.to_string()]);
        }
        if let Some(bytes) = self.max_total_size {
            words.extend(["--max-total-size".into(), bytes.to_string()]);
        }
        if self.large.0 != Some(DEFAULT_LARGE_THRESHOLD) {
            let threshold = self
                .large
                .0
                .map_or_else(|| "off".to_owned(), |bytes| bytes.to_string());
            words.extend(["--large".into(), threshold]);
        }
        words
            .iter()
            .map(|word| shell_quote(word))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// `word` as one shell word: as it is when it holds only safe characters, else single-quoted.
fn shell_quote(word: &str) -> String {
    let is_safe = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./:=@%+,-".contains(c));
    if is_safe {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::shell_quote;

    #[test]
    fn shell_quote_leaves_safe_words_and_quotes_the_rest() {
        assert_eq!(shell_quote("assets/spa"), "assets/spa");
        assert_eq!(shell_quote("**/*.map"), "'**/*.map'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}
