//! The built-in model provider (the `local` feature): GGUF models run in process by llama.cpp
//! through the `llama-cpp-2` crate.
//!
//! - [`runtime`]: the runtime's own thread — one resident model, loaded on first use and
//!   unloaded after an idle time; jobs queued to it, pieces streamed back, stop per token.
//! - [`session`]: the model's context, KV-cache slots kept per conversation (a follow-up
//!   evaluates only its new tokens), the decode and sampling loop.
//! - [`template`]: the model's own Jinja chat template rendered with minijinja (ChatML when it
//!   has none); [`hold`]: a tool call the model begins is held to the offered tools by the
//!   call grammar ([`grammar`]; [`gbnf`] converts JSON Schema), [`decode`] decides token by
//!   token what the answer streams, holds, takes back or ends ([`loops`]: an answer that
//!   loops ends, a held string that loops is closed);
//!   [`output`]: reasoning and call markers in the answer.
//! - [`provider`]: all of it as a [`crate::provider::Provider`]; [`models`]: the models folder
//!   ([`gguf`] reads each file's facts from its header);
//!   [`download`]: a model from a URL (resumed, verified, cancellable); [`catalogue`]: the
//!   recommended models as data and the one for this machine's memory.
//! - [`embed`]: an embedding model (the knowledge bases' built-in embedder) on its own thread.

pub mod catalogue;
mod decode;
pub mod download;
pub mod embed;
mod error;
pub mod gbnf;
pub mod gguf;
pub(crate) mod grammar;
pub(crate) mod hold;
pub mod job;
mod loops;
pub(crate) mod models;
pub(crate) mod output;
pub(crate) mod provider;
pub(crate) mod runtime;
pub(crate) mod session;
pub mod template;
mod text;

pub use embed::LocalEmbedder;
pub use error::LocalError;
pub use job::RuntimeOptions;
pub use models::{LocalModel, ModelsDir};
pub use provider::LocalProvider;
pub use runtime::LocalRuntime;
