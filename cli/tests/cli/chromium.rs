//! A headless Chromium driven through the DevTools protocol, for the HTML report's tests.
//!
//! Chromium starts with its own profile, no network features and a random DevTools port on
//! loopback; the test talks to it over one WebSocket (the browser target, with a flat session
//! for the page). Everything the page logs is collected, so a test can assert that nothing
//! went wrong, and every request it makes is recorded, so a test can assert that it made none.

use serde_json::{Value, json};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

const WAIT: Duration = Duration::from_secs(60);

/// The browser binary: `PROCTOR_CHROMIUM`, else the first of the usual names on `PATH`.
/// Without one a test says it was skipped and why, unless `PROCTOR_REQUIRE_CHROMIUM` is
/// set (as in CI, which installs it): then a missing browser fails the test.
pub fn chromium_binary() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("PROCTOR_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in ["chromium", "chromium-browser", "google-chrome", "chrome"] {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    let install =
        "install it (Debian: `apt-get install -y chromium`; .ci/run does) or set PROCTOR_CHROMIUM";
    assert!(
        std::env::var_os("PROCTOR_REQUIRE_CHROMIUM").is_none(),
        "the HTML report tests need headless Chromium and found none on PATH: {install}"
    );
    crate::skips::skip(
        "no headless Chromium on PATH (Debian: `apt-get install -y chromium`; or set PROCTOR_CHROMIUM)",
    );
    None
}

#[derive(Debug)]
pub struct Browser {
    child: Child,
    socket: WebSocket<MaybeTlsStream<TcpStream>>,
    next_id: u64,
    session: Option<String>,
    /// Every event received, in order.
    events: Vec<Value>,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Browser {
    /// A browser, or `None` (the test is skipped) where none is installed.
    pub fn launch() -> Option<Browser> {
        let binary = chromium_binary()?;
        let profile = tempfile::tempdir().unwrap();
        let child = Command::new(&binary)
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--disable-default-apps",
                "--window-size=1280,2000",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        // Chromium writes its port and browser path here once it listens.
        let port_file = profile.path().join("DevToolsActivePort");
        let started = Instant::now();
        let endpoint = loop {
            if let Ok(text) = std::fs::read_to_string(&port_file) {
                let mut lines = text.lines();
                if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                    break format!("ws://127.0.0.1:{port}{path}");
                }
            }
            assert!(
                started.elapsed() < WAIT,
                "{} did not open its DevTools port",
                binary.display()
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        let (socket, _) = tungstenite::connect(endpoint.as_str()).unwrap();
        if let MaybeTlsStream::Plain(stream) = socket.get_ref() {
            stream
                .set_read_timeout(Some(Duration::from_millis(500)))
                .unwrap();
        }
        Some(Browser {
            child,
            socket,
            next_id: 0,
            session: None,
            events: Vec::new(),
            _profile: profile,
        })
    }

    /// Sends a command (to the page once one is open) and waits for its result.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(session) = &self.session {
            message["sessionId"] = json!(session);
        }
        self.socket
            .send(Message::text(message.to_string()))
            .unwrap();
        let started = Instant::now();
        loop {
            assert!(started.elapsed() < WAIT, "no answer to {method}");
            let Some(value) = self.receive() else {
                continue;
            };
            if value["id"] == json!(id) {
                if let Some(error) = value.get("error") {
                    panic!("{method} failed: {error}");
                }
                return value["result"].clone();
            }
            self.events.push(value);
        }
    }

    fn receive(&mut self) -> Option<Value> {
        match self.socket.read() {
            Ok(Message::Text(text)) => Some(serde_json::from_str(text.as_str()).unwrap()),
            Ok(_) => None,
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                None
            }
            Err(e) => panic!("DevTools connection: {e}"),
        }
    }

    /// Opens a page with the network off and waits until its script says it is ready
    /// (`<body data-ready>`), collecting console messages and requests from the start.
    pub fn open(&mut self, file: &Path) {
        self.open_at(file, "");
    }

    /// As [`Browser::open`], with a fragment (`#attempt-3`) after the file's URL.
    pub fn open_at(&mut self, file: &Path, fragment: &str) {
        let url = format!(
            "file://{}{fragment}",
            file.canonicalize().unwrap().display()
        );
        self.navigate(&url, true);
    }

    /// Opens a page served on loopback (the network emulation stays on, so that only
    /// loopback answers) and waits until it is ready, as [`Browser::open`].
    pub fn open_url(&mut self, url: &str) {
        self.navigate(url, false);
    }

    /// A new tab at `url`; `offline` turns the network off first (a file needs none).
    fn navigate(&mut self, url: &str, offline: bool) {
        let target = self.call("Target.createTarget", json!({"url": "about:blank"}));
        let attached = self.call(
            "Target.attachToTarget",
            json!({"targetId": target["targetId"], "flatten": true}),
        );
        self.session = Some(attached["sessionId"].as_str().unwrap().to_owned());
        for domain in [
            "Runtime.enable",
            "Log.enable",
            "Network.enable",
            "Page.enable",
        ] {
            self.call(domain, json!({}));
        }
        if offline {
            self.call(
                "Network.emulateNetworkConditions",
                json!({"offline": true, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}),
            );
        }
        self.call("Page.navigate", json!({"url": url}));
        let started = Instant::now();
        while self.eval("document.body && document.body.getAttribute('data-ready')")
            != json!("true")
        {
            assert!(
                started.elapsed() < WAIT,
                "the page never became ready; console: {:?}",
                self.console_errors()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Evaluates a script expression in the page and returns its value.
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        );
        if let Some(details) = result.get("exceptionDetails") {
            panic!("{expression} threw: {details}");
        }
        result["result"]["value"].clone()
    }

    /// Presses and releases a key (`"p"`, `"ArrowRight"`) in the focused page.
    pub fn press(&mut self, key: &str) {
        let text = if key.chars().count() == 1 { key } else { "" };
        for kind in ["keyDown", "keyUp"] {
            let mut event = json!({"type": kind, "key": key, "code": key_code(key)});
            if kind == "keyDown" && !text.is_empty() {
                event["text"] = json!(text);
            }
            self.call("Input.dispatchKeyEvent", event);
        }
    }

    /// Types `text` into the focused element, as an input method would.
    pub fn type_text(&mut self, text: &str) {
        self.call("Input.insertText", json!({"text": text}));
    }

    /// Clicks the middle of the first element matching `selector` with the mouse,
    /// scrolling it into view first.
    pub fn click(&mut self, selector: &str) {
        let selector = serde_json::to_string(selector).unwrap();
        let at = self.eval(&format!(
            "(() => {{ const e = document.querySelector({selector}); if (!e) return null; \
             e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect(); \
             return [r.x + r.width / 2, r.y + r.height / 2]; }})()"
        ));
        let (x, y) = (
            at[0]
                .as_f64()
                .unwrap_or_else(|| panic!("nothing matches {selector}")),
            at[1].as_f64().unwrap(),
        );
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
            );
        }
    }

    /// Waits until `expression` is true in the page.
    pub fn wait_for(&mut self, expression: &str) {
        let started = Instant::now();
        while self.eval(expression) != json!(true) {
            assert!(
                started.elapsed() < WAIT,
                "{expression} never became true; console: {:?}",
                self.console_errors()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Console errors, uncaught exceptions and browser log errors (a refused resource, a
    /// content security policy violation) seen so far.
    pub fn console_errors(&mut self) -> Vec<String> {
        // Events that arrived after the last answer are read first.
        while let Some(value) = self.receive() {
            self.events.push(value);
        }
        self.events
            .iter()
            .filter_map(|event| {
                let params = &event["params"];
                match event["method"].as_str()? {
                    "Runtime.exceptionThrown" => Some(params["exceptionDetails"].to_string()),
                    "Runtime.consoleAPICalled"
                        if matches!(params["type"].as_str(), Some("error" | "assert")) =>
                    {
                        Some(params["args"].to_string())
                    }
                    "Log.entryAdded" if params["entry"]["level"] == "error" => {
                        Some(params["entry"].to_string())
                    }
                    _ => None,
                }
            })
            .collect()
    }

    /// The URLs of every request the page made.
    pub fn requests(&self) -> Vec<String> {
        self.events
            .iter()
            .filter(|e| e["method"] == "Network.requestWillBeSent")
            .filter_map(|e| e["params"]["request"]["url"].as_str().map(str::to_owned))
            .collect()
    }

    /// A PNG of the whole page.
    pub fn screenshot(&mut self, path: &Path) {
        use base64::Engine;
        let shot = self.call(
            "Page.captureScreenshot",
            json!({"format": "png", "captureBeyondViewport": true}),
        );
        let png = base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().unwrap())
            .unwrap();
        assert!(png.starts_with(b"\x89PNG"), "not a PNG");
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(path, png).unwrap();
    }
}

/// The `code` of a key event: `KeyP` for `p`, the key's own name for the others.
fn key_code(key: &str) -> String {
    match key.chars().collect::<Vec<_>>().as_slice() {
        [c] if c.is_ascii_alphabetic() => format!("Key{}", c.to_ascii_uppercase()),
        _ => key.to_owned(),
    }
}
