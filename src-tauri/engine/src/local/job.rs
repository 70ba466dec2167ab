//! What a generation job is, shared by the runtime's thread (`runtime.rs`) and the model
//! session it drives (`session.rs`): the runtime's options, the model's facts, the prompt and
//! its sampling, the pieces streamed back and the flag that stops a job.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;

use super::LocalError;
pub use super::grammar::Form;
pub use super::hold::Hold;

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
    /// How the answer's tool calls are held to the offered tools; `None`: they are not.
    pub hold: Option<Hold>,
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

/// Why a generation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finish {
    /// The model's end-of-generation token.
    Eos,
    /// The token limit (or the context is full).
    Length,
    /// A stop text appeared.
    StopText,
    /// The answer went round in a loop (the same stretch of tokens again and again).
    Repeating,
    /// A stop request, or the receiver went away.
    Stopped,
}

/// What one job did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The prompt's tokens.
    pub prompt_tokens: usize,
    /// Prompt tokens found in the KV cache (not evaluated again).
    pub reused: usize,
    /// Prompt tokens evaluated by this job.
    pub evaluated: usize,
    /// Tokens generated.
    pub generated: usize,
    /// Why it ended.
    pub finish: Finish,
}
