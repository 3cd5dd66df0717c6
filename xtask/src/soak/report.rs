//! What a soak measured, as one report: printed (`Display`), written to
//! `target/bench/soak.md`, and checked against what must hold (`check`).

use std::fmt;
use std::sync::atomic::Ordering;

use anyhow::{Context, ensure};

use super::clients::{Tallies, Tally};
use super::{HEADER_TIMEOUT, IDLE_TIMEOUT};

/// The figures of one soak.
pub struct Report {
    pub which: String,
    pub seconds: u64,
    /// The well-behaved load (wrk): requests, 5xx answers, socket errors, the worse p99.
    pub requests: u64,
    pub server_errors: u64,
    pub socket_errors: u64,
    pub p99_ms: f64,
    pub clients: std::sync::Arc<Tallies>,
    /// From `/metrics`: closed by each deadline, evicted, refused at the caps.
    pub expired_first_request: f64,
    pub expired_stalled: f64,
    pub evicted: f64,
    pub refused: f64,
    /// Database swaps of each way, reloads and refused loads.
    pub swaps: [u32; 4],
    pub reloads: u32,
    pub refusals: u32,
    pub mapped_copies: usize,
    /// The memory, settled, after each stretch; the first is the baseline.
    pub course: Vec<Measure>,
}

/// The memory in one settled state.
#[derive(Debug, Clone, Copy)]
pub struct Measure {
    /// Seconds of load so far.
    pub after_s: u64,
    /// Private RSS less the answer cache, KiB.
    pub rss_kib: f64,
    /// The heap in use less the answer cache, KiB.
    pub heap_kib: f64,
}

fn load(tally: &Tally) -> (u64, u64, u64, f64) {
    (
        tally.opened.load(Ordering::Relaxed),
        tally.ok.load(Ordering::Relaxed),
        tally.bad.load(Ordering::Relaxed),
        tally.longest_ms.load(Ordering::Relaxed) as f64 / 1000.0,
    )
}

impl Report {
    /// Adds one wrk run's figures (its output with the soak script's `server_errors=` line).
    pub fn add_load(&mut self, text: &str) -> anyhow::Result<()> {
        let sample = crate::bench_http::parse_wrk(text)?;
        self.requests += sample.requests;
        self.socket_errors += sample.errors;
        self.p99_ms = self.p99_ms.max(sample.p99_ms);
        self.server_errors += text
            .lines()
            .find_map(|line| line.strip_prefix("server_errors="))
            .and_then(|value| value.trim().parse::<u64>().ok())
            .context("the script reports server_errors")?;
        Ok(())
    }

    /// The first measure (the baseline) and the last.
    fn ends(&self) -> anyhow::Result<(Measure, Measure)> {
        match (self.course.first(), self.course.last()) {
            (Some(&first), Some(&last)) => Ok((first, last)),
            _ => anyhow::bail!("the soak measured nothing"),
        }
    }

    /// Fails on any 5xx or socket error of the well-behaved load, a hostile connection that
    /// outlived its deadline, a slow reader cut short, a believed spoof, memory growth over 2%
    /// (a short run: 4 MiB), a replaced database still mapped, or no request answered.
    pub fn check(&self) -> anyhow::Result<()> {
        ensure!(self.requests > 0, "the load answered nothing");
        ensure!(
            self.server_errors == 0,
            "{} answers were 5xx",
            self.server_errors
        );
        ensure!(
            self.socket_errors == 0,
            "{} socket errors",
            self.socket_errors
        );
        let clients = &self.clients;
        for (kind, tally) in [
            ("hostile openings", &clients.openings),
            ("HTTP/2 window-0 holders", &clients.window_zero),
        ] {
            let (opened, _, overdue, longest) = load(tally);
            ensure!(opened > 0, "no {kind} ran");
            ensure!(
                overdue == 0,
                "{overdue} {kind} outlived their deadline (longest {longest:.1} s)"
            );
        }
        let (read, _, cut, _) = load(&clients.slow_readers);
        ensure!(
            read > 0 && cut == 0,
            "{cut} of {read} slow range readers were cut short"
        );
        ensure!(
            self.expired_stalled > 0.0,
            "no stalled connection was counted"
        );
        let (_, _, believed, _) = load(&clients.spoofs);
        ensure!(believed == 0, "a spoofed X-Forwarded-For was believed");
        // After a minute the server has met every kind of request and swap: 2%. A short run's
        // baseline after 3 s is not warm yet (buffers, the blocking pool's threads): a leak
        // shows there as megabytes, not percents.
        let (baseline, end) = self.ends()?;
        let grown_kib = end.rss_kib - baseline.rss_kib;
        let growth = growth(baseline, end);
        ensure!(
            growth.abs() <= 2.0 || (self.seconds < 120 && grown_kib.abs() < 4096.0),
            "private RSS moved {growth:+.2}% ({grown_kib:.0} KiB) from its baseline"
        );
        ensure!(
            self.mapped_copies == 1,
            "{} database copies are mapped: replaced ones were not released",
            self.mapped_copies
        );
        Ok(())
    }
}

impl fmt::Display for Report {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let per_second = self.requests as f64 / self.seconds as f64;
        writeln!(
            out,
            "soak of {}: {} s, {} requests ({per_second:.0}/s), p99 {:.2} ms (the worse stretch), \
             5xx {}, socket errors {}",
            self.which,
            self.seconds,
            self.requests,
            self.p99_ms,
            self.server_errors,
            self.socket_errors
        )?;
        let clients = &self.clients;
        let (opened, closed, overdue, longest) = load(&clients.openings);
        writeln!(
            out,
            "hostile openings: {opened} opened, {closed} closed within {} s, {overdue} overdue, \
             longest {longest:.1} s ({:.0} closed by the first-request deadline)",
            HEADER_TIMEOUT + 1,
            self.expired_first_request
        )?;
        let (opened, closed, overdue, longest) = load(&clients.window_zero);
        writeln!(
            out,
            "HTTP/2 window-0 holders (20 streams, a HEAD a second): {opened} opened, {closed} closed \
             within {} s, {overdue} overdue, longest {longest:.1} s ({:.0} counted stalled)",
            IDLE_TIMEOUT + 2,
            self.expired_stalled
        )?;
        let (read, whole, cut, longest) = load(&clients.slow_readers);
        writeln!(
            out,
            "slow readers of two ranges: {read} started, {whole} answered whole, {cut} cut, longest {longest:.1} s"
        )?;
        let (opened, closed, _, _) = load(&clients.hog);
        writeln!(
            out,
            "hog (127.0.0.2): {opened} connections opened, {closed} closed to make room; \
             {:.0} evicted, {:.0} refused at the caps",
            self.evicted, self.refused
        )?;
        let (sent, _, believed, _) = load(&clients.spoofs);
        writeln!(out, "spoofed /geo/me: {sent} sent, {believed} believed")?;
        let [renames, copies, truncations, races] = self.swaps;
        writeln!(
            out,
            "database swaps: {renames} renames, {copies} cp in place, {truncations} truncate-then-write, \
             {races} SIGHUP races ({} reloads, {} refused loads logged), {} private copy mapped at the end",
            self.reloads, self.refusals, self.mapped_copies
        )?;
        self.write_memory(out)
    }
}

impl Report {
    /// The memory's course and its two ends, the last lines of the report.
    fn write_memory(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let course: Vec<String> = self
            .course
            .iter()
            .map(|measure| {
                format!(
                    "{} s {:.2} ({:.2})",
                    measure.after_s,
                    measure.rss_kib / 1024.0,
                    measure.heap_kib / 1024.0
                )
            })
            .collect();
        writeln!(
            out,
            "private RSS (heap in use) less the answer cache after each stretch (MiB): {}",
            course.join(", ")
        )?;
        let Ok((baseline, end)) = self.ends() else {
            return write!(out, "no memory was measured");
        };
        write!(
            out,
            "private RSS less the answer cache after {} s {:.1} MiB, at the end {:.1} MiB ({:+.2}%); \
             heap in use less the cache {:.1} MiB, then {:.1} MiB",
            baseline.after_s,
            baseline.rss_kib / 1024.0,
            end.rss_kib / 1024.0,
            growth(baseline, end),
            baseline.heap_kib / 1024.0,
            end.heap_kib / 1024.0
        )
    }
}

/// How far private RSS moved from `baseline` to `end`, in percent.
fn growth(baseline: Measure, end: Measure) -> f64 {
    (end.rss_kib - baseline.rss_kib) / baseline.rss_kib * 100.0
}
