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

/// The folder inside the app's packaged resources that holds the built-in embedder (an
/// installed app ships it there, e.g. `/usr/lib/Switchboard/models/` from the `.deb`).
pub const PACKAGED_MODELS: &str = "models";

/// Where the built-in embedder is looked for: `SWITCHBOARD_EMBED_GGUF` when set (the
/// development and test runs point it at the file `scripts/deps.sh` made), else the profile's
/// models folder when the file is there, else the copy packaged with the app (`packaged`: the
/// app's resources folder), else the models folder (so a missing file is named where a user
/// can put one).
pub fn builtin_path(models_dir: &Path, packaged: Option<&Path>) -> PathBuf {
    choose_builtin(
        std::env::var_os("SWITCHBOARD_EMBED_GGUF"),
        models_dir,
        packaged,
    )
}

fn choose_builtin(
    from_env: Option<std::ffi::OsString>,
    models_dir: &Path,
    packaged: Option<&Path>,
) -> PathBuf {
    if let Some(path) = from_env.filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    let own = models_dir.join(BUILTIN_FILE);
    if own.is_file() {
        return own;
    }
    packaged
        .map(|dir| dir.join(PACKAGED_MODELS).join(BUILTIN_FILE))
        .filter(|path| path.is_file())
        .unwrap_or(own)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn file_in(dir: &Path) -> PathBuf {
        std::fs::create_dir_all(dir).unwrap();
        let path = dir.join(BUILTIN_FILE);
        std::fs::write(&path, b"GGUF").unwrap();
        path
    }

    #[test]
    fn the_builtin_embedder_is_taken_from_the_models_folder_before_the_packaged_copy() {
        let dir = tempfile::tempdir().unwrap();
        let models = dir.path().join("models");
        let packaged = dir.path().join("resources");
        let shipped = file_in(&packaged.join(PACKAGED_MODELS));
        assert_eq!(choose_builtin(None, &models, Some(&packaged)), shipped);
        let own = file_in(&models);
        assert_eq!(choose_builtin(None, &models, Some(&packaged)), own);
    }

    #[test]
    fn a_missing_builtin_embedder_is_named_in_the_models_folder() {
        let dir = tempfile::tempdir().unwrap();
        let models = dir.path().join("models");
        let empty = dir.path().join("resources");
        let expected = models.join(BUILTIN_FILE);
        assert_eq!(choose_builtin(None, &models, Some(&empty)), expected);
        assert_eq!(choose_builtin(None, &models, None), expected);
    }

    #[test]
    fn the_environment_names_the_builtin_embedder_before_any_folder() {
        let dir = tempfile::tempdir().unwrap();
        let models = dir.path().join("models");
        file_in(&models);
        let named = dir.path().join("elsewhere.gguf");
        assert_eq!(
            choose_builtin(Some(named.clone().into()), &models, None),
            named
        );
        assert_eq!(
            choose_builtin(Some("".into()), &models, None),
            models.join(BUILTIN_FILE)
        );
    }
}
