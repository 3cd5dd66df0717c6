//! The ceiling `cargo xtask bench-http` compares with: a bare axum router that answers a route
//! with a static body (`Bytes::from_static`: the 1 KiB text, vue.min.js, the 17 MiB file), on
//! the same runtime setup as `bench-server` (one worker thread, `TCP_NODELAY`), with none of
//! geo-server's layers.
//!
//! With `--geo` it also answers `/geo/<ip>` with geo-server's JSON for the address (the embedded
//! database and its answer cache, `GeoDb::lookup`) and nothing else: no validators, no caching
//! headers, no connection guards, no metrics. That is the floor of `/geo` on this stack: what
//! the answer costs before geo-server's layers add theirs.
//!
//! With `--geo-floor`, `/geo/<ip>` parses the address as `--geo` does and answers one fixed
//! answer of a typical length (the median of the first 1,000 random addresses' answers) instead
//! of geo-server's: `fixed` with no lookup at all, what the route and an answer of that size
//! cost on this stack; `walk` after walking the database's search tree to the address's record
//! (`TreeJump::find`, 404 where there is none), what any correct answer costs at least. Between
//! them and `--geo`, the lookup's own share of `/geo` and the part of it that reading the tree
//! takes.

use std::net::SocketAddr;

use axum::response::IntoResponse;
use axum::serve::ListenerExt;
use bindery_benches::{bare_route, embedded};
use clap::Parser;

/// Serve static bodies at `/small.txt`, `/vue.min.js` and `/noise.bin`.
#[derive(Debug, Parser)]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:0")]
    addr: SocketAddr,
    /// Also answer `/geo/<ip>` from the embedded database, bare.
    #[arg(long, conflicts_with = "geo_floor")]
    geo: bool,
    /// Also answer `/geo/<ip>`, bare, with one fixed answer of a typical length, after this
    /// much of a lookup.
    #[arg(long, value_enum)]
    geo_floor: Option<GeoFloor>,
}

/// How much of a lookup `--geo-floor` does before its fixed answer.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum GeoFloor {
    /// None: the address is parsed, nothing more.
    Fixed,
    /// The walk down the search tree to the address's record, from the jump table.
    Walk,
}

static SMALL: &[u8] = include_bytes!("../../assets/web/small.txt");
static VUE: &[u8] = include_bytes!("../../assets/web/vue.min.js");

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let large = embedded(&bindery_benches::LARGE_STATIC, "noise.bin");
        let mut router = axum::Router::new()
            .route("/small.txt", bare_route("text/plain; charset=utf-8", SMALL))
            .route(
                "/vue.min.js",
                bare_route("text/javascript; charset=utf-8", VUE),
            )
            .route("/noise.bin", bare_route("application/octet-stream", large));
        if args.geo {
            router = router.route("/geo/{ip}", geo()?);
        } else if let Some(floor) = args.geo_floor {
            router = router.route("/geo/{ip}", geo_floor(floor)?);
        }
        let listener = tokio::net::TcpListener::bind(args.addr).await?;
        println!("listening addr={}", listener.local_addr()?);
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        axum::serve(listener, router).await?;
        anyhow::Ok(())
    })
}

/// The embedded database with geo-server's default answer cache, as geo-server loads it.
fn database() -> anyhow::Result<geo_server::db::GeoDb> {
    use geo_server::answer_cache::{DEFAULT_MIB, budget_from_mib};
    let db = geo_server::db::GeoDb::embedded_with_hash(
        geodb::DATABASE,
        geodb::ORIGIN,
        geodb::DATABASE_BLAKE3,
    )?;
    Ok(db.with_answer_cache(budget_from_mib(DEFAULT_MIB)))
}

/// `/geo/<ip>` with `--geo-floor`: one fixed answer ([`typical_answer`]) after `floor`'s part of
/// a lookup, 400 for what is not an address.
fn geo_floor(floor: GeoFloor) -> anyhow::Result<axum::routing::MethodRouter> {
    use geo_server::tree_jump::{Found, TreeJump};
    use http::StatusCode;
    let reader = maxminddb::Reader::from_source(geodb::DATABASE)?;
    // The database is only asked for the answer, then let go: the floor serves no lookup.
    let answer = bytes::Bytes::from(typical_answer(&database()?, &reader)?);
    let jump = TreeJump::new(geodb::DATABASE, reader.metadata())
        .ok_or_else(|| anyhow::anyhow!("no jump table for the embedded database"))?;
    let jump: &'static TreeJump<&[u8]> = Box::leak(Box::new(jump));
    Ok(axum::routing::get(
        move |axum::extract::Path(ip): axum::extract::Path<String>| async move {
            let Ok(ip) = ip.parse() else {
                return StatusCode::BAD_REQUEST.into_response();
            };
            if let GeoFloor::Walk = floor
                && let Some(Found::Nothing) = jump.find(ip)
            {
                return StatusCode::NOT_FOUND.into_response();
            }
            (
                [(http::header::CONTENT_TYPE, "application/json")],
                answer.clone(),
            )
                .into_response()
        },
    ))
}

/// `/geo/<ip>`: geo-server's JSON answer (English names) from the embedded database with its
/// default answer cache, 404 where the database has none, 400 for what is not an address.
fn geo() -> anyhow::Result<axum::routing::MethodRouter> {
    use http::StatusCode;
    let db: &'static geo_server::db::GeoDb = Box::leak(Box::new(database()?));
    Ok(axum::routing::get(
        move |axum::extract::Path(ip): axum::extract::Path<String>| async move {
            let Ok(ip) = ip.parse() else {
                return StatusCode::BAD_REQUEST.into_response();
            };
            match db.lookup(ip, geo_server::language::Language::English) {
                Ok(Some(json)) => {
                    ([(http::header::CONTENT_TYPE, "application/json")], json).into_response()
                }
                Ok(None) => StatusCode::NOT_FOUND.into_response(),
                Err(_) => StatusCode::BAD_REQUEST.into_response(),
            }
        },
    ))
}

/// The answer whose length is the median of the answers to the first 1,000 addresses of a
/// fixed pseudo-random sequence of IPv4 addresses that the database answers. A database that
/// answers none of them (the sample covers a few networks) gives the answers for the first 1,000
/// of its networks instead.
fn typical_answer(
    db: &geo_server::db::GeoDb,
    reader: &maxminddb::Reader<&[u8]>,
) -> anyhow::Result<Vec<u8>> {
    let answers_to = |addresses: &mut dyn Iterator<Item = std::net::IpAddr>| {
        let mut answers = Vec::new();
        for ip in addresses.take(1000) {
            if let Some(answer) = db.lookup(ip, geo_server::language::Language::English)? {
                answers.push(answer);
            }
        }
        anyhow::Ok(answers)
    };
    let mut random = bindery_test_support::Xorshift::new(0)
        .map(|state| std::net::IpAddr::V4(std::net::Ipv4Addr::from((state >> 32) as u32)));
    let mut answers = answers_to(&mut random)?;
    if answers.is_empty() {
        let mut networks = reader
            .networks(maxminddb::WithinOptions::default())?
            .filter_map(|found| Some(found.ok()?.network().ok()?.network()));
        answers = answers_to(&mut networks)?;
    }
    answers.sort_by_key(Vec::len);
    let middle = answers.len() / 2;
    answers
        .into_iter()
        .nth(middle)
        .ok_or_else(|| anyhow::anyhow!("the database answers no address"))
}
