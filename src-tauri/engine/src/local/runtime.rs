//! The runtime's own thread: it owns llama.cpp (the backend, the one resident model and its
//! context), takes generation jobs from a queue, and streams each job's pieces back through a
//! channel. The model loads on the first job that names it, another model replaces it, and
//! after [`RuntimeOptions::idle`] without a job it is unloaded. Generation never runs on the
//! async workers.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::model::params::LlamaModelParams;
use tokio::sync::mpsc::UnboundedSender;

use super::LocalError;
use super::session::{Report, Session};

/// How the runtime behaves.
#[derive(Clone, Debug, PartialEq)]
pub struct RuntimeOptions {
    /// How long a model stays loaded with no job (Ollama's keep-alive; default 5 minutes).
    pub idle: Duration,
    /// The largest context, in tokens; the model's own (from its metadata) when smaller.
    pub max_context: u32,
    /// How many conversations keep their KV cache at once.
    pub slots: u32,
    /// CPU threads; all cores when `None`.
    pub threads: Option<i32>,
}

impl Default for RuntimeOptions {
    fn default() -> Self {
        Self {
            idle: Duration::from_secs(300),
            max_context: 8192,
            slots: 4,
            threads: None,
        }
    }
}

/// What a job learns of the model before its prompt is made.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelFacts {
    /// The file.
    pub path: PathBuf,
    /// `tokenizer.chat_template`, when the file has one.
    pub chat_template: Option<String>,
    /// The beginning-of-sequence token's text.
    pub bos_token: String,
    /// The end-of-sequence token's text.
    pub eos_token: String,
    /// The context size in use.
    pub n_ctx: u32,
}

/// A prompt ready for the model, and what constrains its answer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Prompt {
    /// The rendered text (special tokens written as text are parsed as such).
    pub text: String,
    /// A GBNF grammar (root rule `root`) the answer must follow.
    pub grammar: Option<String>,
    /// The tools the answer may call (their provider-safe names); none: it is prose.
    pub tools: Vec<String>,
}

/// Counts the tokens of a text with the resident model's own tokenizer.
pub type CountTokens<'a> = &'a dyn Fn(&str) -> usize;

/// Makes the prompt once the model is known (on the runtime's thread), with the model's
/// tokenizer at hand to fit it into the context.
pub type RenderPrompt =
    Box<dyn FnOnce(&ModelFacts, CountTokens<'_>) -> Result<Prompt, LocalError> + Send>;

/// Sampling for one job.
#[derive(Clone, Debug, PartialEq)]
pub struct Sampling {
    /// 0 or less samples greedily.
    pub temperature: f32,
    /// Nucleus sampling (1.0: off).
    pub top_p: f32,
    /// The random seed.
    pub seed: u32,
    /// The most tokens to generate.
    pub max_tokens: u32,
    /// Text that ends the answer (not included).
    pub stop: Vec<String>,
}

impl Default for Sampling {
    fn default() -> Self {
        Self {
            temperature: 0.7,
            top_p: 0.95,
            seed: 0,
            max_tokens: 1024,
            stop: Vec::new(),
        }
    }
}

/// One generation request.
pub struct Job {
    /// The GGUF file.
    pub model: PathBuf,
    /// Makes the prompt.
    pub render: RenderPrompt,
    /// How to sample.
    pub sampling: Sampling,
    /// Set to end the generation before its next token.
    pub stop: StopFlag,
}

/// What a job streams back: the start, pieces of text, then one report (or an error).
#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    /// The prompt is evaluated and generation begins; `thinking`: the prompt opened a
    /// `<think>` block, so the answer starts in reasoning.
    Started {
        /// Whether the answer starts inside `<think>`.
        thinking: bool,
        /// The tools the answer may call ([`Prompt::tools`]).
        tools: Vec<String>,
    },
    /// More text.
    Text(String),
    /// The end.
    Done(Report),
}

/// The end of a job's stream of pieces.
pub type PieceSender = UnboundedSender<Result<Piece, LocalError>>;

/// A shared "stop now" switch; dropping the [`StopOnDrop`] guard sets it too.
#[derive(Clone, Debug, Default)]
pub struct StopFlag(Arc<AtomicBool>);

impl StopFlag {
    /// Asks the generation to end.
    pub fn stop(&self) {
        self.0.store(true, Ordering::Release);
    }

    /// Whether a stop was asked.
    pub fn is_stopped(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

/// Sets a [`StopFlag`] when dropped (held by a stream, so dropping the stream stops decoding).
#[derive(Debug)]
pub struct StopOnDrop(pub StopFlag);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.stop();
    }
}

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

/// llama.cpp's backend, initialized once per process.
fn backend() -> Result<&'static LlamaBackend, LocalError> {
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
pub fn load_model(path: &Path) -> Result<LlamaModel, LocalError> {
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
        session.run(job, &out);
        let next = loop {
            match self.queue.recv_timeout(self.options.idle) {
                Ok((job, out)) if job.model == path => session.run(job, &out),
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
