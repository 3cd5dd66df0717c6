//! Every bad-input check, before anything is read or written: a failure here is a usage error
//! (exit status 2) and leaves the disk as it was.

use std::path::PathBuf;

use bindery_codegen::render::is_identifier;
use bindery_codegen::scan::compile_glob;
use bindery_codegen::{Error as CodegenError, Options, check_precompress, normalise_prefix};

use crate::{EmbedArgs, Error};

/// The codegen options the arguments describe, and the folder the module goes in (absolute).
pub(crate) fn validate(args: &EmbedArgs) -> Result<(Options, PathBuf), Error> {
    if !is_identifier(&args.name) {
        return Err(Error::Usage(format!(
            "--name `{}` is not a Rust identifier",
            args.name
        )));
    }
    for glob in args.include.iter().chain(&args.exclude) {
        compile_glob(glob).map_err(|error| Error::Usage(error.to_string()))?;
    }
    check_precompress(&args.precompress).map_err(|error| {
        Error::Usage(match error {
            CodegenError::DuplicateEncoding { encoding } => {
                format!("--precompress names `{encoding}` twice")
            }
            CodegenError::EncodingUnavailable { encoding, feature } => format!(
                "--precompress `{encoding}`: this bindery was built without its `{feature}` feature"
            ),
            other => format!("--precompress: {other}"),
        })
    })?;
    if let Some(prefix) = &args.prefix {
        normalise_prefix(prefix).map_err(|error| Error::Usage(error.to_string()))?;
    }
    let root = match std::fs::metadata(&args.dir) {
        Err(_) => {
            return Err(Error::Usage(format!(
                "folder `{}` does not exist",
                args.dir.display()
            )));
        }
        Ok(metadata) if !metadata.is_dir() => {
            return Err(Error::Usage(format!(
                "`{}` is not a folder",
                args.dir.display()
            )));
        }
        Ok(_) => std::fs::canonicalize(&args.dir).map_err(|error| {
            Error::Usage(format!("cannot read `{}`: {error}", args.dir.display()))
        })?,
    };
    if args.out.file_name().is_none() {
        return Err(Error::Usage(format!(
            "--out `{}` names no file",
            args.out.display()
        )));
    }
    let out_parent = match args.out.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let cannot_write = |error: std::io::Error| {
        Error::Usage(format!(
            "cannot write --out `{}`: {error}",
            args.out.display()
        ))
    };
    if !args.check {
        std::fs::create_dir_all(&out_parent).map_err(cannot_write)?;
    }
    let out_dir = std::fs::canonicalize(&out_parent)
        .unwrap_or_else(|_| std::path::absolute(&out_parent).unwrap_or(out_parent));
    if out_dir.starts_with(&root) {
        return Err(Error::Usage(format!(
            "--out `{}` is inside the embedded folder `{}`: the next run would embed it",
            args.out.display(),
            args.dir.display()
        )));
    }
    if !args.check {
        // Proves the folder writable before any work; the probe file is removed on drop.
        tempfile::NamedTempFile::new_in(&out_dir).map_err(cannot_write)?;
        if args.out.is_dir() {
            return Err(Error::Usage(format!(
                "--out `{}` is a folder",
                args.out.display()
            )));
        }
    }
    let mut options = Options::new(root)
        .mode(args.mode)
        .level(args.level)
        .include_hidden(args.hidden)
        .large_threshold(args.large.0)
        .precompress(args.precompress.iter().copied())
        .prefix(args.prefix.clone().unwrap_or_default());
    for glob in &args.include {
        options = options.include(glob.clone());
    }
    for glob in &args.exclude {
        options = options.exclude(glob.clone());
    }
    Ok((options, out_dir))
}
