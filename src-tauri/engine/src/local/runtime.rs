//! The runtime's own thread: it owns llama.cpp (the backend, the one resident model and its
//! context), takes generation jobs from a queue, and streams each job's pieces back through a
//! channel. The model loads on the first job that names it, another model replaces it, and
//! after [`RuntimeOptions::idle`] without a job it is unloaded. Generation never runs on the
//! async workers.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::model::params::LlamaModelParams;

use super::LocalError;
use super::job::{Job, PieceSender, RuntimeOptions};
use super::session::Session;

/// A handle on the runtime's thread (cheap to clone; the thread ends with the last handle).
#[derive(Clone, Debug)]
pub struct LocalRuntime {
    jobs: mpsc::Sender<(Job, PieceSender)>,
    loaded: Arc<Mutex<Option<PathBuf>>>,
}

impl LocalRuntime {
    /// Starts the runtime's thread.
    pub fn start(options: RuntimeOptions) -> Result<Self, LocalError> {
        let (jobs, queue) = mpsc::channel();
        let loaded = Arc::new(Mutex::new(None));
        let worker = Worker {
            options,
            queue,
            loaded: loaded.clone(),
        };
        std::thread::Builder::new()
            .name("local-model".into())
            .spawn(move || worker.run())
            .map_err(|e| LocalError::Backend(format!("cannot start the model thread: {e}")))?;
        Ok(Self { jobs, loaded })
    }

    /// Queues `job`; its pieces arrive on `out`.
    pub fn submit(&self, job: Job, out: PieceSender) -> Result<(), LocalError> {
        self.jobs.send((job, out)).map_err(|_| LocalError::Stopped)
    }

    /// The model file resident now, if any.
    pub fn loaded(&self) -> Option<PathBuf> {
        self.loaded
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// Runs one answer; a panic in it (a bug) fails that answer only: `out` hears why, and `false`
/// says the session must go (the model is loaded again for the next answer) instead of the
/// thread dying and every later answer failing with [`LocalError::Stopped`].
fn guarded(out: &PieceSender, answer: impl FnOnce()) -> bool {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(answer)) {
        Ok(()) => true,
        Err(panic) => {
            let what = (panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "an unknown panic".to_owned());
            tracing::error!(%what, "an answer of the built-in model panicked; the model is loaded again");
            let _ = out.send(Err(LocalError::Crashed(what)));
            false
        }
    }
}

/// llama.cpp's backend, initialized once per process.
pub(crate) fn backend() -> Result<&'static LlamaBackend, LocalError> {
    static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            llama_cpp_2::send_logs_to_tracing(llama_cpp_2::LogOptions::default());
            LlamaBackend::init().map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| LocalError::Backend(e.clone()))
}

/// Loads a GGUF file, with an error naming it when llama.cpp refuses it.
pub(crate) fn load_model(path: &Path) -> Result<LlamaModel, LocalError> {
    if !path.is_file() {
        return Err(LocalError::Missing {
            path: path.to_path_buf(),
        });
    }
    LlamaModel::load_from_file(backend()?, path, &LlamaModelParams::default()).map_err(|e| {
        tracing::warn!(path = %path.display(), error = %e, "llama.cpp cannot load the model");
        LocalError::Unloadable {
            path: path.to_path_buf(),
        }
    })
}

/// What ended serving one model.
enum Next {
    /// A job for another model.
    Switch(Job, PieceSender),
    /// No job for the idle time.
    Idle,
    /// Every handle is gone.
    Quit,
}

struct Worker {
    options: RuntimeOptions,
    queue: mpsc::Receiver<(Job, PieceSender)>,
    loaded: Arc<Mutex<Option<PathBuf>>>,
}

impl Worker {
    fn run(self) {
        let mut pending = None;
        loop {
            let (job, out) = match pending.take() {
                Some(next) => next,
                None => match self.queue.recv() {
                    Ok(next) => next,
                    Err(_) => return,
                },
            };
            match self.serve(job, out) {
                Next::Switch(job, out) => pending = Some((job, out)),
                Next::Idle => {}
                Next::Quit => return,
            }
        }
    }

    fn set_loaded(&self, path: Option<PathBuf>) {
        *self.loaded.lock().unwrap_or_else(PoisonError::into_inner) = path;
    }

    /// Loads `job`'s model and serves jobs for it until another model, the idle time or the end.
    fn serve(&self, job: Job, out: PieceSender) -> Next {
        let path = job.model.clone();
        let model = match load_model(&path) {
            Ok(model) => model,
            Err(e) => {
                let _ = out.send(Err(e));
                return self.next_without_model();
            }
        };
        let mut session =
            match backend().and_then(|b| Session::new(b, &model, &path, &self.options)) {
                Ok(session) => session,
                Err(e) => {
                    let _ = out.send(Err(e));
                    return self.next_without_model();
                }
            };
        self.set_loaded(Some(path.clone()));
        tracing::info!(model = %path.display(), "local model loaded");
        let mut good = guarded(&out, || session.run(job, &out));
        let next = loop {
            if !good {
                break Next::Idle; // loaded again for the next job
            }
            match self.queue.recv_timeout(self.options.idle) {
                Ok((job, out)) if job.model == path => {
                    good = guarded(&out, || session.run(job, &out))
                }
                Ok((job, out)) => break Next::Switch(job, out),
                Err(RecvTimeoutError::Timeout) => break Next::Idle,
                Err(RecvTimeoutError::Disconnected) => break Next::Quit,
            }
        };
        drop(session);
        drop(model);
        self.set_loaded(None);
        tracing::info!(model = %path.display(), "local model unloaded");
        next
    }

    /// After a failed load: wait for the next job as usual.
    fn next_without_model(&self) -> Next {
        match self.queue.recv() {
            Ok((job, out)) => Next::Switch(job, out),
            Err(_) => Next::Quit,
        }
    }
}

#[cfg(test)]
mod guard_tests {
    use super::*;

    #[test]
    fn a_panicking_answer_fails_alone_and_says_why() {
        let (out, mut heard) = tokio::sync::mpsc::unbounded_channel();
        assert!(guarded(&out, || {}));
        assert!(heard.try_recv().is_err());
        let good = guarded(&out, || panic!("byte index 1 is not a char boundary"));
        assert!(!good);
        match heard.try_recv() {
            Ok(Err(LocalError::Crashed(what))) => assert!(what.contains("char boundary"), "{what}"),
            other => panic!("{other:?}"),
        }
    }
}
