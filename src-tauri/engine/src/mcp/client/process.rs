//! Child processes of stdio MCP servers: spawning one in its own process group (so `npx`/`uvx`
//! grandchildren can be reached), tied to our lifetime (kill-on-drop, and on Linux a
//! parent-death signal), with the user's login-shell PATH; capturing its stderr into a bounded
//! ring buffer; and shutting the whole group down (close stdin → grace → SIGTERM → SIGKILL).

use std::collections::{BTreeMap, VecDeque};
use std::ffi::{OsStr, OsString};
use std::io;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::OnceCell;

/// How many stderr lines a server keeps.
pub(crate) const STDERR_LINES: usize = 1_000;
/// Longest stored stderr line, in bytes (longer lines are cut, marked with `…`).
const MAX_LINE_BYTES: usize = 8 * 1024;
/// How long a server gets to exit on its own once its stdin is closed.
pub(crate) const EXIT_GRACE: Duration = Duration::from_secs(2);
/// How long a server gets between SIGTERM and SIGKILL.
const TERM_GRACE: Duration = Duration::from_secs(1);
/// How long the login shell may take to print its PATH.
const SHELL_TIMEOUT: Duration = Duration::from_secs(5);

/// Why a server process could not be started.
#[derive(Debug, thiserror::Error)]
#[error("{reason}")]
pub(crate) struct SpawnError {
    /// A sentence for the user (names the command and what to do).
    pub reason: String,
}

/// The last [`STDERR_LINES`] lines a server wrote to stderr. Cheap to clone; every clone sees
/// the same buffer, so the supervisor and the log panel can read it while the server runs.
#[derive(Clone, Debug, Default)]
pub struct StderrLog {
    lines: Arc<Mutex<VecDeque<String>>>,
}

impl StderrLog {
    /// A copy of the buffered lines, oldest first.
    pub fn lines(&self) -> Vec<String> {
        match self.lines.lock() {
            Ok(lines) => lines.iter().cloned().collect(),
            Err(poisoned) => poisoned.into_inner().iter().cloned().collect(),
        }
    }

    /// Appends one line, dropping the oldest beyond [`STDERR_LINES`].
    pub fn push(&self, line: String) {
        let mut lines = match self.lines.lock() {
            Ok(lines) => lines,
            Err(poisoned) => poisoned.into_inner(),
        };
        if lines.len() == STDERR_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }
}

/// What to run: the stdio fields of a [`crate::vocab::Transport::Stdio`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Launch<'a> {
    /// The program.
    pub command: &'a str,
    /// Its arguments.
    pub args: &'a [String],
    /// Extra environment variables (override the inherited ones, PATH included).
    pub env: &'a BTreeMap<String, String>,
    /// Variables of the app's environment passed on beyond the allow-list (see `child_env`).
    pub inherit_env: &'a [String],
    /// The working directory.
    pub cwd: Option<&'a Path>,
}

/// A running server process. Dropping it SIGKILLs its process group; call
/// [`ServerProcess::shutdown`] to end the group politely.
#[derive(Debug)]
pub(crate) struct ServerProcess {
    child: Child,
    pid: Option<u32>,
    stderr: StderrLog,
    capture: tokio::task::JoinHandle<()>,
    /// Set once [`ServerProcess::shutdown`] has ended the group.
    ended: bool,
}

impl Drop for ServerProcess {
    /// Without a [`ServerProcess::shutdown`], SIGKILL the whole group (kill-on-drop alone would
    /// reach only the leader and leave `npx`'s grandchildren running). The leader is not reaped
    /// yet (its `Child` is dropped after this), so its pid cannot name another group.
    fn drop(&mut self) {
        if !self.ended {
            signal_group(self.pid, GroupSignal::Kill);
        }
    }
}

impl ServerProcess {
    /// Spawns `launch` with piped stdin/stdout, stderr captured into a [`StderrLog`].
    /// Returns the process and the pipes the transport speaks over.
    pub(crate) async fn spawn(
        launch: Launch<'_>,
    ) -> Result<(Self, DrainingStdout, ChildStdin), SpawnError> {
        check_cwd(launch)?;
        let path = servers_path().await;
        let mut command = build_command(launch, &path);
        let mut child = command.spawn().map_err(|e| spawn_error(launch, &e))?;
        let pipes = (child.stdout.take(), child.stdin.take(), child.stderr.take());
        let (Some(stdout), Some(stdin), Some(stderr)) = pipes else {
            return Err(SpawnError {
                reason: format!("`{}` started without its stdio pipes", launch.command),
            });
        };
        let log = StderrLog::default();
        let capture = tokio::spawn(capture_lines(stderr, log.clone()));
        let pid = child.id();
        let process = Self {
            child,
            pid,
            stderr: log,
            capture,
            ended: false,
        };
        Ok((process, DrainingStdout(Some(stdout)), stdin))
    }

    /// The leader's pid, which is also the process group id.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// The server's stderr buffer.
    pub(crate) fn stderr(&self) -> StderrLog {
        self.stderr.clone()
    }

    /// Ends the server: waits `grace` for it to exit (its stdin must already be closed), then
    /// SIGTERM and SIGKILL to the whole group, then sweeps the group of any grandchildren left.
    pub(crate) async fn shutdown(mut self, grace: Duration) {
        let exited = tokio::time::timeout(grace, self.child.wait()).await.is_ok();
        if !exited {
            signal_group(self.pid, GroupSignal::Term);
            if tokio::time::timeout(TERM_GRACE, self.child.wait())
                .await
                .is_err()
            {
                signal_group(self.pid, GroupSignal::Kill);
                let _ = self.child.kill().await;
            }
        }
        sweep_group(self.pid).await;
        self.ended = true;
        // Every writer of stderr is gone now: let the last lines land in the buffer.
        let _ = tokio::time::timeout(Duration::from_millis(200), &mut self.capture).await;
    }
}

/// Fails early, with a clear message, when the working directory is missing (spawn would
/// report the same `NotFound` as for a missing program).
fn check_cwd(launch: Launch<'_>) -> Result<(), SpawnError> {
    match launch.cwd {
        Some(cwd) if !cwd.is_dir() => Err(SpawnError {
            reason: format!(
                "cannot start `{}`: its working directory {} does not exist",
                launch.command,
                cwd.display()
            ),
        }),
        _ => Ok(()),
    }
}

/// The command line, environment and process-group settings of one server.
fn build_command(launch: Launch<'_>, path: &OsStr) -> Command {
    let mut command = Command::new(launch.command);
    command
        .args(launch.args)
        .env_clear()
        .envs(super::child_env::server_env(
            std::env::vars_os(),
            path,
            launch.inherit_env,
            &with_servers_env(launch.env),
        ))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(cwd) = launch.cwd {
        command.current_dir(cwd);
    }
    #[cfg(unix)]
    command.process_group(0);
    #[cfg(target_os = "linux")]
    set_parent_death_signal(&mut command);
    command
}

/// Asks Linux to SIGKILL the child when the thread that spawned it dies, so a crash of the app
/// does not leave servers behind. (It fires on the spawning *thread's* exit: spawn from a
/// runtime worker thread, never from a short-lived `spawn_blocking` thread.)
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn set_parent_death_signal(command: &mut Command) {
    use rustix::process::{Signal, getppid, set_parent_process_death_signal};
    let parent = rustix::process::getpid();
    // SAFETY: the closure runs in the forked child before exec; it only makes two raw
    // syscalls (prctl, getppid) — async-signal-safe, no allocation, no locks.
    unsafe {
        command.pre_exec(move || {
            set_parent_process_death_signal(Some(Signal::KILL))?;
            // The parent may have died between fork and prctl: then nobody will signal us.
            if getppid() != Some(parent) {
                return Err(io::Error::other("parent exited during spawn"));
            }
            Ok(())
        });
    }
}

/// A [`SpawnError`] naming the command, with a specific message for a missing program.
fn spawn_error(launch: Launch<'_>, error: &io::Error) -> SpawnError {
    let reason = match error.kind() {
        io::ErrorKind::NotFound => format!(
            "`{}` was not found on the PATH (taken from your login shell); is it installed?{}",
            launch.command,
            bring_hint(launch.command)
        ),
        io::ErrorKind::PermissionDenied => {
            format!("`{}` is not executable (permission denied)", launch.command)
        }
        _ => format!("cannot start `{}`: {error}", launch.command),
    };
    SpawnError { reason }
}

/// For a missing `uvx`/`uv` or `npx`/`node`/`npm`, how Switchboard can bring it.
fn bring_hint(command: &str) -> &'static str {
    let name = Path::new(command)
        .file_name()
        .and_then(OsStr::to_str)
        .unwrap_or(command);
    match name {
        "uvx" | "uv" => {
            " Switchboard can bring uv for its servers: `switchboard runtimes install uv`."
        }
        "npx" | "node" | "npm" => {
            " Switchboard can bring Node.js for its servers: `switchboard runtimes install node`."
        }
        _ => "",
    }
}

/// A server's stdout that, once dropped, is still read (and discarded) until the server
/// exits: a server that writes while it is being stopped (a log line, a notification) must
/// not die of a broken pipe and fill its stderr with the crash.
#[derive(Debug)]
pub(crate) struct DrainingStdout(Option<ChildStdout>);

impl AsyncRead for DrainingStdout {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        match self.0.as_mut() {
            Some(out) => std::pin::Pin::new(out).poll_read(cx, buf),
            None => std::task::Poll::Ready(Ok(())),
        }
    }
}

impl Drop for DrainingStdout {
    fn drop(&mut self) {
        let (Some(mut out), Ok(runtime)) = (self.0.take(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        // Ends at EOF: when the server exits or its group is killed by the shutdown.
        runtime.spawn(async move {
            let _ = tokio::io::copy(&mut out, &mut tokio::io::sink()).await;
        });
    }
}

/// Reads `stream` line by line into `log` until it closes (lossy UTF-8). A line is cut while
/// read: at most [`MAX_LINE_BYTES`] (and its `\r\n`) are kept; past that the line is logged
/// at once, marked cut, and the rest of it, however long, is read and dropped.
async fn capture_lines(stream: impl AsyncRead + Unpin, log: StderrLog) {
    let mut reader = BufReader::new(stream);
    let mut line = Vec::new();
    // The current line was too long and is already logged: drop bytes up to its newline.
    let mut cut = false;
    loop {
        let available = match reader.fill_buf().await {
            Ok([]) | Err(_) => break,
            Ok(bytes) => bytes,
        };
        let newline = available.iter().position(|&b| b == b'\n');
        let taken = newline.map_or(available.len(), |i| i + 1);
        if !cut {
            let room = (MAX_LINE_BYTES + 2).saturating_sub(line.len());
            line.extend_from_slice(&available[..taken.min(room)]);
        }
        reader.consume(taken);
        if newline.is_some() {
            if !cut {
                log.push(decode_line(&line));
            }
            line.clear();
            cut = false;
        } else if !cut && line.len() > MAX_LINE_BYTES + 1 {
            log.push(decode_line(&line));
            line.clear();
            cut = true;
        }
    }
    if !cut && !line.is_empty() {
        log.push(decode_line(&line));
    }
}

/// One stderr line as text: trailing newline removed, cut at [`MAX_LINE_BYTES`].
fn decode_line(bytes: &[u8]) -> String {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    if bytes.len() > MAX_LINE_BYTES {
        let mut line = String::from_utf8_lossy(&bytes[..MAX_LINE_BYTES]).into_owned();
        line.push('…');
        return line;
    }
    String::from_utf8_lossy(bytes).into_owned()
}

/// A signal for a whole process group.
#[derive(Clone, Copy, Debug)]
enum GroupSignal {
    Term,
    Kill,
}

/// Sends `signal` to the process group led by `pid` (errors such as "no such group" ignored).
#[cfg(unix)]
fn signal_group(pid: Option<u32>, signal: GroupSignal) {
    use rustix::process::{Signal, kill_process_group};
    let Some(pgid) = pid.and_then(group_id) else {
        return;
    };
    let signal = match signal {
        GroupSignal::Term => Signal::TERM,
        GroupSignal::Kill => Signal::KILL,
    };
    let _ = kill_process_group(pgid, signal);
}

#[cfg(not(unix))]
fn signal_group(_pid: Option<u32>, _signal: GroupSignal) {}

/// Whether any process of the group led by `pid` is still alive. On Linux zombies do not
/// count (an orphan's zombie lingers until init reaps it, and some containers' init never
/// does); elsewhere any member does.
#[cfg(target_os = "linux")]
pub(crate) fn group_alive(pid: u32) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries
        .filter_map(Result::ok)
        .filter(|entry| {
            entry
                .file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .any(|entry| live_member(&entry.path().join("stat"), pid))
}

/// Whether `/proc/<n>/stat` names a live (non-zombie) process in group `pgid`.
#[cfg(target_os = "linux")]
fn live_member(stat: &Path, pgid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(stat) else {
        return false;
    };
    // "pid (comm) state ppid pgrp …": comm may contain spaces and parentheses.
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return false;
    };
    let mut fields = rest.split_whitespace();
    let state = fields.next();
    let pgrp = fields.nth(1).and_then(|f| f.parse::<u32>().ok());
    state != Some("Z") && pgrp == Some(pgid)
}

/// Whether any process of the group led by `pid` is still alive.
#[cfg(all(unix, not(target_os = "linux")))]
pub fn group_alive(pid: u32) -> bool {
    group_id(pid).is_some_and(|pgid| rustix::process::test_kill_process_group(pgid).is_ok())
}

/// Whether any process of the group led by `pid` is still alive.
#[cfg(not(unix))]
pub fn group_alive(_pid: u32) -> bool {
    false
}

#[cfg(unix)]
fn group_id(pid: u32) -> Option<rustix::process::Pid> {
    rustix::process::Pid::from_raw(i32::try_from(pid).ok()?)
}

/// After the leader exited: TERM, then KILL, whatever is left of its group (grandchildren of
/// `npx`, `uvx`, shells).
async fn sweep_group(pid: Option<u32>) {
    let Some(pid) = pid else { return };
    if !group_alive(pid) {
        return;
    }
    signal_group(Some(pid), GroupSignal::Term);
    let deadline = tokio::time::Instant::now() + TERM_GRACE;
    while group_alive(pid) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    signal_group(Some(pid), GroupSignal::Kill);
}

/// The folder of the runtimes Switchboard brought itself (`crate::runtimes`), set by the engine
/// that opened the profile.
static RUNTIMES_DIR: std::sync::RwLock<Option<std::path::PathBuf>> = std::sync::RwLock::new(None);

/// Variables every server gets unless its own configuration sets them (a package mirror and a
/// proxy for `uv`/`npm`: see `crate::runtimes::servers_env`), set by the engine.
static SERVERS_ENV: std::sync::RwLock<BTreeMap<String, String>> =
    std::sync::RwLock::new(BTreeMap::new());

/// Sets the variables every server gets unless its own configuration sets them.
pub fn set_servers_env(env: BTreeMap<String, String>) {
    if let Ok(mut set) = SERVERS_ENV.write() {
        *set = env;
    }
}

/// `own` over the variables every server gets.
pub(crate) fn with_servers_env(own: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    let mut env = SERVERS_ENV.read().map(|e| e.clone()).unwrap_or_default();
    env.extend(own.iter().map(|(k, v)| (k.clone(), v.clone())));
    env
}

/// Sets the folder whose runtimes' `bin` folders servers also get on their PATH.
pub fn set_runtimes_dir(dir: std::path::PathBuf) {
    if let Ok(mut set) = RUNTIMES_DIR.write() {
        *set = Some(dir);
    }
}

/// The PATH servers get: the login shell's ([`login_path`]), then the `bin` folder of each
/// runtime Switchboard brought, so that a runtime the user has always wins.
pub async fn servers_path() -> OsString {
    let dir = RUNTIMES_DIR.read().ok().and_then(|d| d.clone());
    with_runtimes(login_path().await, dir.as_deref())
}

/// `path` followed by the `bin` folder of each runtime under `runtimes` (none when unset).
pub(crate) fn with_runtimes(path: &OsStr, runtimes: Option<&Path>) -> OsString {
    let mut bins: Vec<std::path::PathBuf> = runtimes
        .and_then(|dir| std::fs::read_dir(dir).ok())
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|entry| !entry.file_name().to_string_lossy().starts_with('.'))
        .map(|entry| entry.path().join("bin"))
        .filter(|bin| bin.is_dir())
        .collect();
    if bins.is_empty() {
        return path.to_owned();
    }
    bins.sort();
    let parts = std::env::split_paths(path).chain(bins);
    std::env::join_paths(parts).unwrap_or_else(|_| path.to_owned())
}

/// The login shell's PATH (where `npx`, `uvx`, `node` live when the app
/// was started from a desktop menu), then any entries of our own PATH it lacks. Resolved once
/// per process and cached: it is a fact about the user's machine, not state.
pub async fn login_path() -> &'static OsStr {
    static PATH: OnceCell<OsString> = OnceCell::const_new();
    PATH.get_or_init(resolve_path).await
}

async fn resolve_path() -> OsString {
    let own = std::env::var_os("PATH").unwrap_or_default();
    match shell_path().await {
        Some(login) => merge_paths(&login, &own),
        None => own,
    }
}

/// Markers around the PATH in the shell's output, so rc-file chatter on stdout is ignored.
const PATH_START: &str = "__SWITCHBOARD_PATH_START__";
const PATH_END: &str = "__SWITCHBOARD_PATH_END__";

/// Runs `$SHELL -lic` to print PATH (5 s timeout). `None` when there is no shell or it fails.
async fn shell_path() -> Option<OsString> {
    let shell = std::env::var_os("SHELL").filter(|s| !s.is_empty())?;
    let script = format!("printf '%s%s%s' '{PATH_START}' \"$PATH\" '{PATH_END}'");
    let mut command = Command::new(shell);
    command
        .args(["-l", "-i", "-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    #[cfg(unix)]
    command.process_group(0);
    let output = tokio::time::timeout(SHELL_TIMEOUT, command.output())
        .await
        .ok()?
        .ok()?;
    extract_path(&String::from_utf8_lossy(&output.stdout)).map(OsString::from)
}

/// The text between the markers, if non-empty.
pub(in crate::mcp) fn extract_path(output: &str) -> Option<&str> {
    let start = output.find(PATH_START)? + PATH_START.len();
    let len = output[start..].find(PATH_END)?;
    Some(&output[start..start + len]).filter(|path| !path.is_empty())
}

/// `first`'s entries, then `second`'s entries not already present.
pub(in crate::mcp) fn merge_paths(first: &OsStr, second: &OsStr) -> OsString {
    let mut entries: Vec<_> = std::env::split_paths(first).collect();
    for entry in std::env::split_paths(second) {
        if !entries.contains(&entry) {
            entries.push(entry);
        }
    }
    std::env::join_paths(entries).unwrap_or_else(|_| first.to_owned())
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncWriteExt;

    use super::*;

    #[tokio::test]
    async fn a_long_line_is_cut_while_read_and_the_next_line_kept() {
        let (mut writer, reader) = tokio::io::duplex(64 * 1024);
        let log = StderrLog::default();
        let capture = tokio::spawn(capture_lines(reader, log.clone()));
        writer.write_all(&vec![b'x'; 1024 * 1024]).await.unwrap();
        // Still no newline: the line's head is already logged, cut.
        let lines = log.lines();
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].len(), MAX_LINE_BYTES + '…'.len_utf8());
        assert!(lines[0].ends_with('…'));
        writer.write_all(b"more\r\nnext\r\nlast").await.unwrap();
        drop(writer);
        capture.await.unwrap();
        assert_eq!(log.lines()[1..], ["next".to_owned(), "last".to_owned()]);
    }

    #[tokio::test]
    async fn a_line_of_exactly_the_limit_is_kept_whole() {
        let (mut writer, reader) = tokio::io::duplex(1024);
        let log = StderrLog::default();
        let capture = tokio::spawn(capture_lines(reader, log.clone()));
        let mut line = vec![b'y'; MAX_LINE_BYTES];
        line.extend_from_slice(b"\r\n");
        writer.write_all(&line).await.unwrap();
        drop(writer);
        capture.await.unwrap();
        assert_eq!(log.lines(), ["y".repeat(MAX_LINE_BYTES)]);
    }
}
