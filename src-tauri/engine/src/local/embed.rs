//! The built-in embedder: an embedding GGUF (a BERT-family model such as multilingual-e5-small)
//! run by llama.cpp on threads of its own. Texts are tokenized with the model's own tokenizer
//! (also offered to the caller, to size chunks), packed several to a batch, and come back as
//! L2-normalised vectors. Embedding never runs on the async workers.
//!
//! Two lanes share the model: passages go to a wide context on all cores, and search
//! questions to a small one on a single thread, so a question never waits behind an indexing
//! batch. One thread is also the faster choice for a question: with two on two busy cores,
//! llama.cpp's threads wait on each other whenever another process holds a core (measured by
//! `make bench-knowledge PARTS=query`: p50 11 ms on one thread against more than a second on
//! two beside a busy process).

use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::context::params::{LlamaContextParams, LlamaPoolingType};
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::token::LlamaToken;
use tokio::sync::oneshot;

use super::LocalError;
use super::runtime::{backend, load_model};

/// The most tokens one text may have (BERT-family models' position table); longer texts are
/// cut to it.
pub const MAX_TOKENS: usize = 512;

/// Tokens decoded together: several short texts share one batch.
const BATCH_TOKENS: usize = 2048;

/// Texts packed into one batch at most.
const BATCH_SEQUENCES: usize = 32;

/// Questions embedded together at most on the question lane.
const QUESTION_SEQUENCES: usize = 4;

/// One context's shape: how many tokens and texts a batch holds and the threads it runs on.
#[derive(Clone, Copy)]
struct Lane {
    tokens: usize,
    sequences: usize,
    threads: i32,
}

type Reply = oneshot::Sender<Result<Vec<Vec<f32>>, LocalError>>;

/// A handle on a loaded embedding model (cheap to clone; the model's thread ends with the
/// last handle).
#[derive(Clone)]
pub struct LocalEmbedder {
    model: Arc<LlamaModel>,
    path: PathBuf,
    dimensions: usize,
    jobs: mpsc::Sender<(Vec<String>, Reply)>,
    questions: mpsc::Sender<(Vec<String>, Reply)>,
}

impl std::fmt::Debug for LocalEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalEmbedder")
            .field("path", &self.path)
            .field("dimensions", &self.dimensions)
            .finish_non_exhaustive()
    }
}

impl LocalEmbedder {
    /// Loads the embedding GGUF at `path` and starts its thread, with `threads` CPU threads
    /// (all cores when `None`). Refuses a model that makes no embeddings.
    pub fn load(path: &Path, threads: Option<i32>) -> Result<Self, LocalError> {
        let model = Arc::new(load_model(path)?);
        let dimensions = usize::try_from(model.n_embd()).unwrap_or(0);
        if dimensions == 0 {
            return Err(LocalError::Backend(format!(
                "{} has no embedding width",
                path.display()
            )));
        }
        let threads = threads.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| i32::try_from(n.get()).unwrap_or(4))
                .unwrap_or(4)
        });
        let bulk = Lane {
            tokens: BATCH_TOKENS,
            sequences: BATCH_SEQUENCES,
            threads,
        };
        let question = Lane {
            tokens: MAX_TOKENS,
            sequences: QUESTION_SEQUENCES,
            threads: 1,
        };
        Ok(Self {
            jobs: start_lane(&model, bulk, "local-embedder")?,
            questions: start_lane(&model, question, "local-embedder-q")?,
            model,
            path: path.to_path_buf(),
            dimensions,
        })
    }

    /// The model file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The length of every vector.
    pub fn dimensions(&self) -> usize {
        self.dimensions
    }

    /// How many tokens `text` is to the model (with its start and end tokens), uncut.
    pub fn count_tokens(&self, text: &str) -> usize {
        self.model
            .vocab()
            .tokenize(text.as_bytes(), true, false)
            .len()
    }

    /// The vectors of `texts`, in order, each of length [`Self::dimensions`] and unit length
    /// (on all the embedder's threads: for passages).
    pub async fn embed(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, LocalError> {
        ask(&self.jobs, texts).await
    }

    /// [`Self::embed`] on the question lane: one thread, never behind a batch of passages.
    pub async fn embed_questions(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, LocalError> {
        ask(&self.questions, texts).await
    }
}

async fn ask(
    lane: &mpsc::Sender<(Vec<String>, Reply)>,
    texts: Vec<String>,
) -> Result<Vec<Vec<f32>>, LocalError> {
    if texts.is_empty() {
        return Ok(Vec::new());
    }
    let (reply, answer) = oneshot::channel();
    lane.send((texts, reply)).map_err(|_| LocalError::Stopped)?;
    answer.await.map_err(|_| LocalError::Stopped)?
}

/// Starts a thread with its own context of `lane`'s shape; its queue (the thread ends with
/// the last sender).
fn start_lane(
    model: &Arc<LlamaModel>,
    lane: Lane,
    name: &str,
) -> Result<mpsc::Sender<(Vec<String>, Reply)>, LocalError> {
    let (jobs, queue) = mpsc::channel::<(Vec<String>, Reply)>();
    let (ready_tx, ready_rx) = mpsc::channel();
    let model = model.clone();
    std::thread::Builder::new()
        .name(name.into())
        .spawn(move || worker(&model, lane, queue, ready_tx))
        .map_err(|e| LocalError::Backend(format!("cannot start the embedder thread: {e}")))?;
    ready_rx
        .recv()
        .map_err(|_| LocalError::Stopped)
        .and_then(|ready| ready)?;
    Ok(jobs)
}

/// `text`'s tokens with the model's start and end tokens, cut to [`MAX_TOKENS`] (the end token
/// kept).
fn tokenize(model: &LlamaModel, text: &str) -> Vec<LlamaToken> {
    let mut tokens = model.vocab().tokenize(text.as_bytes(), true, false);
    if tokens.len() > MAX_TOKENS {
        let last = tokens[tokens.len() - 1];
        tokens.truncate(MAX_TOKENS - 1);
        tokens.push(last);
    }
    tokens
}

/// A lane's thread: one context, serving jobs until every handle is gone.
fn worker(
    model: &LlamaModel,
    lane: Lane,
    queue: mpsc::Receiver<(Vec<String>, Reply)>,
    ready: mpsc::Sender<Result<(), LocalError>>,
) {
    let Lane {
        tokens,
        sequences,
        threads,
    } = lane;
    let context = backend().and_then(|backend| {
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(tokens as u32))
            .with_n_batch(tokens as u32)
            .with_n_ubatch(tokens as u32)
            .with_n_seq_max(sequences as u32)
            // One context for all sequences (an encoder keeps no cache between batches).
            .with_kv_unified(true)
            .with_embeddings(true)
            .with_pooling_type(LlamaPoolingType::Mean)
            .with_n_threads(threads)
            .with_n_threads_batch(threads);
        model
            .new_context(backend, params)
            .map_err(|e| LocalError::Backend(format!("cannot create an embedding context: {e}")))
    });
    let mut context = match context {
        Ok(context) => {
            let _ = ready.send(Ok(()));
            context
        }
        Err(e) => {
            let _ = ready.send(Err(e));
            return;
        }
    };
    while let Ok((texts, reply)) = queue.recv() {
        if reply.is_closed() {
            continue;
        }
        let _ = reply.send(embed_all(model, &mut context, lane, &texts));
    }
}

/// Embeds `texts`, packing as many as fit into each batch.
fn embed_all(
    model: &LlamaModel,
    context: &mut LlamaContext<'_>,
    lane: Lane,
    texts: &[String],
) -> Result<Vec<Vec<f32>>, LocalError> {
    let tokenized: Vec<Vec<LlamaToken>> = texts.iter().map(|t| tokenize(model, t)).collect();
    let mut vectors = Vec::with_capacity(texts.len());
    let mut start = 0;
    while start < tokenized.len() {
        let (mut end, mut used) = (start, 0);
        while end < tokenized.len()
            && end - start < lane.sequences
            && (end == start || used + tokenized[end].len() <= lane.tokens)
        {
            used += tokenized[end].len();
            end += 1;
        }
        vectors.extend(embed_batch(context, &tokenized[start..end])?);
        start = end;
    }
    Ok(vectors)
}

/// One decode of `group` (each its own sequence), their pooled vectors normalised.
fn embed_batch(
    context: &mut LlamaContext<'_>,
    group: &[Vec<LlamaToken>],
) -> Result<Vec<Vec<f32>>, LocalError> {
    let total: usize = group.iter().map(Vec::len).sum();
    let mut batch = LlamaBatch::new(total.max(1), group.len() as i32);
    for (seq, tokens) in group.iter().enumerate() {
        batch
            .add_sequence(tokens, seq as i32, true)
            .map_err(|e| LocalError::Backend(format!("cannot batch a text: {e}")))?;
    }
    context.clear_kv_cache();
    context
        .decode(&mut batch)
        .map_err(|e| LocalError::Backend(format!("the embedder failed: {e}")))?;
    (0..group.len())
        .map(|seq| {
            let raw = context
                .embeddings_seq_ith(seq as i32)
                .map_err(|e| LocalError::Backend(format!("no embedding came back: {e}")))?;
            Ok(normalised(raw))
        })
        .collect()
}

/// `v` scaled to unit length (a zero vector stays zero).
fn normalised(v: &[f32]) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter().map(|x| x / norm).collect()
    } else {
        v.to_vec()
    }
}
