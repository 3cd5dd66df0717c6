//! What a soak measured, as one report: printed (`Display`), written to
//! `target/bench/soak.md`, and checked against what must hold (`check`).

use std::fmt;
use std::sync::atomic::Ordering;

use anyhow::{Context, ensure};

use super::clients::{Tallies, Tally};
use super::{HEADER_TIMEOUT, IDLE_TIMEOUT, LONG_RUN};

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
    /// RSS less the answer cache and less the mapped database's resident pages, KiB: what the
    /// check judges.
    pub rss_kib: f64,
    /// Private RSS (`RssAnon`) less the answer cache, KiB.
    pub private_kib: f64,
    /// The heap in use less the answer cache, KiB.
    pub heap_kib: f64,
}

/// One end of the soak: the medians of the measures from `from_s` to `to_s` seconds of load.
#[derive(Debug, Clone, Copy)]
struct End {
    from_s: u64,
    to_s: u64,
    rss_kib: f64,
    private_kib: f64,
    heap_kib: f64,
}

impl End {
    /// The medians of `measures`, each figure on its own; `None` when there are none.
    fn of<'a>(measures: impl Iterator<Item = &'a Measure> + Clone) -> Option<End> {
        let median = |figure: fn(&Measure) -> f64| {
            let mut figures: Vec<f64> = measures.clone().map(figure).collect();
            figures.sort_by(f64::total_cmp);
            let middle = figures.len() / 2;
            match figures.len() {
                0 => None,
                length if length % 2 == 1 => Some(figures[middle]),
                _ => Some((figures[middle - 1] + figures[middle]) / 2.0),
            }
        };
        Some(End {
            from_s: measures.clone().map(|measure| measure.after_s).min()?,
            to_s: measures.clone().map(|measure| measure.after_s).max()?,
            rss_kib: median(|measure| measure.rss_kib)?,
            private_kib: median(|measure| measure.private_kib)?,
            heap_kib: median(|measure| measure.heap_kib)?,
        })
    }
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

    /// RSS less the answer cache and the database: its last minute within 2% of its second
    /// minute, either way. After a minute the server has met every kind of request and swap. A
    /// short run's baseline after 3 s is not warm yet (buffers, the blocking pool's threads): a
    /// leak shows there as megabytes, not percents.
    fn check_memory(&self) -> anyhow::Result<()> {
        let (baseline, end) = self.ends()?;
        let grown_kib = end.rss_kib - baseline.rss_kib;
        let growth = growth(baseline.rss_kib, end.rss_kib);
        ensure!(
            growth.abs() <= 2.0 || (self.seconds < LONG_RUN && grown_kib.abs() < 4096.0),
            "RSS less the answer cache and the database moved {growth:+.2}% ({grown_kib:.0} KiB) \
             from its baseline"
        );
        Ok(())
    }

    /// The soak's two ends, each the median of the measures of a minute: the second minute
    /// (60 to 120 s of load: the baseline) and the last one. A short run's are its first
    /// measure and its last.
    fn ends(&self) -> anyhow::Result<(End, End)> {
        let (Some(first), Some(last)) = (self.course.first(), self.course.last()) else {
            anyhow::bail!("the soak measured nothing");
        };
        let minute = if self.seconds >= LONG_RUN { 60 } else { 0 };
        let course = self.course.iter();
        let start = course
            .clone()
            .filter(|measure| measure.after_s <= first.after_s + minute);
        let end = course.filter(|measure| measure.after_s + minute >= last.after_s);
        End::of(start)
            .zip(End::of(end))
            .context("the soak measured nothing")
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
        self.check_memory()?;
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
            "hostile openings: {opened} opened, {closed} closed within {} s of the handshake, \
             {overdue} overdue, longest {longest:.1} s ({:.0} closed by the first-request \
             deadline); slowest handshake {:.1} s",
            HEADER_TIMEOUT + 1,
            self.expired_first_request,
            clients.openings.slowest_connect_ms.load(Ordering::Relaxed) as f64 / 1000.0
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
                    "{} s {:.2} / {:.2} ({:.2})",
                    measure.after_s,
                    measure.rss_kib / 1024.0,
                    measure.private_kib / 1024.0,
                    measure.heap_kib / 1024.0
                )
            })
            .collect();
        writeln!(
            out,
            "after each stretch, MiB: RSS less the answer cache and the database / private RSS \
             less the cache (heap in use less the cache): {}",
            course.join(", ")
        )?;
        let Ok((baseline, end)) = self.ends() else {
            return write!(out, "no memory was measured");
        };
        let mib = |kib: f64| kib / 1024.0;
        write!(
            out,
            "RSS less the answer cache and the database, median of {}-{} s {:.2} MiB, of {}-{} s \
             {:.2} MiB ({:+.2}%); private RSS less the cache {:.2}, then {:.2} MiB ({:+.2}%); \
             heap in use less the cache {:.2}, then {:.2} MiB",
            baseline.from_s,
            baseline.to_s,
            mib(baseline.rss_kib),
            end.from_s,
            end.to_s,
            mib(end.rss_kib),
            growth(baseline.rss_kib, end.rss_kib),
            mib(baseline.private_kib),
            mib(end.private_kib),
            growth(baseline.private_kib, end.private_kib),
            mib(baseline.heap_kib),
            mib(end.heap_kib)
        )
    }
}

/// How far a figure moved from `baseline` to `end`, in percent.
fn growth(baseline: f64, end: f64) -> f64 {
    (end - baseline) / baseline * 100.0
}

#[cfg(test)]
mod tests {
    use super::{Measure, Report};

    fn report(seconds: u64, course: &[(u64, f64)]) -> Report {
        Report {
            which: "a test".to_owned(),
            seconds,
            requests: 1,
            server_errors: 0,
            socket_errors: 0,
            p99_ms: 1.0,
            clients: std::sync::Arc::default(),
            expired_first_request: 0.0,
            expired_stalled: 0.0,
            evicted: 0.0,
            refused: 0.0,
            swaps: [0; 4],
            reloads: 0,
            refusals: 0,
            mapped_copies: 1,
            course: course
                .iter()
                .map(|&(after_s, mib)| Measure {
                    after_s,
                    rss_kib: mib * 1024.0,
                    private_kib: mib * 256.0,
                    heap_kib: 100.0,
                })
                .collect(),
        }
    }

    /// A ten-minute course: a measure after 60 s, then every 30 s.
    fn ten_minutes(level: impl Fn(u64) -> f64) -> Report {
        let course: Vec<(u64, f64)> = (0..19)
            .map(|index| 60 + 30 * index)
            .map(|after_s| (after_s, level(after_s)))
            .collect();
        report(600, &course)
    }

    #[test]
    fn each_end_is_the_median_of_its_minute() {
        // One high and one low measure at either end move nothing.
        let soak = ten_minutes(|after_s| match after_s {
            60 => 10.6,
            600 => 9.4,
            _ => 10.0,
        });
        let (baseline, end) = soak.ends().expect("measures");
        assert_eq!((baseline.from_s, baseline.to_s), (60, 120));
        assert_eq!((end.from_s, end.to_s), (540, 600));
        assert_eq!(baseline.rss_kib, 10.0 * 1024.0);
        assert_eq!(end.rss_kib, 10.0 * 1024.0);
        assert_eq!(end.private_kib, 10.0 * 256.0);
        soak.check_memory().expect("within its allowance");
    }

    #[test]
    fn a_steady_climb_fails_and_so_does_a_fall() {
        let climb = ten_minutes(|after_s| 10.0 + after_s as f64 / 1000.0);
        let error = climb.check_memory().expect_err("a climb").to_string();
        assert!(error.contains("+4.76%"), "{error}");
        let fall = ten_minutes(|after_s| if after_s > 400 { 9.7 } else { 10.0 });
        assert!(fall.check_memory().is_err());
        let flat = ten_minutes(|after_s| 10.0 + if after_s % 60 == 0 { 0.1 } else { -0.1 });
        flat.check_memory().expect("flat within its noise");
    }

    #[test]
    fn a_short_run_compares_its_first_and_last_measures_in_mebibytes() {
        let soak = report(20, &[(3, 2.0), (20, 5.0)]);
        soak.check_memory().expect("within its allowance");
        let (baseline, end) = soak.ends().expect("measures");
        assert_eq!((baseline.from_s, end.to_s), (3, 20));
        assert!(report(20, &[(3, 2.0), (20, 6.5)]).check_memory().is_err());
        assert!(report(20, &[]).check_memory().is_err());
    }
}
