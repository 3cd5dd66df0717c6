//! The document: per comparison, the nginx tunings tried, the reference's configuration, and
//! every pair with the medians of their ratios.

use std::fmt::Write;

use super::measure::Run;
use super::{Comparison, Plan};

/// The markdown of every comparison.
pub fn markdown(comparisons: &[Comparison], plan: Plan, system: &str) -> String {
    let Plan {
        pairs,
        seconds,
        together,
    } = plan;
    let pairing = if together {
        "the contender's run and the reference's side by side (both at once, each with its own \
         wrk, the servers sharing core 0)"
    } else {
        "each contender's run right after a run of the reference"
    };
    let mut out = format!(
        "`cargo xtask bench-nginx` ({system}): persistent servers pinned to core 0, warmed; \
         `wrk -t1 -c50 -d{seconds}s` pinned to core 1; {pairs} pairs per row, {pairing}; CPU \
         per request is the server's user + system time (every process and thread) over wrk's \
         request count (17 MiB: over the bytes wrk read, in files' worth, partial ones \
         included). Ratios are contender / reference, the median of the per-pair ratios.\n"
    );
    for comparison in comparisons {
        section(&mut out, comparison);
    }
    out
}

fn section(out: &mut String, comparison: &Comparison) {
    let _ = writeln!(out, "\n### {}\n", comparison.title);
    if !comparison.tunings.is_empty() {
        out.push_str(
            "| nginx tuning | CPU / request (median) | req/s (median) | runs (CPU µs) |\n",
        );
        out.push_str("| --- | --- | --- | --- |\n");
        for (name, runs) in &comparison.tunings {
            let each: Vec<String> = runs
                .iter()
                .map(|run| format!("{:.1}", run.cpu_us_per_request))
                .collect();
            let _ = writeln!(
                out,
                "| {name} | {:.1} µs | {:.0} | {} |",
                median_of(runs, |run| run.cpu_us_per_request),
                median_of(runs, |run| run.requests_per_second),
                each.join(", ")
            );
        }
        if let Some(tuning) = super::nginx::TUNINGS
            .iter()
            .find(|tuning| comparison.reference.ends_with(tuning.name))
        {
            let _ = writeln!(
                out,
                "\nReference: the cheapest, `{}`; its `http {{}}` block:\n\n```nginx\n{}\n```",
                tuning.name,
                tuning.http_block()
            );
        }
    } else {
        let _ = writeln!(out, "Reference: {}.", comparison.reference);
    }
    if let Some(pairing) = comparison.pairing {
        let _ = writeln!(out, "\nPairs here ran {pairing}.");
    }
    pairs_table(out, comparison);
    for (name, why) in &comparison.left_out {
        let _ = writeln!(out, "\nLeft out: {name}: {why}.");
    }
}

fn pairs_table(out: &mut String, comparison: &Comparison) {
    let count = comparison.rows.first().map_or(0, |row| row.pairs.len());
    out.push_str("\n| configuration |");
    for pair in 1..=count {
        let _ = write!(out, " pair {pair}: CPU µs, ref → this |");
    }
    out.push_str(
        " CPU / request vs ref | req/s vs ref | context switches / request | p99 | errors | non-2xx |\n|",
    );
    out.push_str(&" --- |".repeat(count + 7));
    out.push('\n');
    for row in &comparison.rows {
        let _ = write!(out, "| {} |", row.name);
        for (reference, this) in &row.pairs {
            let _ = write!(
                out,
                " {:.1} → {:.1} ({:.2}x) |",
                reference.cpu_us_per_request,
                this.cpu_us_per_request,
                this.cpu_us_per_request / reference.cpu_us_per_request
            );
        }
        let ratio = |key: fn(&Run) -> f64| {
            median(
                row.pairs
                    .iter()
                    .map(|(reference, this)| key(this) / key(reference))
                    .collect(),
            )
        };
        let contender: Vec<Run> = row.pairs.iter().map(|(_, this)| *this).collect();
        let errors: u64 = contender.iter().map(|run| run.errors).sum();
        let non_2xx: u64 = contender.iter().map(|run| run.non_2xx).sum();
        let _ = writeln!(
            out,
            " **{:.2}x** | {:.2}x | {:.2} | {:.2} ms | {errors} | {non_2xx} |",
            ratio(|run| run.cpu_us_per_request),
            ratio(|run| run.requests_per_second),
            median_of(&contender, |run| run.switches_per_request),
            median_of(&contender, |run| run.p99_ms),
        );
    }
}

fn median_of(runs: &[Run], key: fn(&Run) -> f64) -> f64 {
    median(runs.iter().map(key).collect())
}

/// The median of `values` (the mean of the middle two for an even count); NaN when empty.
pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    match values.len() {
        0 => f64::NAN,
        len if len % 2 == 1 => values[middle],
        _ => (values[middle - 1] + values[middle]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::{markdown, median};
    use crate::bench_nginx::measure::Run;
    use crate::bench_nginx::{Comparison, Plan, Row};

    fn run(cpu: f64, rps: f64) -> Run {
        Run {
            requests_per_second: rps,
            cpu_us_per_request: cpu,
            switches_per_request: 1.0,
            p99_ms: 2.0,
            requests: 1000,
            errors: 0,
            non_2xx: 0,
        }
    }

    #[test]
    fn the_median_is_the_middle_value_or_the_mean_of_the_middle_two() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(Vec::new()).is_nan());
    }

    #[test]
    fn every_pair_is_shown_and_the_ratio_is_the_median_of_the_pairs_ratios() {
        let tuning = &crate::bench_nginx::nginx::TUNINGS[0];
        let comparison = Comparison {
            title: "17 MiB".to_owned(),
            tunings: vec![(format!("nginx, {}", tuning.name), vec![run(10.0, 100.0)])],
            reference: format!("nginx, {}", tuning.name),
            rows: vec![Row {
                name: "contender".to_owned(),
                // Ratios 0.5, 2.0 and 0.9: their median is 0.9; the ratio of the medians
                // (18 / 10) would be 1.8.
                pairs: vec![
                    (run(10.0, 100.0), run(5.0, 100.0)),
                    (run(10.0, 100.0), run(20.0, 100.0)),
                    (run(20.0, 100.0), run(18.0, 100.0)),
                ],
            }],
            left_out: vec![("h2o".to_owned(), "not installed".to_owned())],
            pairing: Some("one after the other"),
        };
        let plan = Plan {
            pairs: 3,
            seconds: 5,
            together: true,
        };
        let text = markdown(&[comparison], plan, "nginx/1.22.1");
        assert!(text.contains("side by side"), "{text}");
        for pair in [
            "10.0 → 5.0 (0.50x)",
            "10.0 → 20.0 (2.00x)",
            "20.0 → 18.0 (0.90x)",
        ] {
            assert!(text.contains(pair), "{pair}: {text}");
        }
        assert!(text.contains("**0.90x**"), "{text}");
        assert!(
            text.contains(&tuning.http_block()),
            "the reference's configuration: {text}"
        );
        assert!(text.contains("-d5s"), "{text}");
        assert!(text.contains("nginx/1.22.1"), "{text}");
        assert!(text.contains("Left out: h2o: not installed."), "{text}");
        assert!(
            text.contains("Pairs here ran one after the other."),
            "{text}"
        );
    }
}
