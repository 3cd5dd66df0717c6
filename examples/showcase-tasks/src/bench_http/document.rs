//! The one document `bench-http` writes and reads back: every run of every case, and the
//! arithmetic over it (medians, ratios to a paired reference) that the table and chart share.

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
pub fn ratios(case: &CaseRuns, sample: &Sample, reference: &Sample) -> (f64, f64) {
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
    pub(super) fn is_baseline(&self) -> bool {
        self.config == "static" || self.config == "DB embed"
    }
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
