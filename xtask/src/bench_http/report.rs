//! The one document `bench-http` writes (`target/bench/http.json`) and reads back for
//! `--report`, and what is rendered from it: a markdown table and an SVG chart.

use std::path::Path;

use anyhow::Context;

use super::measure::Sample;

/// Every run of every case, with how they were run: what `--report` renders again.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Document {
    /// Seconds per run.
    pub seconds: u32,
    /// Interleaved rounds (runs per case).
    pub rounds: u32,
    pub cases: Vec<CaseRuns>,
}

/// The runs of one case.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CaseRuns {
    pub target: String,
    pub config: String,
    /// wrk's connections: each row is compared with the reference run at the same count.
    #[serde(default)]
    pub connections: u32,
    pub runs: Vec<Sample>,
    /// For a row compared with a reference: the reference run made just before each of its
    /// runs, so that each ratio compares two runs a few seconds apart (this machine's speed
    /// drifts by 10-20% over minutes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paired_references: Vec<Sample>,
}

/// Whether a row (`target`, `connections`) is compared with a reference row: the ceiling is a
/// small answer, so it says something of small answers only, and of runs with as many
/// connections (the kernel's share per request depends on it).
pub fn is_comparable(
    target: &str,
    connections: u32,
    reference_target: &str,
    reference_connections: u32,
) -> bool {
    (target == reference_target || target.starts_with("/geo"))
        && connections == reference_connections
}

/// Whether a configuration is a reference row.
pub fn is_reference(config: &str) -> bool {
    config.contains("(reference)")
}

/// The median of `case`'s per-run ratios to the reference run paired with each, or, without
/// pairs, the ratio of the medians: (req/s, CPU per request).
fn ratios(case: &CaseRuns, sample: &Sample, reference: &Sample) -> (f64, f64) {
    if case.paired_references.len() == case.runs.len() && !case.runs.is_empty() {
        let per_run = |key: fn(&Sample) -> f64| {
            let mut values: Vec<f64> = case
                .runs
                .iter()
                .zip(&case.paired_references)
                .map(|(run, reference)| key(run) / key(reference))
                .collect();
            values.sort_by(f64::total_cmp);
            values[values.len() / 2]
        };
        return (
            per_run(|sample| sample.requests_per_second),
            per_run(|sample| sample.cpu_us_per_request),
        );
    }
    (
        sample.requests_per_second / reference.requests_per_second,
        sample.cpu_us_per_request / reference.cpu_us_per_request,
    )
}

impl CaseRuns {
    fn is_baseline(&self) -> bool {
        self.config == "static" || self.config == "DB embed"
    }
}

/// Writes `http.json`, `http.md` and `http.svg` into `dir`, and returns the table.
pub fn write(dir: &Path, document: &Document) -> anyhow::Result<String> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(
        dir.join("http.json"),
        serde_json::to_string_pretty(document)?,
    )?;
    render(dir, document)
}

/// Reads `http.json` from `dir` and renders `http.md` and `http.svg` again.
pub fn rerender(dir: &Path) -> anyhow::Result<String> {
    let path = dir.join("http.json");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("no {}: run bench-http first", path.display()))?;
    let document: Document = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a bench-http document", path.display()))?;
    anyhow::ensure!(
        !document.cases.is_empty(),
        "{} has no cases",
        path.display()
    );
    render(dir, &document)
}

fn render(dir: &Path, document: &Document) -> anyhow::Result<String> {
    let table = table(document);
    std::fs::write(dir.join("http.md"), &table)?;
    std::fs::write(dir.join("http.svg"), chart(document))?;
    Ok(table)
}

/// Per-field medians of a case's runs; counts are summed.
pub fn median(runs: &[Sample]) -> Sample {
    let pick = |key: fn(&Sample) -> f64| {
        let mut values: Vec<f64> = runs.iter().map(key).collect();
        values.sort_by(f64::total_cmp);
        values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
    };
    Sample {
        requests_per_second: pick(|sample| sample.requests_per_second),
        megabytes_per_second: pick(|sample| sample.megabytes_per_second),
        p99_ms: pick(|sample| sample.p99_ms),
        cpu_us_per_request: pick(|sample| sample.cpu_us_per_request),
        peak_rss_mib: pick(|sample| sample.peak_rss_mib),
        requests: runs.iter().map(|sample| sample.requests).sum(),
        errors: runs.iter().map(|sample| sample.errors).sum(),
    }
}

/// The markdown table: one row per case, CPU per request against its group's baseline.
pub fn table(document: &Document) -> String {
    let medians: Vec<Sample> = document
        .cases
        .iter()
        .map(|case| median(&case.runs))
        .collect();
    let mut out = format!(
        "wrk -t1 on core 1, server on core 0, loopback; median of {} interleaved run(s) of {} s. \
         Ratios to bare axum: the median of each run's ratio to a reference run made just before it.\n\n\
         | target | configuration | connections | req/s | MB/s | p99 | server CPU / request | vs static (CPU) | vs bare axum (req/s, CPU) | peak RSS | socket errors |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
        document.rounds, document.seconds
    );
    let references: Vec<(&CaseRuns, &Sample)> = document
        .cases
        .iter()
        .zip(&medians)
        .filter(|(case, _)| is_reference(&case.config))
        .collect();
    for (case, sample) in document.cases.iter().zip(&medians) {
        let against_reference = references
            .iter()
            .find(|(reference, _)| {
                is_comparable(
                    &case.target,
                    case.connections,
                    &reference.target,
                    reference.connections,
                )
            })
            .map_or_else(
                || "-".to_owned(),
                |(_, bare)| {
                    let (requests, cpu) = ratios(case, sample, bare);
                    format!("{requests:.2}x, {cpu:.2}x")
                },
            );
        let baseline = document
            .cases
            .iter()
            .zip(&medians)
            .find(|(other, _)| other.target == case.target && other.is_baseline())
            .map(|(_, sample)| sample.cpu_us_per_request);
        let ratio = baseline.map_or_else(
            || "-".to_owned(),
            |base| format!("{:.1}x", sample.cpu_us_per_request / base),
        );
        out.push_str(&format!(
            "| {} | {} | {} | {:.0} | {:.1} | {:.2} ms | {:.1} µs | {ratio} | {against_reference} | {:.1} MiB | {} |\n",
            case.target,
            case.config,
            case.connections,
            sample.requests_per_second,
            sample.megabytes_per_second,
            sample.p99_ms,
            sample.cpu_us_per_request,
            sample.peak_rss_mib,
            sample.errors,
        ));
    }
    out
}

/// Text for SVG: `/geo/<random ip>` must not open an element.
fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A horizontal bar chart of server CPU per request (log scale: the range spans 1000x).
pub fn chart(document: &Document) -> String {
    let medians: Vec<Sample> = document
        .cases
        .iter()
        .map(|case| median(&case.runs))
        .collect();
    let row_height = 26.0;
    let height = 50.0 + row_height * medians.len() as f64;
    let max = medians
        .iter()
        .map(|sample| sample.cpu_us_per_request)
        .fold(1.0, f64::max);
    let scale = |value: f64| 20.0 + 460.0 * (value.max(0.1) / 0.1).log10() / (max / 0.1).log10();
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1100 {height}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">Server CPU per request (µs, log scale), with req/s and peak RSS</text>\n"
    );
    for (index, (case, sample)) in document.cases.iter().zip(&medians).enumerate() {
        let y = 40.0 + row_height * index as f64;
        let width = scale(sample.cpu_us_per_request) - 20.0;
        let config = case.config.as_str();
        let colour = if case.is_baseline() || config.contains("(reference)") {
            "#0f766e"
        } else if config.contains("takes")
            || config.contains("stored raw")
            || config.contains("mmap")
        {
            "#2563eb"
        } else {
            "#dc2626"
        };
        svg.push_str(&format!(
            "<text x=\"1090\" y=\"{:.0}\" text-anchor=\"end\">{} — {}</text>\n<rect x=\"20\" y=\"{:.0}\" width=\"{width:.1}\" height=\"16\" fill=\"{colour}\"/>\n<text x=\"{:.1}\" y=\"{:.0}\">{:.1} µs · {:.0} req/s · {:.0} MiB peak RSS</text>\n",
            y + 13.0,
            xml_escape(&case.target),
            xml_escape(config),
            y,
            width + 26.0,
            y + 13.0,
            sample.cpu_us_per_request,
            sample.requests_per_second,
            sample.peak_rss_mib
        ));
    }
    svg.push_str("</svg>\n");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(requests_per_second: f64, cpu_us_per_request: f64) -> Sample {
        Sample {
            requests_per_second,
            megabytes_per_second: 1.0,
            p99_ms: 0.5,
            cpu_us_per_request,
            peak_rss_mib: 10.0,
            requests: 1000,
            errors: 0,
        }
    }

    fn document() -> Document {
        Document {
            seconds: 2,
            rounds: 3,
            cases: vec![
                CaseRuns {
                    target: "vue.min.js".into(),
                    config: "static".into(),
                    connections: 16,
                    runs: vec![sample(100.0, 10.0), sample(90.0, 12.0), sample(110.0, 8.0)],
                    paired_references: Vec::new(),
                },
                CaseRuns {
                    target: "vue.min.js".into(),
                    config: "copy".into(),
                    connections: 16,
                    runs: vec![sample(50.0, 30.0), sample(40.0, 20.0), sample(45.0, 25.0)],
                    paired_references: Vec::new(),
                },
                CaseRuns {
                    target: "/geo/<random ip>".into(),
                    config: "DB embed".into(),
                    connections: 50,
                    runs: vec![sample(1.0, 5.0), sample(1.0, 5.0), sample(1.0, 5.0)],
                    paired_references: Vec::new(),
                },
            ],
        }
    }

    #[test]
    fn what_a_run_writes_the_report_reads_back_and_renders_the_same() {
        let dir = tempfile::tempdir().expect("tempdir");
        let document = document();
        let written = write(dir.path(), &document).expect("write");
        let first_chart = std::fs::read_to_string(dir.path().join("http.svg")).expect("svg");
        std::fs::remove_file(dir.path().join("http.md")).expect("remove");
        let rerendered = rerender(dir.path()).expect("report");
        assert_eq!(written, rerendered);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("http.md")).expect("md"),
            rerendered
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("http.svg")).expect("svg"),
            first_chart
        );
        assert!(rerendered.contains("median of 3 interleaved run(s) of 2 s"));
        assert!(
            rerendered.contains("| vue.min.js | static | 16 | 100 |"),
            "{rerendered}"
        );
        assert!(
            rerendered.contains("| vue.min.js | copy | 16 | 45 | 1.0 | 0.50 ms | 25.0 µs | 2.5x |"),
            "{rerendered}"
        );
        assert!(first_chart.contains("/geo/&lt;random ip&gt;"));
    }

    #[test]
    fn each_row_is_compared_with_the_reference_run_at_its_own_connection_count() {
        let reference = |connections, requests_per_second, cpu| CaseRuns {
            target: "1 KiB text".into(),
            config: format!("bare axum, {connections} connections (reference)"),
            connections,
            runs: vec![sample(requests_per_second, cpu)],
            paired_references: Vec::new(),
        };
        let row = |target: &str, config: &str, connections, requests_per_second, cpu| CaseRuns {
            target: target.into(),
            config: config.into(),
            connections,
            runs: vec![sample(requests_per_second, cpu)],
            paired_references: Vec::new(),
        };
        let document = Document {
            seconds: 2,
            rounds: 1,
            cases: vec![
                reference(16, 100.0, 10.0),
                reference(50, 80.0, 8.0),
                row("1 KiB text", "static", 16, 90.0, 11.0),
                row("1 KiB text", "static, 50", 50, 80.0, 8.8),
                row("/geo/<random ip>", "DB embed", 50, 60.0, 12.0),
                row("vue.min.js", "static", 16, 10.0, 40.0),
            ],
        };
        let table = table(&document);
        let line = |config: &str| {
            table
                .lines()
                .find(|line| line.contains(&format!("| {config} |")))
                .unwrap_or_else(|| panic!("no row {config}: {table}"))
                .to_owned()
        };
        assert!(line("static").contains("| 0.90x, 1.10x |"), "{table}");
        assert!(line("static, 50").contains("| 1.00x, 1.10x |"), "{table}");
        assert!(line("DB embed").contains("| 0.75x, 1.50x |"), "{table}");

        // A large file is not compared with a small answer.
        let large = table
            .lines()
            .find(|line| line.starts_with("| vue.min.js | static |"))
            .expect("the vue.min.js row");
        assert!(large.contains("| 1.0x | - |"), "{table}");
        // With a reference run paired with each run, each ratio is taken within its pair: a
        // slow hour slows both.
        let mut paired = row("/geo/<random ip>", "DB copy", 50, 0.0, 0.0);
        paired.runs = vec![sample(60.0, 12.0), sample(30.0, 24.0), sample(45.0, 16.0)];
        paired.paired_references =
            vec![sample(100.0, 10.0), sample(50.0, 20.0), sample(50.0, 20.0)];
        let document = Document {
            cases: vec![reference(50, 80.0, 8.0), paired],
            ..document
        };
        let table = super::table(&document);
        assert!(table.contains("| DB copy | 50 |"), "{table}");
        assert!(table.contains("| 0.60x, 1.20x |"), "{table}");
    }

    #[test]
    fn a_missing_or_foreign_document_is_a_clear_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let missing = rerender(dir.path()).expect_err("nothing to read");
        assert!(
            missing.to_string().contains("run bench-http first"),
            "{missing}"
        );
        std::fs::write(dir.path().join("http.json"), "[]").expect("write");
        let foreign = rerender(dir.path()).expect_err("a bare array");
        assert!(
            foreign.to_string().contains("not a bench-http document"),
            "{foreign}"
        );
    }
}
