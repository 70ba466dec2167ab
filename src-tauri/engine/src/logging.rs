//! Logging: tracing to stderr and to a daily-rotated file in the log directory, with
//! `RUST_LOG` respected and every registered secret scrubbed from the file and stderr alike.

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, RwLock};

use tracing_appender::non_blocking::WorkerGuard;
use tracing_appender::rolling::{Builder, Rotation};
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::{EnvFilter, Layer, Registry};

/// How many daily log files are kept.
const KEEP_FILES: usize = 7;
/// What replaces a secret in the log.
pub const REDACTED: &str = "[REDACTED]";

/// Secrets that must never reach a log line (API keys, tokens). Cheap to clone; clones share.
#[derive(Clone, Debug, Default)]
pub struct Redactor {
    secrets: Arc<RwLock<Vec<String>>>,
}

impl Redactor {
    /// Registers a secret; from now on it is replaced by `[REDACTED]` in every log line.
    /// Values shorter than 4 characters are ignored (they would scrub ordinary words).
    pub fn add(&self, secret: &str) {
        if secret.len() < 4 {
            return;
        }
        if let Ok(mut s) = self.secrets.write()
            && !s.iter().any(|x| x == secret)
        {
            s.push(secret.to_owned());
        }
    }

    /// `text` with every registered secret replaced.
    pub fn scrub<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        let Ok(secrets) = self.secrets.read() else {
            return text.into();
        };
        let mut out = std::borrow::Cow::Borrowed(text);
        for s in secrets.iter() {
            if out.contains(s.as_str()) {
                out = out.replace(s.as_str(), REDACTED).into();
            }
        }
        out
    }
}

/// Keeps the file writer alive; drop it at exit to flush the last lines.
#[must_use = "dropping the guard stops file logging"]
pub struct LogGuard(#[allow(dead_code)] WorkerGuard);

/// A problem setting up logging.
#[derive(Debug, thiserror::Error)]
pub enum LoggingError {
    /// The log file cannot be created.
    #[error("cannot write log files in {dir}: {reason}")]
    File {
        /// The log directory.
        dir: std::path::PathBuf,
        /// Why.
        reason: String,
    },
}

/// Builds the subscriber: stderr at `stderr_default` (or `RUST_LOG`), the file at `info`
/// (or `RUST_LOG`).
pub fn subscriber(
    log_dir: &Path,
    stderr_default: &str,
    rust_log: Option<&str>,
    redactor: Redactor,
) -> Result<(impl tracing::Subscriber + Send + Sync, LogGuard), LoggingError> {
    let appender = Builder::new()
        .rotation(Rotation::DAILY)
        .filename_prefix("switchboard")
        .filename_suffix("log")
        .max_log_files(KEEP_FILES)
        .build(log_dir)
        .map_err(|e| LoggingError::File {
            dir: log_dir.to_path_buf(),
            reason: e.to_string(),
        })?;
    let (file, guard) = tracing_appender::non_blocking(appender);
    let filter = |default: &str| EnvFilter::new(rust_log.unwrap_or(default));
    let file_layer = tracing_subscriber::fmt::layer()
        .with_ansi(false)
        .with_writer(Redacting::new(file, redactor.clone()))
        .with_filter(filter("info"));
    let stderr_layer = tracing_subscriber::fmt::layer()
        .with_writer(Redacting::new(std::io::stderr, redactor))
        .with_filter(filter(stderr_default));
    let sub = Registry::default().with(file_layer).with(stderr_layer);
    Ok((sub, LogGuard(guard)))
}

/// Installs the subscriber globally (once per process, at start-up).
pub fn init(
    log_dir: &Path,
    stderr_default: &str,
    redactor: Redactor,
) -> Result<LogGuard, LoggingError> {
    let rust_log = std::env::var("RUST_LOG").ok();
    let (sub, guard) = subscriber(log_dir, stderr_default, rust_log.as_deref(), redactor)?;
    // A second init (tests, a re-entered CLI) keeps the first subscriber; that is fine.
    let _ = tracing::subscriber::set_global_default(sub);
    Ok(guard)
}

/// A `MakeWriter` whose writers scrub secrets from each formatted line.
struct Redacting<M> {
    inner: M,
    redactor: Redactor,
}

impl<M> Redacting<M> {
    fn new(inner: M, redactor: Redactor) -> Self {
        Self { inner, redactor }
    }
}

impl<'a, M: MakeWriter<'a>> MakeWriter<'a> for Redacting<M> {
    type Writer = RedactingWriter<M::Writer>;
    fn make_writer(&'a self) -> Self::Writer {
        RedactingWriter {
            inner: self.inner.make_writer(),
            redactor: self.redactor.clone(),
        }
    }
}

/// Writes one formatted event, scrubbed.
struct RedactingWriter<W> {
    inner: W,
    redactor: Redactor,
}

impl<W: Write> Write for RedactingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        self.inner
            .write_all(self.redactor.scrub(&text).as_bytes())?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// An error with its chain of causes, each cause not already in the text appended, e.g.
/// "error sending request: tcp connect error: Connection refused".
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrub_replaces_every_occurrence_of_every_secret() {
        let r = Redactor::default();
        r.add("sk-abc123");
        r.add("tok");
        assert_eq!(
            r.scrub("a sk-abc123 b sk-abc123 tok"),
            "a [REDACTED] b [REDACTED] tok"
        );
    }

    #[test]
    fn a_configured_api_key_never_reaches_the_log_file() {
        let dir = tempfile::tempdir().unwrap();
        let key = "sk-live-7f3a9c2e1b";
        let redactor = Redactor::default();
        redactor.add(key);
        let (sub, guard) = subscriber(dir.path(), "off", Some("debug"), redactor).unwrap();
        tracing::subscriber::with_default(sub, || {
            let secret = secrecy::SecretString::from(key.to_owned());
            tracing::info!(?secret, "provider configured");
            tracing::warn!(header = %format!("Bearer {key}"), "request failed: 401");
            tracing::debug!("raw body echoed {key} by a careless server");
        });
        drop(guard);
        let mut logged = String::new();
        for entry in std::fs::read_dir(dir.path()).unwrap() {
            logged += &std::fs::read_to_string(entry.unwrap().path()).unwrap();
        }
        assert!(logged.contains("provider configured"), "{logged}");
        assert!(logged.contains("request failed: 401"), "{logged}");
        assert_eq!(logged.matches(REDACTED).count(), 3, "{logged}");
        assert!(!logged.contains(key), "{logged}");
        assert!(!logged.contains("sk-live"), "{logged}");
    }
}
