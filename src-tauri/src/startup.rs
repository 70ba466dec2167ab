//! The desktop app's start-up: how long each phase took since the process began (logged, so a
//! slow start can be diagnosed from the log), and the rendering choices made before the first
//! window (see [`prefer_cpu_rendering`]).

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// When `main` began (set by [`begin`]).
static BEGUN: OnceLock<Instant> = OnceLock::new();

/// Notes the moment `main` began; later [`mark`]s are measured from it.
pub fn begin() {
    BEGUN.get_or_init(Instant::now);
}

/// Logs that start-up reached `phase`, with the milliseconds since `main` began (and, on
/// Linux, since the process was created: the difference is the dynamic linker's work).
pub fn mark(phase: &str) {
    let since_main = BEGUN.get().map(Instant::elapsed).unwrap_or_default();
    match since_exec() {
        Some(exec) => tracing::info!(
            phase,
            since_main_ms = millis(since_main),
            since_exec_ms = millis(exec),
            "start-up"
        ),
        None => tracing::info!(phase, since_main_ms = millis(since_main), "start-up"),
    }
}

/// Set once the main window was shown (see [`show_main`]).
static SHOWN: AtomicBool = AtomicBool::new(false);
/// How long the main window may stay hidden when its page does not mount.
pub const SHOW_AT_LATEST: Duration = Duration::from_secs(2);

/// Shows the main window, which starts hidden (`tauri.conf.json`), once: when its page has
/// mounted (it asks for the conversation list), or after [`SHOW_AT_LATEST`] whatever happened.
/// Issue 19, goal 2: without accelerated compositing, WebKitGTK's first draw of a visible view
/// asks the web process for a frame and blocks the UI thread until it comes, for up to 500 ms
/// (`DrawingAreaProxyCoordinatedGraphics::forceUpdateIfNeeded`). No frame comes while the web
/// process is starting (it waits on its own synchronous question to the UI thread,
/// `GetNetworkProcessConnection`) nor while a page is loading and has not laid out anything
/// visible yet (painting is suppressed) — and the blocked UI thread is also the one serving the
/// page's files and IPC, so the load stalls with it. A hidden view is not drawn; once the page
/// has mounted, a draw is answered at once.
pub fn show_main(show: impl FnOnce() -> tauri::Result<()>, why: &str) {
    if SHOWN.swap(true, Ordering::Relaxed) {
        return;
    }
    match show() {
        Ok(()) => mark(why),
        Err(error) => tracing::warn!(%error, "cannot show the window"),
    }
}

/// Set once the page first asks for the conversation list (see [`mark_once`]).
pub static FIRST_LIST: AtomicBool = AtomicBool::new(false);
/// Set once that first list was read from the database.
pub static FIRST_LISTED: AtomicBool = AtomicBool::new(false);

/// [`mark`]s `phase` the first time only (`seen` remembers it).
pub fn mark_once(seen: &AtomicBool, phase: &str) {
    if !seen.swap(true, Ordering::Relaxed) {
        mark(phase);
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The time since the kernel created this process (`/proc/self/stat` field 22 against
/// `/proc/uptime`; clock-tick resolution, 10 ms).
#[cfg(target_os = "linux")]
fn since_exec() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.get(stat.rfind(')')? + 2..)?.split(' ').collect();
    let start_ticks: f64 = fields.get(19)?.parse().ok()?;
    let uptime: f64 = std::fs::read_to_string("/proc/uptime")
        .ok()?
        .split(' ')
        .next()?
        .parse()
        .ok()?;
    // Linux reports start times in USER_HZ, which is 100 on every supported architecture.
    let seconds = uptime - start_ticks / 100.0;
    (seconds >= 0.0).then(|| Duration::from_secs_f64(seconds))
}

#[cfg(not(target_os = "linux"))]
fn since_exec() -> Option<Duration> {
    None
}

/// On Linux without a GPU (no DRM render node), WebKitGTK's accelerated compositing runs on
/// Mesa's software OpenGL (llvmpipe): slower than WebKit's own CPU painting and ~65 MB more
/// memory in the web process. There, and only when the user has not chosen otherwise, turn it
/// off before GTK starts. Returns whether it did.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub fn prefer_cpu_rendering() -> bool {
    const VAR: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";
    if std::env::var_os(VAR).is_some() || has_render_node(std::path::Path::new("/dev/dri")) {
        return false;
    }
    // SAFETY: called from `main`'s thread before any other thread exists (the async runtime
    // and GTK start later), so nothing reads the environment concurrently.
    unsafe { std::env::set_var(VAR, "1") };
    true
}

#[cfg(not(target_os = "linux"))]
pub fn prefer_cpu_rendering() -> bool {
    false
}

/// JavaScriptCore options for WebKit's web process, read from the environment it inherits; each
/// is set only where the user has not set it.
/// - `JSC_useCodeCache=false`: Tauri delivers every event and `Channel` message by evaluating a
///   script of its own, never the same twice, so the in-memory code cache only ever holds
///   sources that will not come again (up to 2,000 of them with their bytecode). The page's own
///   scripts are evaluated once and do not need it.
/// - `JSC_useJIT=false`: the page runs in JavaScriptCore's interpreter. Its compiled code is
///   what made the web process grow with every turn shown (half of the growth over 500 turns,
///   ~56 MB after 20 long answers, 18 MB at rest; docs/performance.md), and no compiler is one
///   less way for untrusted content to reach native code. The cost: long answers render ~1.5×
///   slower (0.6–0.7 s instead of 0.4–0.5 s for 3,500 words), opening a long conversation ~10 %
///   slower (132 ms instead of 120); the launch itself needs less CPU without it.
pub const SCRIPT_ENGINE_OPTIONS: [(&str, &str); 2] =
    [("JSC_useCodeCache", "false"), ("JSC_useJIT", "false")];

/// The options of [`SCRIPT_ENGINE_OPTIONS`] that `is_set` says the user has not set.
pub fn script_engine_defaults(
    is_set: impl Fn(&str) -> bool,
) -> impl Iterator<Item = (&'static str, &'static str)> {
    SCRIPT_ENGINE_OPTIONS
        .into_iter()
        .filter(move |(name, _)| !is_set(name))
}

/// Sets [`SCRIPT_ENGINE_OPTIONS`] the user has not set in the environment.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub fn tune_script_engine() {
    for (name, value) in script_engine_defaults(|name| std::env::var_os(name).is_some()) {
        // SAFETY: called from `main`'s thread before any other thread exists (the async
        // runtime and GTK start later), so nothing reads the environment concurrently.
        unsafe { std::env::set_var(name, value) };
    }
}

#[cfg(not(target_os = "linux"))]
pub fn tune_script_engine() {}

/// Sets the main window's web context to WebKit's document-viewer cache model: the page is one
/// app served from our own scheme, so the browser model's page cache and large memory caches
/// only cost memory.
pub fn tune_webview<R: tauri::Runtime>(app: &tauri::App<R>) {
    use tauri::Manager;
    let Some(window) = app.get_webview_window("main") else {
        return;
    };
    let tuned = window.with_webview(|webview| {
        #[cfg(target_os = "linux")]
        {
            use webkit2gtk::{CacheModel, WebContextExt, WebViewExt};
            if let Some(context) = webview.inner().context() {
                context.set_cache_model(CacheModel::DocumentViewer);
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = webview;
    });
    if let Err(error) = tuned {
        tracing::warn!(%error, "cannot tune the webview");
    }
}

/// Whether `dir` holds a DRM render node (`renderD128`, …): a GPU the compositor can use.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub fn has_render_node(dir: &std::path::Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_with_a_render_node_has_a_gpu() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!has_render_node(dir.path()));
        std::fs::write(dir.path().join("card0"), "").unwrap();
        assert!(
            !has_render_node(dir.path()),
            "a card alone is not a render node"
        );
        std::fs::write(dir.path().join("renderD128"), "").unwrap();
        assert!(has_render_node(dir.path()));
    }

    #[test]
    fn the_script_engine_gets_every_option_the_user_did_not_set() {
        let all: Vec<_> = script_engine_defaults(|_| false).collect();
        assert_eq!(
            all,
            [("JSC_useCodeCache", "false"), ("JSC_useJIT", "false")]
        );
        let chosen: Vec<_> = script_engine_defaults(|name| name == "JSC_useJIT").collect();
        assert_eq!(
            chosen,
            [("JSC_useCodeCache", "false")],
            "a JIT the user turned on stays on"
        );
    }

    #[test]
    fn a_missing_directory_has_no_gpu() {
        assert!(!has_render_node(std::path::Path::new("/nonexistent/dri")));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_time_since_exec_is_known_and_small_in_a_test() {
        let since = since_exec().expect("/proc is readable");
        assert!(since < Duration::from_secs(24 * 3600));
    }
}
