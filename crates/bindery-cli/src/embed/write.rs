//! Bringing the disk in line with a [`Plan`]: `--check` compares, a normal run writes atomically.

use std::io::Write;

use crate::embed::plan::{Plan, existing_blobs, same_bytes};
use crate::{EmbedArgs, Error};

/// Compares the disk with the plan and writes nothing: every stale file, with why, or `Ok`.
pub(crate) fn check(args: &EmbedArgs, plan: &Plan) -> Result<(), Error> {
    let mut stale = Vec::new();
    match std::fs::read_to_string(&plan.out) {
        Ok(text) if text == plan.text => {}
        Ok(text) => match contract_of(&text) {
            Some(contract) if contract != bindery_codegen::CONTRACT => stale.push(format!(
                "{}: written for generated-code contract {contract}; this bindery-cli writes \
                 contract {}",
                args.out.display(),
                bindery_codegen::CONTRACT
            )),
            _ => stale.push(format!("{}: out of date", args.out.display())),
        },
        Err(_) => stale.push(format!("{}: missing", args.out.display())),
    }
    let existing = existing_blobs(&plan.blob_dir);
    for (name, cached) in &plan.blobs {
        match existing.get(name) {
            Some(path) if same_bytes(path, cached) => {}
            Some(path) => stale.push(format!("{}: differs from its content hash", path.display())),
            None => stale.push(format!("{}: missing", plan.blob_dir.join(name).display())),
        }
    }
    for (name, path) in &existing {
        if !plan.blobs.contains_key(name) {
            stale.push(format!("{}: no longer used", path.display()));
        }
    }
    if stale.is_empty() {
        return Ok(());
    }
    Err(Error::Stale {
        stale,
        command: args.command_line(),
    })
}

/// The contract a generated module records (`contract = N;`), if it records one.
fn contract_of(text: &str) -> Option<u32> {
    text.lines()
        .find_map(|line| line.trim().strip_prefix("contract = ")?.strip_suffix(';'))
        .and_then(|number| number.parse().ok())
}

/// Writes blobs first (new names never clobber old ones), then the module by rename, then
/// removes blobs no longer used: a failure at any point leaves a consistent previous output.
pub(crate) fn write(plan: &Plan) -> Result<(), Error> {
    let existing = existing_blobs(&plan.blob_dir);
    if !plan.blobs.is_empty() {
        std::fs::create_dir_all(&plan.blob_dir)
            .map_err(|error| Error::write(&plan.blob_dir, error))?;
    }
    for (name, cached) in &plan.blobs {
        if existing
            .get(name)
            .is_some_and(|path| same_bytes(path, cached))
        {
            continue;
        }
        let bytes = std::fs::read(cached).map_err(|source| Error::Read {
            path: cached.clone(),
            source,
        })?;
        persist(&plan.blob_dir.join(name), &bytes)?;
    }
    persist(&plan.out, plan.text.as_bytes())?;
    for (name, path) in &existing {
        if !plan.blobs.contains_key(name) {
            std::fs::remove_file(path).map_err(|error| Error::write(path, error))?;
        }
    }
    // Only removes the folder when nothing else is in it.
    let _ = std::fs::remove_dir(&plan.blob_dir);
    Ok(())
}

/// Writes `bytes` to a temporary file beside `target`, readable by all (0644 where that means
/// something), then renames it over `target`.
fn persist(target: &std::path::Path, bytes: &[u8]) -> Result<(), Error> {
    let parent = target
        .parent()
        .ok_or_else(|| Error::write(target, std::io::ErrorKind::InvalidInput.into()))?;
    let mut staged =
        tempfile::NamedTempFile::new_in(parent).map_err(|error| Error::write(target, error))?;
    staged
        .write_all(bytes)
        .map_err(|error| Error::write(target, error))?;
    #[cfg(unix)]
    std::fs::set_permissions(
        staged.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o644),
    )
    .map_err(|error| Error::write(target, error))?;
    staged
        .persist(target)
        .map_err(|error| Error::write(target, error.error))?;
    Ok(())
}
