//! The JSON answer of `/geo/<ip>`, rendered straight from the reader's borrowed strings; the
//! record's part is kept by record ([`crate::answer_cache`]).

use std::net::IpAddr;

use maxminddb::{MaxMindDbError, Reader};
use serde::{Deserialize, Serialize};

use crate::answer_cache::{AnswerCache, Key};
use crate::language::Language;
use crate::tree_jump::{Found, Tree};

/// The part of an answer that comes from the database record, the same for every address of the
/// record: the JSON after `"ip"` and `"network"`.
#[derive(Serialize)]
#[serde(bound = "")]
struct Tail<'a, D: Serialize> {
    continent: Continent<'a>,
    country: Place<'a>,
    subdivisions: D,
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
///
/// With the answer cache on, the tree's jump table finds the record first: an address without
/// data, or whose record's part is kept, is answered without maxminddb's walk. The rest (a
/// record not yet kept, a tree the table does not cover) goes through maxminddb.
pub(crate) fn render<S: AsRef<[u8]>>(
    tree: &Tree<S>,
    ip: IpAddr,
    language: Language,
    tails: Tails<'_>,
) -> Result<Option<Vec<u8>>, MaxMindDbError> {
    let jump = tree.jump.as_ref().filter(|_| tails.cache.is_on());
    let mut looked_up = false;
    match jump.and_then(|jump| jump.find(ip)) {
        Some(Found::Nothing) => return Ok(None),
        Some(Found::Data { offset, prefix }) => {
            let key = Key {
                generation: tails.generation,
                offset,
                language,
            };
            if let Some(tail) = tails.cache.get(&key) {
                let network = crate::address::mask(ip, prefix);
                return Ok(Some(kept_answer(ip, network, prefix, &tail)));
            }
            looked_up = true;
        }
        None => {}
    }
    let reader = &tree.reader;
    let tails = Tails { looked_up, ..tails };
    // One decoder per language, so that each keeps only its own names (and English).
    match language {
        Language::English => render_in::<S, 0>(reader, ip, language, tails),
        Language::German => render_in::<S, 1>(reader, ip, language, tails),
        Language::French => render_in::<S, 2>(reader, ip, language, tails),
        Language::Spanish => render_in::<S, 3>(reader, ip, language, tails),
        Language::Japanese => render_in::<S, 4>(reader, ip, language, tails),
        Language::BrazilianPortuguese => render_in::<S, 5>(reader, ip, language, tails),
        Language::Russian => render_in::<S, 6>(reader, ip, language, tails),
        Language::SimplifiedChinese => render_in::<S, 7>(reader, ip, language, tails),
    }
}

/// A whole answer from its first two fields and a kept record's part, in an allocation of its
/// exact size ([`crate::exact`]).
fn kept_answer(ip: IpAddr, network: IpAddr, prefix: u8, tail: &[u8]) -> Vec<u8> {
    crate::exact::joined(|out| write_head(out, ip, network, prefix), tail)
}

/// Writes the answer's first two fields, `{"ip":"…","network":"…"`. What serde_json would
/// write: an address or a network in text is hex digits, dots, colons and a slash, nothing a
/// JSON string escapes.
fn write_head(json: &mut Vec<u8>, ip: IpAddr, network: IpAddr, prefix: u8) {
    json.extend_from_slice(b"{\"ip\":\"");
    crate::address::write_ip(json, ip);
    json.extend_from_slice(b"\",\"network\":\"");
    crate::address::write_ip(json, network);
    json.push(b'/');
    crate::address::write_decimal(json, prefix);
    json.push(b'"');
}

/// Where the record parts of answers are kept: the cache and the loaded database's generation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tails<'a> {
    pub cache: &'a AnswerCache,
    pub generation: u64,
    /// The cache was asked for this answer's record already (through the tree's jump table),
    /// and had none.
    pub looked_up: bool,
}

fn render_in<S: AsRef<[u8]>, const L: usize>(
    reader: &Reader<S>,
    ip: IpAddr,
    language: Language,
    tails: Tails<'_>,
) -> Result<Option<Vec<u8>>, MaxMindDbError> {
    let result = reader.lookup(ip)?;
    if !result.has_data() {
        return Ok(None);
    }
    let network = result.network()?;
    let key = result
        .offset()
        .filter(|_| tails.cache.is_on())
        .map(|offset| Key {
            generation: tails.generation,
            offset,
            language,
        });
    let kept = key.filter(|_| !tails.looked_up);
    if let Some(tail) = kept.and_then(|key| tails.cache.get(&key)) {
        let answer = kept_answer(ip, network.ip(), network.prefix(), &tail);
        return Ok(Some(answer));
    }
    let Some(record) = result.decode::<Record<'_, L>>()? else {
        return Ok(None);
    };
    let tail = Tail {
        continent: Continent {
            code: record.continent.code,
            name: record.continent.names.pick(),
        },
        country: record.country.place(),
        subdivisions: Subdivisions(&record.subdivisions),
        city: record.city.names.pick(),
        postal: record.postal.code,
        location: Location {
            latitude: record.location.latitude,
            longitude: record.location.longitude,
            accuracy_radius: record.location.accuracy_radius,
            time_zone: record.location.time_zone,
        },
        registered_country: record.registered_country.place(),
    };
    // Rendered in the per-thread scratch and copied out at its exact length, like a kept answer.
    let mut failed = None;
    let json = crate::exact::written(|json| {
        write_head(json, ip, network.ip(), network.prefix());
        // The record's fields as an object of their own, whose `{` becomes the `,` after
        // `network`.
        let start = json.len();
        match serde_json::to_writer(&mut *json, &tail) {
            Ok(()) => {
                json[start] = b',';
                if let Some(key) = key {
                    tails.cache.insert(key, &json[start..]);
                }
            }
            Err(error) => failed = Some(error),
        }
    });
    match failed {
        Some(error) => Err(MaxMindDbError::decoding(error.to_string())),
        None => Ok(Some(json)),
    }
}

#[derive(Deserialize)]
struct Record<'a, const L: usize> {
    #[serde(borrow, default)]
    continent: ContinentRecord<'a, L>,
    #[serde(borrow, default)]
    country: PlaceRecord<'a, L>,
    #[serde(borrow, default)]
    subdivisions: Vec<PlaceRecord<'a, L>>,
    #[serde(borrow, default)]
    city: CityRecord<'a, L>,
    #[serde(borrow, default)]
    postal: PostalRecord<'a>,
    #[serde(borrow, default)]
    location: LocationRecord<'a>,
    #[serde(borrow, default)]
    registered_country: PlaceRecord<'a, L>,
}

#[derive(Deserialize, Default)]
struct ContinentRecord<'a, const L: usize> {
    code: Option<&'a str>,
    #[serde(borrow, default)]
    names: Names<'a, L>,
}

#[derive(Deserialize, Default)]
struct PlaceRecord<'a, const L: usize> {
    iso_code: Option<&'a str>,
    #[serde(borrow, default)]
    names: Names<'a, L>,
}

impl<'a, const L: usize> PlaceRecord<'a, L> {
    fn place(&self) -> Place<'a> {
        Place {
            iso_code: self.iso_code,
            name: self.names.pick(),
        }
    }
}

#[derive(Deserialize, Default)]
struct CityRecord<'a, const L: usize> {
    #[serde(borrow, default)]
    names: Names<'a, L>,
}

#[derive(Deserialize, Default)]
struct PostalRecord<'a> {
    code: Option<&'a str>,
}

#[derive(Deserialize, Default)]
struct LocationRecord<'a> {
    latitude: Option<f64>,
    longitude: Option<f64>,
    accuracy_radius: Option<u16>,
    time_zone: Option<&'a str>,
}

/// A record's names in the language `Language::CODES[L]` and in English, the fallback; the
/// other languages' strings are skipped while decoding.
#[derive(Debug, Clone, Copy, Default)]
struct Names<'a, const L: usize> {
    chosen: Option<&'a str>,
    english: Option<&'a str>,
}

impl<'a, const L: usize> Names<'a, L> {
    /// The name in the language, else in English.
    fn pick(&self) -> Option<&'a str> {
        self.chosen.or(self.english)
    }
}

impl<'de: 'a, 'a, const L: usize> Deserialize<'de> for Names<'a, L> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NamesVisitor<'a, const L: usize>(std::marker::PhantomData<&'a ()>);

        impl<'de: 'a, 'a, const L: usize> serde::de::Visitor<'de> for NamesVisitor<'a, L> {
            type Value = Names<'a, L>;

            fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                formatter.write_str("a map of names by language code")
            }

            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<Names<'a, L>, M::Error> {
                let mut names = Names::default();
                while let Some(code) = map.next_key::<&'de str>()? {
                    if code == Language::CODES[L] {
                        names.chosen = Some(map.next_value()?);
                    } else if code == "en" {
                        names.english = Some(map.next_value()?);
                    } else {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
                Ok(names)
            }
        }

        deserializer.deserialize_map(NamesVisitor(std::marker::PhantomData))
    }
}

/// The subdivisions in the requested language, serialised from the decoded record as they are:
/// no `Vec` of places in between.
struct Subdivisions<'r, 'a, const L: usize>(&'r [PlaceRecord<'a, L>]);

impl<const L: usize> Serialize for Subdivisions<'_, '_, L> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(PlaceRecord::place))
    }
}
