//! The chart of a bench-http document, as a person reads it: one group of bars per file (or
//! route), each bar with its label beside it and its figures after it, on a labelled log axis
//! with a tick per decade, and a legend for the colours.

use super::document::{CaseRuns, Document, is_reference, median};
use super::measure::Sample;

/// What a bar's colour says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A reference row: the bare axum route.
    Reference,
    /// Bytes borrowed from the binary: `static`, the embedded database.
    Borrowed,
    /// Bytes sent as they are stored or mapped: a precompressed variant, a raw file, mmap.
    AsStored,
    /// A copy or a decompression per request.
    PerRequest,
}

impl Kind {
    const ALL: [Kind; 4] = [
        Kind::Reference,
        Kind::Borrowed,
        Kind::AsStored,
        Kind::PerRequest,
    ];

    fn of(config: &str) -> Kind {
        if is_reference(config) {
            Kind::Reference
        } else if config.contains("takes")
            || config.contains("stored raw")
            || config.contains("mmap")
        {
            Kind::AsStored
        } else if config.contains("copy") || config.contains("decompress") {
            Kind::PerRequest
        } else {
            Kind::Borrowed
        }
    }

    fn colour(self) -> &'static str {
        match self {
            Kind::Reference => "#6b7280",
            Kind::Borrowed => "#0f766e",
            Kind::AsStored => "#2563eb",
            Kind::PerRequest => "#dc2626",
        }
    }

    fn legend(self) -> &'static str {
        match self {
            Kind::Reference => "reference (bare axum)",
            Kind::Borrowed => "borrowed from the binary",
            Kind::AsStored => "sent as stored or mapped",
            Kind::PerRequest => "a copy or a decompression per request",
        }
    }
}

/// Text for SVG: `/geo/<random ip>` must not open an element.
fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Where the bars start and how long the longest may be, in the chart's units.
const BAR_X: f64 = 360.0;
const BAR_WIDTH: f64 = 480.0;
const ROW: f64 = 22.0;
const GROUP_HEAD: f64 = 24.0;

/// The log axis: the decades from one below the smallest value to one above the largest.
struct Axis {
    low: f64,
    high: f64,
}

impl Axis {
    fn over(values: impl Iterator<Item = f64>) -> Axis {
        let (min, max) = values
            .filter(|value| value.is_finite() && *value > 0.0)
            .fold((f64::INFINITY, 0.0_f64), |(min, max), value| {
                (min.min(value), max.max(value))
            });
        if max == 0.0 {
            return Axis {
                low: 0.0,
                high: 1.0,
            };
        }
        Axis {
            low: min.log10().floor(),
            high: max.log10().ceil().max(min.log10().floor() + 1.0),
        }
    }

    /// The x of `value` (clamped into the axis).
    fn x(&self, value: f64) -> f64 {
        let decade = value.max(10f64.powf(self.low)).log10();
        BAR_X + BAR_WIDTH * (decade - self.low) / (self.high - self.low)
    }

    /// The axis line, a tick, grid line and label per decade, and its title, from `top` to
    /// `bottom`.
    fn draw(&self, top: f64, bottom: f64) -> String {
        let mut svg = String::new();
        let mut decade = self.low;
        while decade <= self.high {
            let value = 10f64.powf(decade);
            let x = self.x(value);
            let label = if value >= 1.0 {
                format!("{value:.0}")
            } else {
                format!("{value}")
            };
            svg.push_str(&format!(
                "<line x1=\"{x:.1}\" y1=\"{top:.0}\" x2=\"{x:.1}\" y2=\"{bottom:.0}\" stroke=\"#e5e7eb\"/>\n\
                 <line x1=\"{x:.1}\" y1=\"{bottom:.0}\" x2=\"{x:.1}\" y2=\"{:.0}\" stroke=\"#374151\"/>\n\
                 <text x=\"{x:.1}\" y=\"{:.0}\" text-anchor=\"middle\">{label}</text>\n",
                bottom + 5.0,
                bottom + 18.0
            ));
            decade += 1.0;
        }
        svg.push_str(&format!(
            "<line x1=\"{BAR_X}\" y1=\"{bottom:.0}\" x2=\"{:.0}\" y2=\"{bottom:.0}\" stroke=\"#374151\"/>\n\
             <text x=\"{:.0}\" y=\"{:.0}\" text-anchor=\"middle\">server CPU per request, µs (log scale)</text>\n",
            BAR_X + BAR_WIDTH,
            BAR_X + BAR_WIDTH / 2.0,
            bottom + 34.0
        ));
        svg
    }
}

/// The cases grouped by target, in the order each target first appears.
fn groups<'a>(
    document: &'a Document,
    medians: &'a [Sample],
) -> Vec<(&'a str, Vec<(&'a CaseRuns, &'a Sample)>)> {
    let mut groups: Vec<(&str, Vec<(&CaseRuns, &Sample)>)> = Vec::new();
    for (case, sample) in document.cases.iter().zip(medians) {
        match groups.iter_mut().find(|(target, _)| *target == case.target) {
            Some((_, rows)) => rows.push((case, sample)),
            None => groups.push((&case.target, vec![(case, sample)])),
        }
    }
    groups
}

/// One bar: its label right-aligned before it, the figures after it.
fn bar(axis: &Axis, y: f64, case: &CaseRuns, sample: &Sample) -> String {
    let end = axis.x(sample.cpu_us_per_request);
    let kind = Kind::of(&case.config);
    format!(
        "<text x=\"{:.0}\" y=\"{:.0}\" text-anchor=\"end\">{}</text>\n\
         <rect x=\"{BAR_X}\" y=\"{y:.0}\" width=\"{:.1}\" height=\"14\" fill=\"{}\"/>\n\
         <text x=\"{:.1}\" y=\"{:.0}\">{:.1} µs · {:.0} req/s · {:.0} MiB</text>\n",
        BAR_X - 8.0,
        y + 11.0,
        xml_escape(&case.config),
        (end - BAR_X).max(1.0),
        kind.colour(),
        end + 6.0,
        y + 11.0,
        sample.cpu_us_per_request,
        sample.requests_per_second,
        sample.peak_rss_mib
    )
}

/// The legend, one swatch per colour, on one line at `y`.
fn legend(y: f64) -> String {
    let mut svg = String::new();
    let mut x = 10.0;
    for kind in Kind::ALL {
        svg.push_str(&format!(
            "<rect x=\"{x:.0}\" y=\"{:.0}\" width=\"12\" height=\"12\" fill=\"{}\"/>\n\
             <text x=\"{:.0}\" y=\"{:.0}\">{}</text>\n",
            y - 10.0,
            kind.colour(),
            x + 17.0,
            y,
            kind.legend()
        ));
        x += 17.0 + 7.0 * kind.legend().len() as f64 + 24.0;
    }
    svg
}

/// The chart of `document`: server CPU per request of each case's median run, grouped by
/// target, with req/s and peak RSS beside each bar.
pub fn chart(document: &Document) -> String {
    let medians: Vec<Sample> = document
        .cases
        .iter()
        .map(|case| median(&case.runs))
        .collect();
    let groups = groups(document, &medians);
    let axis = Axis::over(medians.iter().map(|sample| sample.cpu_us_per_request));
    let top = 62.0;
    let rows: f64 = groups
        .iter()
        .map(|(_, rows)| GROUP_HEAD + ROW * rows.len() as f64)
        .sum();
    let bottom = top + rows + 6.0;
    let height = bottom + 48.0;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1100 {height:.0}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"1100\" height=\"{height:.0}\" fill=\"white\"/>\n\
         <text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">Server CPU per request by file and mode (median of {} run(s) of {} s), with req/s and peak RSS</text>\n",
        document.rounds, document.seconds
    );
    svg.push_str(&legend(42.0));
    svg.push_str(&axis.draw(top, bottom));
    let mut y = top;
    for (target, rows) in &groups {
        let connections = rows.first().map_or(0, |(case, _)| case.connections);
        // A target that names its connections already ("17 MiB, 50 connections") says it once.
        let head = if target.contains("connections") {
            (*target).to_owned()
        } else {
            format!("{target} ({connections} connections)")
        };
        svg.push_str(&format!(
            "<text x=\"10\" y=\"{:.0}\" font-weight=\"bold\">{}</text>\n",
            y + 16.0,
            xml_escape(&head)
        ));
        y += GROUP_HEAD;
        for (case, sample) in rows {
            svg.push_str(&bar(&axis, y, case, sample));
            y += ROW;
        }
    }
    svg.push_str("</svg>\n");
    svg
}

#[cfg(test)]
mod tests {
    use super::{Axis, Kind, chart};
    use crate::bench_http::document::{CaseRuns, Document};
    use crate::bench_http::measure::Sample;

    fn case(target: &str, config: &str, cpu: f64) -> CaseRuns {
        CaseRuns {
            target: target.into(),
            config: config.into(),
            connections: 16,
            runs: vec![Sample {
                requests_per_second: 1000.0,
                megabytes_per_second: 1.0,
                p99_ms: 0.5,
                cpu_us_per_request: cpu,
                peak_rss_mib: 10.0,
                requests: 1000,
                errors: 0,
            }],
            paired_references: Vec::new(),
        }
    }

    #[test]
    fn bars_are_grouped_by_file_labelled_beside_them_on_a_log_axis_with_a_legend() {
        let document = Document {
            seconds: 10,
            rounds: 3,
            cases: vec![
                case("vue.min.js", "static", 4.0),
                case("17 MiB", "static", 900.0),
                case("vue.min.js", "copy", 40.0),
                case("vue.min.js", "bare axum (reference)", 3.0),
                case("/geo/<random ip>", "DB mmap", 5.0),
            ],
        };
        let svg = chart(&document);
        // Grouped: the second vue.min.js row comes before the 17 MiB group.
        let copy = svg.find(">copy<").expect("the copy row");
        assert!(
            copy < svg.find("17 MiB (16").expect("the 17 MiB group"),
            "{svg}"
        );
        // Each label ends just before its bar starts.
        assert!(
            svg.contains("<text x=\"352\" y=\"97\" text-anchor=\"end\">static</text>"),
            "{svg}"
        );
        // A tick per decade, 1 µs to 1000 µs, and the axis title.
        for label in [">1<", ">10<", ">100<", ">1000<"] {
            assert!(svg.contains(label), "{label}: {svg}");
        }
        assert!(svg.contains("server CPU per request, µs (log scale)"));
        for kind in Kind::ALL {
            assert!(svg.contains(kind.legend()), "{svg}");
        }
        assert!(svg.contains("/geo/&lt;random ip&gt;"), "escaped");
        assert_eq!(Kind::of("bare axum (reference)"), Kind::Reference);
        assert_eq!(
            Kind::of("go-bindata: gzip decompressed per request"),
            Kind::PerRequest
        );
    }

    #[test]
    fn the_axis_places_decades_evenly() {
        let axis = Axis::over([2.0, 300.0].into_iter());
        assert_eq!((axis.low, axis.high), (0.0, 3.0));
        let step = axis.x(10.0) - axis.x(1.0);
        assert!((axis.x(100.0) - axis.x(10.0) - step).abs() < 1e-9);
    }
}
