//! HTTP by hand for tests and tools: one request on a fresh connection (from a chosen local
//! address), a free port, a sample of a Prometheus exposition.

/// One response read off the socket by [`raw_request`].
#[derive(Debug)]
pub struct RawResponse {
    /// The status line as sent, e.g. `HTTP/1.1 200 OK`.
    pub status_line: String,
    /// The status code.
    pub status: u16,
    /// The headers, names in lowercase (a repeated header keeps its last value).
    pub headers: std::collections::BTreeMap<String, String>,
    /// The body, as sent (`Connection: close`: everything after the head).
    pub body: Vec<u8>,
}

impl RawResponse {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }

    /// The body as text (lossy).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Sends one HTTP/1.1 request written by hand on a fresh connection (`Connection: close`) and
/// reads the whole response. The target reaches the server exactly as given: a client library
/// would resolve `..` or refuse odd bytes before sending. Panics when the server cannot be
/// reached; [`try_raw_request`] says so instead.
///
/// ```no_run
/// let response = bindery_test_support::raw_request("127.0.0.1:8080", "GET", "/../x", &[]);
/// assert!([400, 404].contains(&response.status));
/// ```
pub fn raw_request(
    address: impl std::net::ToSocketAddrs,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
) -> RawResponse {
    let address = address
        .to_socket_addrs()
        .ok()
        .and_then(|mut addresses| addresses.next())
        .expect("an address");
    try_raw_request(address, None, method, target, headers).expect("the server answers")
}

/// [`raw_request`] from the local address `source` (another loopback address is another
/// client), failing instead of panicking: for tools that report rather than assert. Reads
/// time out after 30 s.
pub fn try_raw_request(
    address: std::net::SocketAddr,
    source: Option<std::net::IpAddr>,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
) -> std::io::Result<RawResponse> {
    use std::io::{Read, Write};
    let mut stream = try_connect_from(address, source)?;
    stream.set_read_timeout(Some(std::time::Duration::from_secs(30)))?;
    let mut head = format!("{method} {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    let mut raw = Vec::new();
    // A reset after a complete answer still leaves that answer to check.
    if let Err(error) = stream.read_to_end(&mut raw)
        && raw.is_empty()
    {
        return Err(error);
    }
    Ok(RawResponse::parse(&raw))
}

impl RawResponse {
    /// A response as it came off the socket: the status line, the headers, the rest.
    fn parse(raw: &[u8]) -> RawResponse {
        let split = raw
            .windows(4)
            .position(|window| window == b"\r\n\r\n")
            .unwrap_or(raw.len());
        let head = String::from_utf8_lossy(&raw[..split]).into_owned();
        let mut lines = head.lines();
        let status_line = lines.next().unwrap_or_default().to_owned();
        let status = status_line
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or_default();
        let headers = lines
            .filter_map(|line| line.split_once(':'))
            .map(|(name, value)| (name.to_ascii_lowercase(), value.trim().to_owned()))
            .collect();
        RawResponse {
            status_line,
            status,
            headers,
            body: raw.get(split + 4..).unwrap_or_default().to_vec(),
        }
    }
}

/// A sample of a Prometheus text exposition: `name` with exactly these `labels`, when the
/// exposition has it (parsed by `prometheus-parse`, not by hand).
///
/// ```
/// let text = "# TYPE hits counter\nhits{route=\"/a\"} 3\nhits{route=\"/b\"} 4\nup 1\n";
/// assert_eq!(bindery_test_support::metric(text, "hits", &[("route", "/b")]), Some(4.0));
/// assert_eq!(bindery_test_support::metric(text, "up", &[]), Some(1.0));
/// assert_eq!(bindery_test_support::metric(text, "down", &[]), None);
/// ```
pub fn metric(exposition: &str, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    samples(exposition, name)
        .into_iter()
        .find(|(found, _)| {
            found.len() == labels.len()
                && labels
                    .iter()
                    .all(|(label, value)| found.get(*label).map(String::as_str) == Some(*value))
        })
        .map(|(_, value)| value)
}

/// Every sample of `name` in a Prometheus text exposition: its labels and its value (counters,
/// gauges and untyped samples; parsed by `prometheus-parse`). Empty when the text does not parse.
///
/// ```
/// let text = "# TYPE hits counter\nhits{route=\"/a\"} 3\nhits{route=\"/b\"} 4\n";
/// let all = bindery_test_support::samples(text, "hits");
/// assert_eq!(all.len(), 2);
/// assert_eq!(all[1].0["route"], "/b");
/// assert_eq!(all[1].1, 4.0);
/// ```
pub fn samples(
    exposition: &str,
    name: &str,
) -> Vec<(std::collections::BTreeMap<String, String>, f64)> {
    let lines = exposition.lines().map(|line| Ok(line.to_owned()));
    let Ok(scrape) = prometheus_parse::Scrape::parse(lines) else {
        return Vec::new();
    };
    scrape
        .samples
        .into_iter()
        .filter(|sample| sample.metric == name)
        .filter_map(|sample| {
            let value = match sample.value {
                prometheus_parse::Value::Counter(value)
                | prometheus_parse::Value::Gauge(value)
                | prometheus_parse::Value::Untyped(value) => value,
                _ => return None,
            };
            let labels = sample
                .labels
                .iter()
                .map(|(label, value)| (label.clone(), value.clone()))
                .collect();
            Some((labels, value))
        })
        .collect()
}

/// A TCP connection to `address` from `local` (another loopback address, `127.0.0.2`, is
/// another client to a server that counts connections per address), or from wherever the
/// system picks.
///
/// ```no_run
/// let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
/// let address = listener.local_addr().unwrap();
/// let stream = bindery_test_support::connect_from(address, Some("127.0.0.2".parse().unwrap()));
/// assert_eq!(listener.accept().unwrap().1.ip().to_string(), "127.0.0.2");
/// # drop(stream);
/// ```
pub fn connect_from(
    address: std::net::SocketAddr,
    local: Option<std::net::IpAddr>,
) -> std::net::TcpStream {
    try_connect_from(address, local).expect("connect")
}

/// [`connect_from`], failing instead of panicking (connects time out after 5 s).
pub fn try_connect_from(
    address: std::net::SocketAddr,
    local: Option<std::net::IpAddr>,
) -> std::io::Result<std::net::TcpStream> {
    use socket2::{Domain, Socket, Type};
    let socket = Socket::new(Domain::for_address(address), Type::STREAM, None)?;
    if let Some(local) = local {
        socket.bind(&std::net::SocketAddr::new(local, 0).into())?;
    }
    socket.connect_timeout(&address.into(), std::time::Duration::from_secs(5))?;
    Ok(socket.into())
}

/// A port on 127.0.0.1 that nothing listens on now, for a server a test starts with a
/// `--listen`-style flag (the port is free when returned; a race with another process is
/// possible but unlikely on a test machine).
///
/// ```
/// let port = bindery_test_support::free_port();
/// assert!(std::net::TcpListener::bind(("127.0.0.1", port)).is_ok());
/// ```
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}
