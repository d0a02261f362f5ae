//! Helpers for the tests of the servers on 127.0.0.1 (`proctor review`, `proctor view`): the
//! address a server prints, raw HTTP requests with any `Host`, and agent text that would run
//! script if a page ever parsed it as markup.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

/// Agent text that would run script if it were ever parsed as markup.
pub const PAYLOAD: &str = "</script><script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=1\"><b>bold?</b>";

/// Starts a page server (`proctor review …`, `proctor view …`) made by `command`, its
/// standard output read for the address; the process, port and token.
pub fn start_page_server(command: &mut Command) -> (Child, u16, String) {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (port, token) = address(&mut child);
    (child, port, token)
}

/// The address of the page, with its token.
pub fn page_url(port: u16, token: &str) -> String {
    format!("http://127.0.0.1:{port}/?token={token}")
}

/// The port and token of the `http://127.0.0.1:PORT/?token=T` line a server prints first on
/// its standard output (taken from `child`).
pub fn address(child: &mut Child) -> (u16, String) {
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let address = line
        .trim()
        .strip_prefix("http://127.0.0.1:")
        .unwrap_or_else(|| panic!("no address on stdout: {line:?}"));
    let (port, token) = address.split_once("/?token=").unwrap();
    (port.parse().unwrap(), token.to_owned())
}

/// A raw HTTP/1.1 request to 127.0.0.1:`port` with `Host` set; the status and the body.
pub fn http(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let (status, _, body) = http_full(port, method, path, headers, body.as_bytes());
    (status, String::from_utf8_lossy(&body).into_owned())
}

/// As [`http`], with the head of the answer and its body as bytes.
pub fn http_full(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String, Vec<u8>) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("Host: 127.0.0.1:{port}\r\n"));
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if !headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("content-length"))
    {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    // A refused request may be answered before its body is sent.
    let _ = stream.write_all(body);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or(answer.len());
    let head = String::from_utf8_lossy(&answer[..split]).into_owned();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP answer: {head:?}"));
    let body = answer.get(split + 4..).unwrap_or_default().to_vec();
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    let body = if chunked { unchunk(&body) } else { body };
    (status, head, body)
}

/// The body of a `Transfer-Encoding: chunked` answer (a page streamed as it is written).
fn unchunk(mut raw: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    loop {
        let end = raw
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("a chunk size line");
        let size = std::str::from_utf8(&raw[..end]).unwrap();
        let size = usize::from_str_radix(size.split(';').next().unwrap().trim(), 16).unwrap();
        raw = &raw[end + 2..];
        if size == 0 {
            return body;
        }
        body.extend_from_slice(&raw[..size]);
        raw = &raw[size + 2..];
    }
}
