//! `cargo xtask bench-hostile`: the same hostile clients (bindery_test_support::hostile) against
//! each deployment SECURITY.md compares: the docs' axum program on `bindery::serve::Server`, the
//! same on plain `axum::serve`, and the docs' actix-web and rocket programs, each a crate built
//! in release mode (optimised) outside the workspace and started at an open-file limit of 1,024.
//! Then, against a fresh start of each, the busy-slot attack (bindery_test_support::busy): two
//! addresses keeping every slot the open-file limit allows busy, and a probe from a third.
//! The tables go to stdout and `target/bench/hostile.md`.

use std::fmt::Write as _;
use std::time::Duration;

use bindery_test_support::busy::{self, BusyAttack, BusyReport};
use bindery_test_support::deployment::{self, BIG, Deployment, GZIP, SMALL};
use bindery_test_support::hostile::{self, Attack, Closures, Report};
use bindery_test_support::{Project, workspace};

/// Flags of `cargo xtask bench-hostile`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only these deployments (bindery-server, axum-serve, actix-web, rocket).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// The open-file limit each server runs with.
    #[arg(long, default_value_t = 1024)]
    pub open_files: u64,
    /// Seconds the attack may last.
    #[arg(long, default_value_t = 100)]
    pub patience: u64,
    /// Seconds of the busy-slot attack (0: none).
    #[arg(long, default_value_t = 120)]
    pub busy_seconds: u64,
    /// Only the busy-slot attack (its table), not the standard one.
    #[arg(long)]
    pub busy_only: bool,
}

/// Builds and attacks each deployment in turn, then prints the table.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let target = workspace().join("target/bench/hostile-crates");
    busy::raise_open_file_limit();
    let mut table = header();
    let mut busy_table = busy_header();
    for deployment in Deployment::ALL {
        if !args.only.is_empty() && !args.only.iter().any(|name| name == deployment.name()) {
            continue;
        }
        let project = Project::new(&target);
        deployment.write(&project);
        eprintln!("bench-hostile: building {} (release)", deployment.name());
        let status = project
            .cargo(&["build", "--release", "--quiet"])
            .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "3")
            .status()?;
        anyhow::ensure!(
            status.success(),
            "the {} crate did not build",
            deployment.name()
        );
        if !args.busy_only {
            let running = deployment::start(&deployment.binary(&project), args.open_files);
            let attack = Attack {
                patience: Duration::from_secs(args.patience),
                ..Attack::standard(BIG, GZIP, SMALL)
            };
            eprintln!("bench-hostile: attacking {}", deployment.name());
            let report = hostile::run(running.address, running.pid(), &attack);
            row(&mut table, deployment, &report);
            eprintln!("{report:?}");
        }
        if args.busy_seconds > 0 {
            let running = deployment::start(&deployment.binary(&project), args.open_files);
            eprintln!("bench-hostile: busy slots against {}", deployment.name());
            let report = busy::run(running.address, running.pid(), &busy_attack(args));
            busy_row(&mut busy_table, deployment, &report);
            eprintln!("{report:?}");
        }
        // Written after each deployment: a later one that fails to build keeps the others'.
        std::fs::create_dir_all("target/bench")?;
        std::fs::write("target/bench/hostile.md", format!("{table}\n{busy_table}"))?;
    }
    println!("{table}\n{busy_table}");
    Ok(())
}

/// Two addresses, each trying to hold half the descriptors and a few more, busy.
fn busy_attack(args: &Args) -> BusyAttack {
    let per_address = usize::try_from(args.open_files / 2).unwrap_or(usize::MAX) + 8;
    BusyAttack {
        addresses: vec![[127, 10, 0, 1].into(), [127, 11, 0, 1].into()],
        per_address,
        replace_every: Duration::from_secs(45),
        page: SMALL.to_owned(),
        large: BIG.to_owned(),
        probe_from: [127, 250, 0, 1].into(),
        probe_every: Duration::from_secs(2),
        probe_timeout: Duration::from_secs(2),
        duration: Duration::from_secs(args.busy_seconds),
    }
}

fn busy_header() -> String {
    "| deployment | probes answered (every 2 s, 2 s each) | longest without an answer | \
     attackers' connections held (most / at the end) |\n| --- | --- | --- | --- |\n"
        .to_owned()
}

fn busy_row(table: &mut String, deployment: Deployment, report: &BusyReport) {
    let _ = writeln!(
        table,
        "| {} | {} of {} | {:.0} s | {} / {} |",
        deployment.name(),
        report.answered,
        report.probes,
        report.longest_without_answer.as_secs_f64(),
        report.held_most,
        report.held_at_end.iter().sum::<usize>(),
    );
}

fn header() -> String {
    "| deployment | 500 slow heads (a byte / 5 s) | 10 HTTP/2 at window 0 | 50 readers at 1 KB/s | \
     1,100 from one client | normal client | heap (RssAnon) before / peak / 30 s after |\n\
     | --- | --- | --- | --- | --- | --- | --- |\n"
        .to_owned()
}

/// "closed at 10.0-10.2 s" or "N of M open at 100 s".
fn closures(closures: &Closures, ran: Duration) -> String {
    let mut text = String::new();
    if let (Some(median), Some(longest)) = (closures.median(), closures.longest()) {
        let _ = write!(
            text,
            "{} closed, median {:.1} s, last {:.1} s",
            closures.closed_after.len(),
            median.as_secs_f64(),
            longest.as_secs_f64()
        );
    }
    if closures.open_at_end > 0 {
        let separator = if text.is_empty() { "" } else { "; " };
        let _ = write!(
            text,
            "{separator}{} open at {:.0} s",
            closures.open_at_end,
            ran.as_secs_f64()
        );
    }
    if closures.failed > 0 {
        let _ = write!(text, "; {} could not connect", closures.failed);
    }
    text
}

fn row(table: &mut String, deployment: Deployment, report: &Report) {
    let window_zero = if report.window_zero_without_http2 == report.window_zero.opened
        && report.window_zero.opened > 0
    {
        "no HTTP/2 (h2c) spoken".to_owned()
    } else {
        closures(&report.window_zero, report.ran)
    };
    let readers = format!(
        "{}; each got ≥ {} KB",
        closures(&report.slow_readers, report.ran),
        report.slow_reader_least_bytes / 1000
    );
    let hog = format!(
        "{}; {} answered",
        closures(&report.hog, report.ran),
        report.hog_answered
    );
    let normal = format!(
        "{} of {} answered, slowest {:.2} s, none for {:.0} s",
        report.normal.answered,
        report.normal.requests,
        report.normal.slowest.as_secs_f64(),
        report.normal.longest_without_answer.as_secs_f64()
    );
    let memory = format!(
        "{:.1} / {:.1} / {:.1} MiB",
        report.anon_before as f64 / 1024.0,
        report.anon_peak as f64 / 1024.0,
        report.anon_after as f64 / 1024.0
    );
    let _ = writeln!(
        table,
        "| {} | {} | {window_zero} | {readers} | {hog} | {normal} | {memory} |",
        deployment.name(),
        closures(&report.slow_headers, report.ran),
    );
}
