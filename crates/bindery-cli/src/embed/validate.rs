//! Every bad-input check, before anything is read or written: a failure here is a usage error
//! (exit status 2) and leaves the disk as it was.

use std::path::PathBuf;

use bindery_codegen::render::is_identifier;
use bindery_codegen::{Concern, Options};

use crate::embed::plan::HEADER_START;
use crate::{EmbedArgs, Error};

/// Whether `out` is a file that a run must not replace: it exists and does not begin with the
/// header of a generated module.
fn is_foreign(out: &std::path::Path) -> bool {
    use std::io::Read;
    let Ok(file) = std::fs::File::open(out) else {
        return false;
    };
    let mut start = Vec::new();
    let _ = file.take(HEADER_START.len() as u64).read_to_end(&mut start);
    start != HEADER_START.as_bytes()
}

/// The codegen options the arguments describe, and the folder the module goes in (absolute).
pub(crate) fn validate(args: &EmbedArgs) -> Result<(Options, PathBuf), Error> {
    if !is_identifier(&args.name) {
        return Err(Error::Usage(format!(
            "--name `{}` is not a Rust identifier",
            args.name
        )));
    }
    // `'$OUT_DIR/dist'`: variables the shell left are replaced first.
    let mut dirs = vec![expanded_dir(&args.dir)?];
    for folder in &args.folders {
        dirs.push(expanded_dir(&folder.dir)?);
    }
    // Every rule codegen knows is checked by codegen, the folders shown as they were given.
    if let Err(problems) = options(args, &dirs)?.validate() {
        let problem = problems.into_iter().next().ok_or_else(|| {
            Error::Usage("internal error: a validation failed without a problem".to_owned())
        })?;
        let flag = flag(problem.concern).map(|flag| match problem.folder.checked_sub(1) {
            Some(index) => format!("{flag} of --folder {}", args.folders[index].dir.display()),
            None => flag,
        });
        return Err(Error::Invalid {
            flag,
            source: problem.error,
        });
    }
    let mut roots = Vec::with_capacity(dirs.len());
    for dir in &dirs {
        match std::fs::canonicalize(dir) {
            Ok(root) => roots.push(root),
            // A further folder allowed to be missing stays as given.
            Err(_) if !roots.is_empty() && !dir.exists() => roots.push(dir.clone()),
            Err(error) => {
                return Err(Error::Usage(format!(
                    "cannot read `{}`: {error}",
                    dir.display()
                )));
            }
        }
    }
    let out_dir = out_dir(args, &roots)?;
    Ok((options(args, &roots)?, out_dir))
}

/// The folder the module goes in (absolute, created unless `--check`), once `--out` is known to
/// be writable, outside the embedded folder `root` with its blob folder, and not a file of the
/// user's.
fn out_dir(args: &EmbedArgs, roots: &[PathBuf]) -> Result<PathBuf, Error> {
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
    let given = |root: &std::path::Path| {
        let index = roots.iter().position(|known| known == root).unwrap_or(0);
        match index.checked_sub(1) {
            Some(index) => args.folders[index].dir.display().to_string(),
            None => args.dir.display().to_string(),
        }
    };
    if let Some(root) = roots.iter().find(|root| out_dir.starts_with(root)) {
        return Err(Error::Usage(format!(
            "--out `{}` is inside the embedded folder `{}`: the next run would embed it",
            args.out.display(),
            given(root)
        )));
    }
    // The blobs go in a folder named after the module: never the embedded folder or one inside
    // it, which the next run would embed (and whose files stale-blob removal could delete).
    if let Some(stem) = args.out.file_stem() {
        let blob_dir = out_dir.join(stem);
        if let Some(root) = roots.iter().find(|root| blob_dir.starts_with(root)) {
            return Err(Error::Usage(format!(
                "--out `{}` would put its blobs in `{}`, inside the embedded folder `{}`: choose \
                 another --out",
                args.out.display(),
                blob_dir.display(),
                given(root)
            )));
        }
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
        if !args.force && is_foreign(&args.out) {
            return Err(Error::Usage(format!(
                "--out `{}` exists and was not written by `bindery embed`: pass --force to \
                 replace it",
                args.out.display()
            )));
        }
    }
    Ok(out_dir)
}

/// A folder with the variables of its argument replaced.
fn expanded_dir(dir: &std::path::Path) -> Result<PathBuf, Error> {
    let Some(text) = dir.to_str().filter(|text| text.contains('$')) else {
        return Ok(dir.to_path_buf());
    };
    bindery_codegen::expand_folder(text)
        .map(|expanded| PathBuf::from(expanded.path))
        .map_err(|source| Error::Invalid { flag: None, source })
}

/// The codegen options the arguments describe, for the folders `roots` (the first, then each
/// `--folder`'s).
fn options(args: &EmbedArgs, roots: &[PathBuf]) -> Result<Options, Error> {
    let usage = |(flag, message)| Error::Usage(format!("{flag}: {message}"));
    let mut options = Options::new(&roots[0]);
    if let Ok(dir) = std::env::current_dir() {
        options = options.crate_dir(dir);
    }
    let mut options = args.apply(options).map_err(usage)?;
    for (folder, root) in args.folders.iter().zip(&roots[1..]) {
        options = options.folder(folder.apply(Options::new(root)).map_err(usage)?);
    }
    Ok(options)
}

/// The flag a validation problem is about, as the command line spells it (`None`: the folder,
/// which the message names).
fn flag(concern: Concern) -> Option<String> {
    match concern {
        Concern::Setting { name, .. } => {
            bindery_codegen::options::setting(name).map(|setting| setting.flag())
        }
        _ => None,
    }
}
