//! The JSON answer of `/geo/<ip>`, rendered straight from the reader's borrowed strings.

use std::net::IpAddr;

use maxminddb::{MaxMindDbError, Reader, geoip2};
use serde::Serialize;

/// A language of the names in the answer (`?lang=`); names missing in it fall back to English.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Language {
    /// `en`
    #[default]
    English,
    /// `de`
    German,
    /// `fr`
    French,
    /// `es`
    Spanish,
    /// `ja`
    Japanese,
    /// `pt-BR`
    BrazilianPortuguese,
    /// `ru`
    Russian,
    /// `zh-CN`
    SimplifiedChinese,
}

impl Language {
    /// Every language code the API accepts.
    pub const CODES: [&'static str; 8] = ["en", "de", "fr", "es", "ja", "pt-BR", "ru", "zh-CN"];

    /// The language for a `lang` code, or `None` for an unknown one.
    ///
    /// ```
    /// use geo_server::answer::Language;
    /// assert_eq!(Language::from_code("pt-BR"), Some(Language::BrazilianPortuguese));
    /// assert_eq!(Language::from_code("xx"), None);
    /// ```
    pub fn from_code(code: &str) -> Option<Language> {
        Some(match code {
            "en" => Language::English,
            "de" => Language::German,
            "fr" => Language::French,
            "es" => Language::Spanish,
            "ja" => Language::Japanese,
            "pt-BR" => Language::BrazilianPortuguese,
            "ru" => Language::Russian,
            "zh-CN" => Language::SimplifiedChinese,
            _ => return None,
        })
    }

    /// The language's code, as `?lang=` takes it.
    ///
    /// ```
    /// use geo_server::answer::Language;
    /// assert_eq!(Language::BrazilianPortuguese.code(), "pt-BR");
    /// ```
    pub fn code(self) -> &'static str {
        match self {
            Language::English => "en",
            Language::German => "de",
            Language::French => "fr",
            Language::Spanish => "es",
            Language::Japanese => "ja",
            Language::BrazilianPortuguese => "pt-BR",
            Language::Russian => "ru",
            Language::SimplifiedChinese => "zh-CN",
        }
    }

    fn pick<'a>(self, names: &geoip2::Names<'a>) -> Option<&'a str> {
        let chosen = match self {
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
}

#[derive(Serialize)]
#[serde(bound = "")]
struct Answer<'a, N: std::fmt::Display> {
    ip: IpAddr,
    /// Written straight into the output (`collect_str`), never into a `String` of its own.
    #[serde(serialize_with = "as_text")]
    network: N,
    continent: Continent<'a>,
    country: Place<'a>,
    subdivisions: Subdivisions<'a>,
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

/// Looks `ip` up and serialises the answer while the reader's strings are borrowed: no owned
/// copies of names. `Ok(None)` when the database has no record for the address.
pub(crate) fn render<S: AsRef<[u8]>>(
    reader: &Reader<S>,
    ip: IpAddr,
    language: Language,
) -> Result<Option<Vec<u8>>, MaxMindDbError> {
    let result = reader.lookup(ip)?;
    if !result.has_data() {
        return Ok(None);
    }
    let network = result.network()?;
    let Some(city) = result.decode::<geoip2::City<'_>>()? else {
        return Ok(None);
    };
    let answer = Answer {
        ip,
        network,
        continent: Continent {
            code: city.continent.code,
            name: language.pick(&city.continent.names),
        },
        country: place(language, city.country.iso_code, &city.country.names),
        subdivisions: Subdivisions {
            language,
            subdivisions: &city.subdivisions,
        },
        city: language.pick(&city.city.names),
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
    let mut json = Vec::with_capacity(ANSWER_CAPACITY);
    serde_json::to_writer(&mut json, &answer)
        .map(|()| Some(json))
        .map_err(|error| MaxMindDbError::decoding(error.to_string()))
}

/// The subdivisions in the requested language, serialised from the decoded record as they are:
/// no `Vec` of places in between.
struct Subdivisions<'a> {
    language: Language,
    subdivisions: &'a [geoip2::city::Subdivision<'a>],
}

impl Serialize for Subdivisions<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(
            self.subdivisions
                .iter()
                .map(|subdivision| place(self.language, subdivision.iso_code, &subdivision.names)),
        )
    }
}

fn as_text<S: serde::Serializer>(
    value: &impl std::fmt::Display,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

/// Room for a whole answer (they are 300 to 450 bytes), so rendering allocates once.
const ANSWER_CAPACITY: usize = 512;

fn place<'a>(
    language: Language,
    iso_code: Option<&'a str>,
    names: &geoip2::Names<'a>,
) -> Place<'a> {
    Place {
        iso_code,
        name: language.pick(names),
    }
}
