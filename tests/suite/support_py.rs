//! Helpers for tests against the real MCP servers from PyPI in `tests/fixtures/mcp-py`
//! (`scripts/deps.sh test` creates its `.venv`): `mcp-server-time`, and seed 003's FastMCP
//! weather server over stdio or streamable HTTP. Reusable by any suite (agent loop, CLI).

use std::collections::BTreeMap;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use switchboard_engine::vocab::server::{ServerConfig, Transport};

/// The text every `get_weather` call of the weather server returns.
pub(crate) const WEATHER_TEXT: &str = "It's always raining in California";

/// How long the weather server may take to listen (Python imports are slow on a busy machine).
const HTTP_START_LIMIT: Duration = Duration::from_secs(30);

/// `tests/fixtures/mcp-py`.
pub(crate) fn fixtures_py() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp-py")
}

/// The virtualenv's Python (it has `mcp` 1.x and `mcp-server-time`); panics with the fix when
/// the virtualenv is missing.
pub(crate) fn venv_python() -> PathBuf {
    let python = fixtures_py().join(".venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run `scripts/deps.sh test` from the repository root",
        python.display()
    );
    python
}

/// A stdio config running the venv's Python with `args`, with test-sized timeouts (30 s).
pub(crate) fn python_stdio_config(name: &str, args: &[&str]) -> ServerConfig {
    let transport = Transport::Stdio {
        command: venv_python().to_string_lossy().into_owned(),
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        env: BTreeMap::new(),
        cwd: None,
    };
    let mut config = ServerConfig::new(name, transport);
    config.startup_timeout = Duration::from_secs(30);
    config.call_timeout = Duration::from_secs(30);
    config
}

/// `mcp-server-time` over stdio (`python -m mcp_server_time --local-timezone UTC`), under `name`.
pub(crate) fn time_stdio_config(name: &str) -> ServerConfig {
    python_stdio_config(name, &["-m", "mcp_server_time", "--local-timezone", "UTC"])
}

/// The weather server over stdio (`python weather.py stdio`), under `name`.
pub(crate) fn weather_stdio_config(name: &str) -> ServerConfig {
    let script = fixtures_py().join("weather.py");
    python_stdio_config(name, &[&script.to_string_lossy(), "stdio"])
}

/// The weather server over streamable HTTP on a free loopback port, for as long as this value
/// lives: [`WeatherHttp::start`] waits until it listens; dropping it kills the process and
/// reaps it. (Should the test process die instead, the server exits by itself when its stdin
/// closes.) On Linux the server also dies with the thread that started it: start it from the
/// test's own thread, not from a short-lived one such as `spawn_blocking`'s.
#[derive(Debug)]
pub(crate) struct WeatherHttp {
    child: Child,
    port: u16,
    stderr: tempfile::NamedTempFile,
}

impl WeatherHttp {
    /// Starts `python weather.py http PORT` and waits until it accepts connections; panics
    /// with its stderr if it exits or does not listen within 30 s.
    pub(crate) fn start() -> Self {
        let port = free_port();
        // stderr goes to a file: a pipe nobody reads would stall a chatty server.
        let stderr = tempfile::NamedTempFile::new().expect("a temp file");
        let child = Command::new(venv_python())
            .arg(fixtures_py().join("weather.py"))
            .args(["http", &port.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(stderr.reopen().expect("reopen the temp file"))
            .spawn()
            .expect("spawn the weather server");
        let mut server = Self {
            child,
            port,
            stderr,
        };
        server.wait_until_listening();
        server
    }

    /// The port it listens on (127.0.0.1 only).
    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    /// The server's pid.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Its streamable HTTP endpoint, `http://127.0.0.1:PORT/mcp`.
    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// A config reaching it over streamable HTTP under `name`, with test-sized timeouts.
    pub(crate) fn config(&self, name: &str) -> ServerConfig {
        let transport = Transport::Http {
            url: self.url(),
            headers: BTreeMap::new(),
        };
        let mut config = ServerConfig::new(name, transport);
        config.startup_timeout = Duration::from_secs(30);
        config.call_timeout = Duration::from_secs(30);
        config
    }

    /// Waits until the port accepts connections; panics with its stderr if it exits first.
    fn wait_until_listening(&mut self) {
        let deadline = Instant::now() + HTTP_START_LIMIT;
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("the weather server exited ({status}): {}", self.stderr());
            }
            assert!(
                Instant::now() < deadline,
                "the weather server did not listen on {} within {HTTP_START_LIMIT:?}",
                self.port
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// What it wrote on stderr so far.
    pub(crate) fn stderr(&self) -> String {
        std::fs::read_to_string(self.stderr.path()).unwrap_or_default()
    }
}

impl Drop for WeatherHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback port nobody listens on right now.
pub(crate) fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

/// The one JSON document a client script printed; panics with its output when it failed.
pub(crate) fn json_report(out: &std::process::Output) -> serde_json::Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}
