//! What makes vectors for a knowledge base: the [`Embedder`] door, and the built-in one — the
//! multilingual-e5-small GGUF run by llama.cpp in process (`local::embed`) — with e5's
//! convention of a `query: ` or `passage: ` prefix on every text — and the door to embedders
//! a provider serves ([`RemoteEmbedders`]).

use std::path::{Path, PathBuf};

use futures::future::BoxFuture;

/// The file name of the built-in embedder in the models folder.
pub const BUILTIN_FILE: &str = "multilingual-e5-small-q4_0.gguf";

/// What a text is to the embedder: a question or a passage that may answer one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// A search question.
    Query,
    /// A chunk of a document.
    Passage,
}

/// Makes vectors from texts.
pub trait Embedder: Send + Sync {
    /// Its identity as stored with a base ("builtin:<file>"): a base made by another embedder
    /// is embedded again.
    fn id(&self) -> String;

    /// The length of its vectors.
    fn dimensions(&self) -> usize;

    /// The most tokens one text may have; chunks are cut to fit.
    fn max_tokens(&self) -> usize;

    /// How many tokens `text` is to it.
    fn count_tokens(&self, text: &str) -> usize;

    /// The unit-length vectors of `texts`, in order.
    fn embed(
        &self,
        texts: Vec<String>,
        purpose: Purpose,
    ) -> BoxFuture<'static, Result<Vec<Vec<f32>>, String>>;
}

/// Embedders reached over the network: a configured provider's embedding model (the engine
/// hands its providers service in).
pub trait RemoteEmbedders: Send + Sync {
    /// Provider `provider`'s embedding model `model`, checked to answer; why not.
    fn embedder(
        &self,
        provider: &str,
        model: &str,
    ) -> BoxFuture<'static, Result<std::sync::Arc<dyn Embedder>, String>>;
}

/// Where the built-in embedder is looked for: `SWITCHBOARD_EMBED_GGUF` when set (the
/// development and test runs point it at the file `scripts/deps.sh` made), else the models
/// folder.
pub fn builtin_path(models_dir: &Path) -> PathBuf {
    std::env::var_os("SWITCHBOARD_EMBED_GGUF")
        .map(PathBuf::from)
        .unwrap_or_else(|| models_dir.join(BUILTIN_FILE))
}

/// The built-in embedder: an e5 GGUF on llama.cpp.
#[cfg(feature = "local")]
#[derive(Clone, Debug)]
pub struct BuiltinEmbedder {
    inner: crate::local::LocalEmbedder,
}

#[cfg(feature = "local")]
impl BuiltinEmbedder {
    /// Loads the GGUF at `path` with `threads` CPU threads (all cores when `None`).
    pub fn load(path: &Path, threads: Option<i32>) -> Result<Self, String> {
        crate::local::LocalEmbedder::load(path, threads)
            .map(|inner| Self { inner })
            .map_err(|e| format!("the embedder {} cannot be loaded: {e}", path.display()))
    }
}

#[cfg(feature = "local")]
impl Embedder for BuiltinEmbedder {
    fn id(&self) -> String {
        let name = self.inner.path().file_name().unwrap_or_default();
        format!("builtin:{}", name.to_string_lossy())
    }

    fn dimensions(&self) -> usize {
        self.inner.dimensions()
    }

    fn max_tokens(&self) -> usize {
        // The prefix ("passage: ", 3 tokens) is counted with the chunk's own.
        crate::local::embed::MAX_TOKENS - 4
    }

    fn count_tokens(&self, text: &str) -> usize {
        self.inner.count_tokens(text)
    }

    fn embed(
        &self,
        texts: Vec<String>,
        purpose: Purpose,
    ) -> BoxFuture<'static, Result<Vec<Vec<f32>>, String>> {
        let prefix = match purpose {
            Purpose::Query => "query: ",
            Purpose::Passage => "passage: ",
        };
        let texts = texts.into_iter().map(|t| format!("{prefix}{t}")).collect();
        let inner = self.inner.clone();
        Box::pin(async move {
            let vectors = match purpose {
                Purpose::Query => inner.embed_questions(texts).await,
                Purpose::Passage => inner.embed(texts).await,
            };
            vectors.map_err(|e| e.to_string())
        })
    }
}

/// A base's embedder that cannot be had now: every text fails with the reason.
pub(crate) struct Unavailable {
    pub(crate) id: String,
    pub(crate) dimensions: usize,
    pub(crate) why: String,
}

impl Embedder for Unavailable {
    fn id(&self) -> String {
        self.id.clone()
    }

    fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn max_tokens(&self) -> usize {
        512
    }

    fn count_tokens(&self, text: &str) -> usize {
        super::chunk::estimated_tokens(text)
    }

    fn embed(
        &self,
        _texts: Vec<String>,
        _purpose: Purpose,
    ) -> BoxFuture<'static, Result<Vec<Vec<f32>>, String>> {
        let why = self.why.clone();
        Box::pin(async move { Err(why) })
    }
}

/// The built-in embedder from `path`, loaded off the async workers.
pub(crate) async fn load_builtin(path: PathBuf) -> Result<std::sync::Arc<dyn Embedder>, String> {
    #[cfg(feature = "local")]
    {
        if !path.is_file() {
            return Err(format!(
                "the built-in embedder {} is missing, so search uses keywords only",
                path.display()
            ));
        }
        let loaded = tokio::task::spawn_blocking(move || BuiltinEmbedder::load(&path, None))
            .await
            .map_err(|e| e.to_string())??;
        Ok(std::sync::Arc::new(loaded) as std::sync::Arc<dyn Embedder>)
    }
    #[cfg(not(feature = "local"))]
    {
        Err(format!(
            "this build has no built-in model runtime, so {} cannot be loaded and search uses keywords only",
            path.display()
        ))
    }
}
