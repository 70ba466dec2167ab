//! Running a child process to its end with a deadline: a CLI command that hangs fails its test
//! with what it had printed, instead of holding the whole suite until CI's limit.

use std::io::Read;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How long one CLI command in a test may take before it is killed.
const LIMIT: Duration = Duration::from_secs(240);

/// Runs `command` with its output captured, like `Command::output`, but kills it and fails the
/// test (naming the command and what it printed) when it is still running after [`LIMIT`].
pub(crate) fn output_within_limit(command: &mut Command) -> Output {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("could not start {command:?}: {e}"));
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            let said = String::from_utf8_lossy(&stdout.join().unwrap_or_default()).into_owned()
                + &String::from_utf8_lossy(&stderr.join().unwrap_or_default());
            panic!("{command:?} was still running after {LIMIT:?}; it had printed:\n{said}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

/// Reads a pipe to its end on its own thread, so a child that prints a lot never blocks.
fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        bytes
    })
}

/// `switchboard --data-dir DATA ARGS` run to its end (see [`output_within_limit`]), without the
/// caller's `SWITCHBOARD_DATA_DIR` and `RUST_LOG`.
pub(crate) fn switchboard<S: AsRef<std::ffi::OsStr>>(data: &std::path::Path, args: &[S]) -> Output {
    output_within_limit(
        Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .arg("--data-dir")
            .arg(data)
            .args(args)
            .env_remove("SWITCHBOARD_DATA_DIR")
            .env_remove("RUST_LOG"),
    )
}
