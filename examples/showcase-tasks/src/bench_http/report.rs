//! What `bench-http` writes (`target/bench/http.json`, the document) and reads back for
//! `--report`, and the markdown table rendered from it (the chart is chart.rs's).

use std::path::Path;

use anyhow::Context;

use super::document::{CaseRuns, Document, is_comparable, is_reference, median, ratios};
use super::measure::Sample;

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
    std::fs::write(dir.join("http.svg"), super::chart::chart(document))?;
    Ok(table)
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
