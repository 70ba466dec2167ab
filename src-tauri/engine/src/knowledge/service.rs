//! [`Knowledge`], the service over knowledge bases: create, list, add and remove sources,
//! index (one run at a time, in the background or awaited), search (hybrid by default), and the
//! events a window shows — progress, a finished run, a failed one, a base embedded again. Each
//! base has its embedder: the built-in one, loaded on first use, or a provider's (through
//! [`RemoteEmbedders`]); when it cannot be had, bases are indexed and searched by keywords
//! alone and the run says so. The vectors of a base are read into memory on its first search and dropped
//! when it is indexed again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::broadcast;

use super::KnowledgeError;
use super::embedder::{Embedder, Purpose, RemoteEmbedders, Unavailable, load_builtin};
use super::index::{IndexProgress, IndexReport, index_base};
use super::search::{Mode, rank};
use super::vectors::VectorSet;
use crate::store::{FilesPage, FilesQuery, KnowledgeBase, KnowledgeFile, Store};
use crate::vocab::knowledge::{EmbedderChoice, Passage};

/// The least time between two progress events of one run.
const PROGRESS_EVERY: Duration = Duration::from_millis(200);

/// How long a provider's embedder is kept for searches before it is checked again (a changed
/// key or a server that went away is noticed by then; an indexing run checks sooner:
/// [`REMOTE_RECHECK`]).
const REMOTE_FOR: Duration = Duration::from_secs(300);

/// How old a provider's check may be for an indexing run to use it without asking again.
const REMOTE_RECHECK: Duration = Duration::from_secs(60);

/// How long a provider embedder that could not be had is not asked again by searches (they
/// go on by keywords at once instead of waiting on a server that is down).
const REMOTE_RETRY: Duration = Duration::from_secs(30);

/// The longest a search waits for its question's vector before going on by keywords.
const QUESTION_WAIT: Duration = Duration::from_secs(10);

/// A provider embedder as last had, or why not, and when.
type RemoteCache =
    HashMap<(String, String), (std::time::Instant, Result<Arc<dyn Embedder>, String>)>;

/// What the knowledge bases tell a window.
#[derive(Clone, Debug, PartialEq, serde::Serialize, ts_rs::TS)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum KnowledgeEvent {
    /// A run is this far.
    Progress(IndexProgress),
    /// A run finished.
    Indexed(IndexReport),
    /// A base's embedder changed: every file is embedded again (found by keywords meanwhile).
    EmbeddingAgain {
        /// The base.
        base: String,
        /// The embedder now used.
        embedder: String,
    },
    /// A run failed as a whole.
    Failed {
        /// The base.
        base: String,
        /// Why.
        error: String,
    },
}

/// How the embedder is had.
enum Source {
    /// Loaded from this file on first use.
    File(PathBuf),
    /// Given (tests, benchmarks).
    Given(Arc<dyn Embedder>),
}

struct Inner {
    store: Store,
    source: Source,
    /// The embedder once loaded (a failed load is tried again at the next use).
    embedder: tokio::sync::Mutex<Option<Arc<dyn Embedder>>>,
    /// Where provider embedders come from (none: bases that chose one use keywords only).
    remote: Mutex<Option<Arc<dyn RemoteEmbedders>>>,
    remotes: tokio::sync::Mutex<RemoteCache>,
    vectors: Mutex<HashMap<i64, Arc<VectorSet>>>,
    /// Bumped whenever cached vectors are dropped: a read that began before is not cached.
    generation: std::sync::atomic::AtomicU64,
    running: tokio::sync::Mutex<()>,
    events: broadcast::Sender<KnowledgeEvent>,
    watcher: Mutex<Option<super::watch::Watcher>>,
}

/// The knowledge bases of one profile (cheap to clone).
#[derive(Clone)]
pub struct Knowledge {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Knowledge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Knowledge").finish_non_exhaustive()
    }
}

impl Knowledge {
    /// The service over `store`'s bases, loading the built-in embedder from `embedder_file`.
    pub fn new(store: Store, embedder_file: PathBuf) -> Self {
        Self::with_source(store, Source::File(embedder_file))
    }

    /// The service with `embedder` given.
    pub fn with_embedder(store: Store, embedder: Arc<dyn Embedder>) -> Self {
        Self::with_source(store, Source::Given(embedder))
    }

    fn with_source(store: Store, source: Source) -> Self {
        Self {
            inner: Arc::new(Inner {
                store,
                source,
                embedder: tokio::sync::Mutex::const_new(None),
                remote: Mutex::default(),
                remotes: tokio::sync::Mutex::const_new(HashMap::new()),
                vectors: Mutex::default(),
                generation: std::sync::atomic::AtomicU64::new(0),
                running: tokio::sync::Mutex::const_new(()),
                events: broadcast::channel(256).0,
                watcher: Mutex::default(),
            }),
        }
    }

    /// The events of indexing runs.
    pub fn subscribe(&self) -> broadcast::Receiver<KnowledgeEvent> {
        self.inner.events.subscribe()
    }

    /// The embedder, loaded on first use; why not, when it cannot be (tried again next time).
    pub async fn embedder(&self) -> Result<Arc<dyn Embedder>, String> {
        let mut slot = self.inner.embedder.lock().await;
        if let Some(embedder) = slot.as_ref() {
            return Ok(embedder.clone());
        }
        let loaded = match &self.inner.source {
            Source::Given(embedder) => embedder.clone(),
            Source::File(path) => load_builtin(path.clone()).await?,
        };
        *slot = Some(loaded.clone());
        Ok(loaded)
    }

    /// Lets bases use provider embedders from `remote`.
    pub fn set_remote(&self, remote: Arc<dyn RemoteEmbedders>) {
        *self
            .inner
            .remote
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(remote);
    }

    /// The embedder `choice` names; why not, when it cannot be had now.
    pub async fn embedder_for(&self, choice: &EmbedderChoice) -> Result<Arc<dyn Embedder>, String> {
        let EmbedderChoice::Provider { provider, model } = choice else {
            return self.embedder().await;
        };
        let key = (provider.clone(), model.clone());
        if let Some((made, had)) = self.inner.remotes.lock().await.get(&key) {
            let keep = if had.is_ok() {
                REMOTE_FOR
            } else {
                REMOTE_RETRY
            };
            if made.elapsed() < keep {
                return had.clone();
            }
        }
        let remote = (self.inner.remote.lock())
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .ok_or_else(|| "provider embedders are not available here".to_owned())?;
        // Asked without the cache's lock held: a slow server holds up no other base.
        let had = remote.embedder(provider, model).await;
        let now = std::time::Instant::now();
        self.inner
            .remotes
            .lock()
            .await
            .insert(key, (now, had.clone()));
        had
    }

    /// Drops the cached provider embedder `choice` names when it was had at least `age` ago or
    /// could not be had, so its next use asks the provider again.
    async fn forget_remote(&self, choice: &EmbedderChoice, age: Duration) {
        let EmbedderChoice::Provider { provider, model } = choice else {
            return;
        };
        let key = (provider.clone(), model.clone());
        let mut remotes = self.inner.remotes.lock().await;
        if remotes
            .get(&key)
            .is_some_and(|(made, had)| had.is_err() || made.elapsed() >= age)
        {
            remotes.remove(&key);
        }
    }

    /// Chooses base `name`'s embedder (a provider's is checked to answer first); the next run
    /// embeds every file again with it (the caller starts one).
    pub async fn set_embedder(
        &self,
        name: &str,
        choice: &EmbedderChoice,
    ) -> Result<KnowledgeBase, KnowledgeError> {
        let base = self.get(name).await?;
        if matches!(choice, EmbedderChoice::Provider { .. }) {
            self.forget_remote(choice, Duration::ZERO).await;
            self.embedder_for(choice)
                .await
                .map_err(KnowledgeError::Embedder)?;
        }
        self.inner
            .store
            .set_knowledge_choice(base.id, choice)
            .await?;
        self.get(name).await
    }

    /// Every base.
    pub async fn list(&self) -> Result<Vec<KnowledgeBase>, KnowledgeError> {
        Ok(self.inner.store.knowledge_bases().await?)
    }

    /// The base named `name`.
    pub async fn get(&self, name: &str) -> Result<KnowledgeBase, KnowledgeError> {
        self.inner
            .store
            .knowledge_base_named(name)
            .await?
            .ok_or_else(|| KnowledgeError::NoSuchBase(name.trim().to_owned()))
    }

    /// Creates the base `name` (empty until a source is added).
    pub async fn create(&self, name: &str) -> Result<KnowledgeBase, KnowledgeError> {
        Ok(self.inner.store.create_knowledge_base(name, "none").await?)
    }

    /// Deletes the base `name` and all it holds (the user's files are not touched).
    pub async fn delete(&self, name: &str) -> Result<(), KnowledgeError> {
        let base = self.get(name).await?;
        let _running = self.inner.running.lock().await;
        self.inner.store.delete_knowledge_base(base.id).await?;
        self.forget_vectors(base.id);
        Ok(())
    }

    /// Adds the folder or file `path` (absolute, existing) to base `name`; the caller indexes.
    pub async fn add_source(
        &self,
        name: &str,
        path: &Path,
    ) -> Result<KnowledgeBase, KnowledgeError> {
        let base = self.get(name).await?;
        let path = checked_source(path)?;
        self.inner
            .store
            .add_knowledge_source(base.id, &path.to_string_lossy())
            .await?;
        self.get(name).await
    }

    /// Removes `path` from base `name`'s sources; its files leave the index at the next run.
    pub async fn remove_source(
        &self,
        name: &str,
        path: &str,
    ) -> Result<KnowledgeBase, KnowledgeError> {
        let base = self.get(name).await?;
        if !self
            .inner
            .store
            .remove_knowledge_source(base.id, path)
            .await?
        {
            return Err(KnowledgeError::BadSource {
                path: PathBuf::from(path),
                reason: format!("is not a source of {:?}", base.name),
            });
        }
        self.get(name).await
    }

    /// The files of base `name` as last indexed.
    pub async fn files(&self, name: &str) -> Result<Vec<KnowledgeFile>, KnowledgeError> {
        let base = self.get(name).await?;
        Ok(self.inner.store.knowledge_files(base.id).await?)
    }

    /// A page of base `name`'s files as last indexed (see [`FilesQuery`]): a base of 100,000
    /// files is listed a page at a time.
    pub async fn files_page(
        &self,
        name: &str,
        query: &FilesQuery,
    ) -> Result<FilesPage, KnowledgeError> {
        let base = self.get(name).await?;
        Ok(self
            .inner
            .store
            .knowledge_files_page(base.id, query)
            .await?)
    }

    /// `path` when it is a file a knowledge base indexed (so a citation may open it), else an
    /// error: a path from a model or a tool opens nothing else.
    pub async fn indexed_file(&self, path: &str) -> Result<PathBuf, KnowledgeError> {
        if self.inner.store.is_knowledge_file(path).await? {
            Ok(PathBuf::from(path))
        } else {
            Err(KnowledgeError::BadSource {
                path: PathBuf::from(path),
                reason: "is not a file of a knowledge base, so it is not opened".to_owned(),
            })
        }
    }

    /// Brings base `name`'s index up to date and reports what changed (one run at a time;
    /// a run asked for while one is going waits for it).
    pub async fn index(&self, name: &str) -> Result<IndexReport, KnowledgeError> {
        let _running = self.inner.running.lock().await;
        let mut base = self.get(name).await?;
        // A run checks the provider again (a key changed, a server came back), unless it
        // answered within REMOTE_RECHECK: the watcher's run after each save asks nothing extra.
        self.forget_remote(&base.choice, REMOTE_RECHECK).await;
        let embedder = match self.embedder_for(&base.choice).await {
            Ok(embedder) => Some(embedder),
            // A base with vectors keeps them; the files read now are kept for keyword search
            // with the reason, and embedded at the next run.
            Err(why) if base.dimensions > 0 => Some(Arc::new(Unavailable {
                id: base.embedder.clone(),
                dimensions: base.dimensions as usize,
                why,
            }) as Arc<dyn Embedder>),
            Err(why) => {
                tracing::warn!(base = %base.name, %why, "indexing by keywords only");
                None
            }
        };
        let (id, width) = embedder
            .as_ref()
            .map_or(("none".to_owned(), 0), |e| (e.id(), e.dimensions()));
        // An embedder that cannot be had now stands in as `Unavailable` with the base's own
        // identity, so the vectors the base has are kept: only another embedder replaces them.
        if base.embedder != id || base.dimensions as usize != width {
            self.inner
                .store
                .set_knowledge_embedder(base.id, &id, width as u32)
                .await?;
            self.forget_vectors(base.id);
            if base.chunks > 0 {
                let _ = self.inner.events.send(KnowledgeEvent::EmbeddingAgain {
                    base: base.name.clone(),
                    embedder: id.clone(),
                });
            }
            base = self.get(name).await?;
        }
        let events = self.inner.events.clone();
        // At most five progress events a second (a folder of 100,000 small files would
        // otherwise flood the window), and always the first and the last.
        let last = Mutex::new(None::<std::time::Instant>);
        let progress = move |p: IndexProgress| {
            let mut last = last.lock().unwrap_or_else(PoisonError::into_inner);
            let due = last.is_none_or(|t| t.elapsed() >= PROGRESS_EVERY);
            if due || p.done == 0 || p.done == p.total {
                *last = Some(std::time::Instant::now());
                let _ = events.send(KnowledgeEvent::Progress(p));
            }
        };
        let outcome = index_base(&self.inner.store, &base, embedder, &progress).await;
        // Cached vectors stay when the run found nothing to do (a run that met an unreadable
        // file cannot tell whether it lost chunks, so it drops them too).
        if !(outcome.as_ref()).is_ok_and(|r| r.indexed + r.removed + r.failed == 0) {
            self.forget_vectors(base.id);
        }
        let event = match &outcome {
            Ok(report) => KnowledgeEvent::Indexed(report.clone()),
            Err(e) => KnowledgeEvent::Failed {
                base: base.name.clone(),
                error: e.to_string(),
            },
        };
        let _ = self.inner.events.send(event);
        outcome
    }

    /// [`Knowledge::index`] in its own task (its outcome goes out as an event).
    pub fn index_in_background(&self, name: &str) {
        let (this, name) = (self.clone(), name.to_owned());
        tokio::spawn(async move {
            if let Err(error) = this.index(&name).await {
                tracing::warn!(base = %name, %error, "indexing failed");
            }
        });
    }

    /// The `count` best passages of base `name` for `question`.
    pub async fn search(
        &self,
        name: &str,
        question: &str,
        count: usize,
        mode: Mode,
    ) -> Result<Vec<Passage>, KnowledgeError> {
        let base = self.get(name).await?;
        let count = count.clamp(1, 50);
        let (query, vectors) = match (mode, base.dimensions) {
            (Mode::Keywords, _) | (_, 0) => (None, None),
            _ => match self.query_vector(&base, question).await {
                Ok(query) => (Some(query), Some(self.vectors(&base).await?)),
                // Hybrid search goes on by keywords when the embedder fails; vectors alone
                // cannot.
                Err(why) if mode == Mode::Hybrid => {
                    tracing::warn!(base = %base.name, %why, "searching by keywords only");
                    (None, None)
                }
                Err(why) => return Err(KnowledgeError::Embedder(why)),
            },
        };
        let ranked = rank(
            &self.inner.store,
            base.id,
            question,
            query.as_deref(),
            vectors.as_deref(),
            mode,
            count,
        )
        .await?;
        let ids: Vec<i64> = ranked.iter().map(|r| r.0).collect();
        let scores: HashMap<i64, f32> = ranked.into_iter().collect();
        let hits = self.inner.store.knowledge_chunks(&ids).await?;
        Ok(hits
            .into_iter()
            .map(|hit| Passage {
                base: base.name.clone(),
                title: hit.title.clone().unwrap_or_else(|| file_name(&hit.path)),
                score: scores.get(&hit.id).copied().unwrap_or_default(),
                path: hit.path,
                text: hit.text,
                line: hit.line,
                page: hit.page,
                heading: hit.heading,
            })
            .collect())
    }

    /// Watches every base's sources from now on, indexing a base again after a change under
    /// one of them (replaces the previous watcher: call after sources change).
    pub async fn rewatch(&self) {
        let watcher = super::watch::watch(self).await;
        *self
            .inner
            .watcher
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(watcher);
    }

    /// Stops watching.
    pub fn unwatch(&self) {
        self.inner
            .watcher
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
    }

    /// The names of the bases with a source above one of `paths` (hidden files and
    /// `node_modules` left out: they are never indexed).
    pub async fn bases_under(&self, paths: &[PathBuf]) -> Vec<String> {
        let Ok(bases) = self.list().await else {
            return Vec::new();
        };
        // A change counts when it is under a source, not hidden, and either a file of a kind
        // that is read or something without an extension (a folder created or removed).
        let below = |source: &String, path: &PathBuf| {
            path.strip_prefix(source).is_ok_and(|rest| {
                !super::walk::hidden(rest)
                    && (super::Kind::of(path).is_some() || path.extension().is_none())
            })
        };
        bases
            .into_iter()
            .filter(|b| b.sources.iter().any(|s| paths.iter().any(|p| below(s, p))))
            .map(|b| b.name)
            .collect()
    }

    /// The question's vector, by the embedder that made `base`'s vectors.
    async fn query_vector(&self, base: &KnowledgeBase, question: &str) -> Result<Vec<f32>, String> {
        tokio::time::timeout(QUESTION_WAIT, self.question_vector(base, question))
            .await
            .unwrap_or_else(|_| {
                Err(format!(
                    "the embedder did not answer within {} s",
                    QUESTION_WAIT.as_secs()
                ))
            })
    }

    async fn question_vector(
        &self,
        base: &KnowledgeBase,
        question: &str,
    ) -> Result<Vec<f32>, String> {
        let embedder = self.embedder_for(&base.choice).await?;
        if embedder.id() != base.embedder {
            return Err(format!(
                "{:?} is being embedded again with {}; it is searched by keywords until then",
                base.name,
                embedder.id()
            ));
        }
        let mut found = embedder
            .embed(vec![question.to_owned()], Purpose::Query)
            .await?;
        found
            .pop()
            .ok_or_else(|| "the embedder gave no vector".to_owned())
    }

    /// Base `base`'s vectors, read on first use (and kept unless a run changed them meanwhile).
    async fn vectors(&self, base: &KnowledgeBase) -> Result<Arc<VectorSet>, KnowledgeError> {
        if let Some(set) = self.cached(base.id) {
            return Ok(set);
        }
        let generation = self.generation();
        let width = base.dimensions as usize;
        let stored = self.inner.store.knowledge_vectors(base.id, width).await?;
        let set = Arc::new(VectorSet::new(width, stored));
        if self.generation() == generation {
            self.lock_vectors().insert(base.id, set.clone());
        }
        Ok(set)
    }

    fn generation(&self) -> u64 {
        (self.inner.generation).load(std::sync::atomic::Ordering::SeqCst)
    }

    fn cached(&self, id: i64) -> Option<Arc<VectorSet>> {
        self.lock_vectors().get(&id).cloned()
    }

    fn forget_vectors(&self, id: i64) {
        (self.inner.generation).fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.lock_vectors().remove(&id);
    }

    fn lock_vectors(&self) -> std::sync::MutexGuard<'_, HashMap<i64, Arc<VectorSet>>> {
        self.inner
            .vectors
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// `path` made canonical, or why it cannot be a source.
fn checked_source(path: &Path) -> Result<PathBuf, KnowledgeError> {
    let bad = |reason: &str| KnowledgeError::BadSource {
        path: path.to_path_buf(),
        reason: reason.to_owned(),
    };
    if !path.is_absolute() {
        return Err(bad("is not an absolute path"));
    }
    let canonical = std::fs::canonicalize(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => bad("does not exist"),
        std::io::ErrorKind::PermissionDenied => bad("cannot be read: permission denied"),
        _ => bad(&format!("cannot be read: {e}")),
    })?;
    if canonical.parent().is_none() {
        return Err(bad("is the whole filesystem; choose a folder"));
    }
    Ok(canonical)
}

fn file_name(path: &str) -> String {
    Path::new(path)
        .file_name()
        .map_or_else(|| path.to_owned(), |n| n.to_string_lossy().into_owned())
}
