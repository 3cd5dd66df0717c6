//! Chooses the database to embed and builds the sample one.
//!
//! In order: the file named by `$GEODB`; `assets/geo/GeoLite2-City.mmdb` when `cargo xtask geodb`
//! has fetched it; else the sample, written here from `assets/geo/sample-city.json`. The chosen
//! file is opened with `maxminddb` so that a bad one fails the build with a clear message.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

type Names = BTreeMap<String, String>;

#[derive(Deserialize)]
struct Source {
    database_type: String,
    build_epoch: u64,
    about: String,
    cities: Vec<City>,
    networks: Vec<Network>,
}

#[derive(Deserialize)]
struct City {
    key: String,
    geoname_id: Option<u32>,
    city: Option<Names>,
    country: Place,
    continent: Continent,
    subdivision: Option<Place>,
    postal: Option<String>,
    latitude: f64,
    longitude: f64,
    accuracy_radius: u16,
    time_zone: String,
}

#[derive(Deserialize, Serialize, Clone)]
struct Place {
    iso_code: String,
    geoname_id: u32,
    names: Names,
}

#[derive(Deserialize, Serialize, Clone)]
struct Continent {
    code: String,
    geoname_id: u32,
    names: Names,
}

#[derive(Deserialize)]
struct Network {
    network: String,
    city: String,
}

/// A GeoIP2 City record, field for field as MaxMind writes them.
#[derive(Serialize)]
struct Record<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    city: Option<NamedCity<'a>>,
    continent: &'a Continent,
    country: &'a Place,
    location: Location<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    postal: Option<Postal<'a>>,
    registered_country: &'a Place,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    subdivisions: Vec<&'a Place>,
}

#[derive(Serialize)]
struct NamedCity<'a> {
    geoname_id: u32,
    names: &'a Names,
}

#[derive(Serialize)]
struct Location<'a> {
    accuracy_radius: u16,
    latitude: f64,
    longitude: f64,
    time_zone: &'a str,
}

#[derive(Serialize)]
struct Postal<'a> {
    code: &'a str,
}

fn main() {
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"));
    let geo_dir = manifest_dir.join("../../assets/geo");
    let source_json = geo_dir.join("sample-city.json");
    let real = geo_dir.join("GeoLite2-City.mmdb");
    println!("cargo::rerun-if-env-changed=GEODB");
    // The folder, so that the real database appearing or disappearing is noticed.
    println!("cargo::rerun-if-changed={}", geo_dir.display());
    println!("cargo::rerun-if-changed=build.rs");

    let sample = out_dir.join("sample-city.mmdb");
    if let Err(message) = write_sample(&source_json, &sample) {
        fail(&format!(
            "cannot build the sample database from {}: {message}",
            source_json.display()
        ));
    }
    check(&sample);

    let (chosen, origin) = match std::env::var_os("GEODB") {
        Some(path) => (PathBuf::from(path), "GEODB"),
        None if real.is_file() => (real, "assets/geo/GeoLite2-City.mmdb"),
        None => (sample.clone(), "sample"),
    };
    let chosen = std::fs::canonicalize(&chosen)
        .unwrap_or_else(|error| fail(&format!("database {}: {error}", chosen.display())));
    // The sample is this script's own output, made from a file of the folder tracked above:
    // watching it would rerun the script (and rebuild every crate above this one) on every
    // cargo command, since it is always newer than the script's last start.
    if std::fs::canonicalize(&sample).ok().as_ref() != Some(&chosen) {
        println!("cargo::rerun-if-changed={}", chosen.display());
    }
    check(&chosen);
    println!("cargo::rustc-env=GEODB_PATH={}", chosen.display());
    println!("cargo::rustc-env=GEODB_ORIGIN={origin}");
    println!("cargo::rustc-env=GEODB_SAMPLE_PATH={}", sample.display());
    // Hashed here, once per database, so the server knows its identity without reading all of
    // its pages at start.
    println!("cargo::rustc-env=GEODB_BLAKE3={}", blake3_of(&chosen));
    println!(
        "cargo::rustc-env=GEODB_SAMPLE_BLAKE3={}",
        blake3_of(&sample)
    );
}

fn blake3_of(path: &Path) -> String {
    let mut hasher = blake3::Hasher::new();
    std::fs::File::open(path)
        .and_then(|file| hasher.update_reader(file).map(|_| ()))
        .unwrap_or_else(|error| fail(&format!("cannot hash {}: {error}", path.display())));
    hasher.finalize().to_hex().to_string()
}

fn fail(message: &str) -> ! {
    eprintln!("geodb: {message}");
    std::process::exit(1);
}

/// Opens the file as a MaxMind DB and verifies it, so a bad file fails here and not at run time.
fn check(path: &Path) {
    let reader = maxminddb::Reader::open_readfile(path)
        .unwrap_or_else(|error| fail(&format!("{} is not a MaxMind DB: {error}", path.display())));
    if let Err(error) = reader.verify() {
        fail(&format!("{} is corrupt: {error}", path.display()));
    }
}

fn write_sample(source: &Path, target: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(source).map_err(|error| error.to_string())?;
    let source: Source = serde_json::from_str(&text).map_err(|error| error.to_string())?;
    let cities: BTreeMap<&str, &City> = source
        .cities
        .iter()
        .map(|city| (city.key.as_str(), city))
        .collect();
    let epoch = std::time::UNIX_EPOCH + std::time::Duration::from_secs(source.build_epoch);
    let mut writer = mmdb_writer::Writer::builder(source.database_type.clone())
        .languages(["en", "de", "fr", "es", "ja"])
        .description(&[("en", source.about.as_str())])
        .build_epoch(epoch)
        .build();
    for network in &source.networks {
        let city = cities.get(network.city.as_str()).ok_or_else(|| {
            format!(
                "network {} names unknown city {}",
                network.network, network.city
            )
        })?;
        let record = Record {
            city: match (&city.city, city.geoname_id) {
                (Some(names), Some(geoname_id)) => Some(NamedCity { geoname_id, names }),
                _ => None,
            },
            continent: &city.continent,
            country: &city.country,
            location: Location {
                accuracy_radius: city.accuracy_radius,
                latitude: city.latitude,
                longitude: city.longitude,
                time_zone: &city.time_zone,
            },
            postal: city.postal.as_deref().map(|code| Postal { code }),
            registered_country: &city.country,
            subdivisions: city.subdivision.iter().collect(),
        };
        let parsed: ipnet::IpNet = network
            .network
            .parse()
            .map_err(|error| format!("network {}: {error}", network.network))?;
        writer
            .insert(parsed, &record)
            .map_err(|error| format!("network {}: {error}", network.network))?;
    }
    let bytes = writer.to_bytes().map_err(|error| error.to_string())?;
    std::fs::write(target, bytes).map_err(|error| error.to_string())
}
