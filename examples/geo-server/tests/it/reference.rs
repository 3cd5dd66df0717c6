//! The answer of `/geo/<ip>` as the first implementation rendered it: maxminddb's full
//! `geoip2::City` record decoded (every field, every language), then the names picked and
//! serialised with serde's derive in the answer's field order. The oracle of the server's
//! one-language decoder: the tests compare against it byte for byte, the `geo` bench measures
//! both. Shared by path (`#[path]`) so both read the same code.

use std::net::IpAddr;

use geo_server::language::Language;
use maxminddb::{Reader, geoip2};
use serde::Serialize;

#[derive(Serialize)]
struct Answer<'a> {
    ip: IpAddr,
    network: String,
    continent: Continent<'a>,
    country: Place<'a>,
    subdivisions: Vec<Place<'a>>,
    city: Option<&'a str>,
    postal: Option<&'a str>,
    location: Location<'a>,
    registered_country: Place<'a>,
}

#[derive(Serialize)]
struct Continent<'a> {
    code: Option<&'a str>,
    name: Option<&'a str>,
}

#[derive(Serialize)]
struct Place<'a> {
    iso_code: Option<&'a str>,
    name: Option<&'a str>,
}

#[derive(Serialize)]
struct Location<'a> {
    latitude: Option<f64>,
    longitude: Option<f64>,
    accuracy_radius: Option<u16>,
    time_zone: Option<&'a str>,
}

fn pick<'a>(language: Language, names: &geoip2::Names<'a>) -> Option<&'a str> {
    let chosen = match language {
        Language::English => names.english,
        Language::German => names.german,
        Language::French => names.french,
        Language::Spanish => names.spanish,
        Language::Japanese => names.japanese,
        Language::BrazilianPortuguese => names.brazilian_portuguese,
        Language::Russian => names.russian,
        Language::SimplifiedChinese => names.simplified_chinese,
    };
    chosen.or(names.english)
}

fn place<'a>(
    language: Language,
    iso_code: Option<&'a str>,
    names: &geoip2::Names<'a>,
) -> Place<'a> {
    Place {
        iso_code,
        name: pick(language, names),
    }
}

/// The reference JSON for `ip` in `language`, `None` when the database has no record.
pub fn render(reader: &Reader<&[u8]>, ip: IpAddr, language: Language) -> Option<Vec<u8>> {
    let result = reader.lookup(ip).expect("lookup");
    if !result.has_data() {
        return None;
    }
    let network = result.network().expect("network");
    let city = result.decode::<geoip2::City<'_>>().expect("decode")?;
    let answer = Answer {
        ip,
        network: network.to_string(),
        continent: Continent {
            code: city.continent.code,
            name: pick(language, &city.continent.names),
        },
        country: place(language, city.country.iso_code, &city.country.names),
        subdivisions: city
            .subdivisions
            .iter()
            .map(|subdivision| place(language, subdivision.iso_code, &subdivision.names))
            .collect(),
        city: pick(language, &city.city.names),
        postal: city.postal.code,
        location: Location {
            latitude: city.location.latitude,
            longitude: city.location.longitude,
            accuracy_radius: city.location.accuracy_radius,
            time_zone: city.location.time_zone,
        },
        registered_country: place(
            language,
            city.registered_country.iso_code,
            &city.registered_country.names,
        ),
    };
    Some(serde_json::to_vec(&answer).expect("serialises"))
}
