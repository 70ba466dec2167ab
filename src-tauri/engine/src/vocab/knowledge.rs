//! What the built-in `knowledge` MCP server asks of the knowledge bases, and what it gets back:
//! the [`KnowledgeSearch`] door (implemented by `knowledge::Knowledge`, handed to the MCP host
//! by the engine) and the [`Passage`]s a search finds, each with where it came from.

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Which embedder makes a knowledge base's vectors.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum EmbedderChoice {
    /// The built-in embedder (multilingual-e5-small on llama.cpp, offline).
    #[default]
    Builtin,
    /// A configured provider's embedding endpoint.
    Provider {
        /// The provider's id.
        provider: String,
        /// The embedding model, e.g. `text-embedding-3-small` or `nomic-embed-text`.
        model: String,
    },
}

/// One passage a search found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Passage {
    /// The knowledge base it is in.
    pub base: String,
    /// The file's absolute path.
    pub path: String,
    /// The file's name, or its title when it has one.
    pub title: String,
    /// The passage's text.
    pub text: String,
    /// The line it starts on, from 1.
    pub line: Option<u32>,
    /// The page it is on (PDF), from 1.
    pub page: Option<u32>,
    /// The headings it sits under ("Guide › Install").
    pub heading: Option<String>,
    /// Its fused rank score (higher is better; comparable within one search only).
    pub score: f32,
}

/// Searches knowledge bases by name (the `knowledge` server's one door into them).
pub trait KnowledgeSearch: Send + Sync {
    /// The `count` best passages for `query` in the base named `base`; an error names what is
    /// wrong (no such base, the embedder cannot load, …) for the tool result.
    fn search(
        &self,
        base: String,
        query: String,
        count: usize,
    ) -> BoxFuture<'static, Result<Vec<Passage>, String>>;

    /// A one-line description of `base` for the tool's description ("12 files: …").
    fn describe(&self, base: String) -> BoxFuture<'static, Result<String, String>>;
}
