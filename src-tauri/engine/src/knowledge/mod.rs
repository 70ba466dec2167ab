//! Knowledge bases: the user's folders and files made searchable for a model, with sources.
//!
//! - [`document`] reads a file as text by its kind (Markdown, plain text, source code, HTML to
//!   Markdown), refusing binary, oversized and unknown files by name; [`chunk`] cuts it into
//!   chunks that follow its structure, sized by the embedder's own tokenizer, each with its
//!   line and heading path for a citation.
//! - [`walk`] finds the files of a base's folders (no link out of a folder is followed);
//!   [`index`] brings a base's index up to date incrementally (size and time, then SHA-256);
//!   [`watch`] indexes a base again when its files change while the app runs.
//! - [`embedder`] makes vectors (the built-in multilingual-e5-small GGUF on llama.cpp);
//!   [`vectors`] keeps them as int8 and scans them; [`keywords`] makes the FTS5 text and
//!   question (words stemmed, CJK characters one per token); [`search`] fuses both rankings.
//! - [`service`]: [`Knowledge`], the service the app, the CLI and the built-in `knowledge`
//!   MCP server use ([`crate::vocab::knowledge::KnowledgeSearch`]).

pub mod chunk;
pub mod document;
pub mod embedder;
pub mod html;
pub mod index;
pub mod keywords;
pub mod packaged;
pub mod pdf;
pub mod search;
pub mod service;
pub mod vectors;
pub mod walk;
pub mod watch;

#[cfg(test)]
mod tests;

use std::path::PathBuf;

use futures::future::BoxFuture;

pub use chunk::{Chunk, chunks};
pub use document::{Document, DocumentError, Kind, MAX_FILE_BYTES, read_document};
pub use index::{IndexProgress, IndexReport};
pub use search::Mode;
pub use service::{Knowledge, KnowledgeEvent};

use crate::store::StoreError;
use crate::vocab::knowledge::{KnowledgeSearch, Passage};

/// Why a knowledge-base operation failed.
#[derive(Debug, thiserror::Error)]
pub enum KnowledgeError {
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// No base has that name.
    #[error("there is no knowledge base named {0:?}")]
    NoSuchBase(String),
    /// A folder or file cannot be a source.
    #[error("{path}: {reason}")]
    BadSource {
        /// The path given.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The embedder cannot be loaded or failed.
    #[error("{0}")]
    Embedder(String),
    /// A task failed unexpectedly.
    #[error("knowledge base task failed: {0}")]
    Internal(String),
}

impl KnowledgeSearch for Knowledge {
    fn search(
        &self,
        base: String,
        query: String,
        count: usize,
    ) -> BoxFuture<'static, Result<Vec<Passage>, String>> {
        let this = self.clone();
        Box::pin(async move {
            this.search(&base, &query, count, Mode::Hybrid)
                .await
                .map_err(|e| e.to_string())
        })
    }

    fn describe(&self, base: String) -> BoxFuture<'static, Result<String, String>> {
        let this = self.clone();
        Box::pin(async move {
            let found = this.get(&base).await.map_err(|e| e.to_string())?;
            Ok(format!(
                "the knowledge base {:?}: {} files, {} passages",
                found.name, found.files, found.chunks
            ))
        })
    }
}
