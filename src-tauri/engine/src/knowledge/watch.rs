//! Keeping knowledge bases current while the app runs: every base's sources are watched
//! (`notify` with `notify-debouncer-full`, which joins a rename's two halves and a burst of
//! writes into one event after [`QUIET`]); a change under a source indexes that base again,
//! incrementally. A source that cannot be watched (gone, too many watches) is logged and left
//! to the next start or a manual re-index.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

use notify::RecursiveMode;
use notify_debouncer_full::{DebounceEventResult, new_debouncer};
use tokio::sync::mpsc;

use super::Knowledge;

/// How long a source must be quiet before its base is indexed again.
pub const QUIET: Duration = Duration::from_secs(2);

/// The watcher of all bases' sources; dropping it stops watching.
pub struct Watcher {
    _debouncer: Option<
        notify_debouncer_full::Debouncer<
            notify::RecommendedWatcher,
            notify_debouncer_full::RecommendedCache,
        >,
    >,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl std::fmt::Debug for Watcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watcher").finish_non_exhaustive()
    }
}

/// Whether an event changes what a file holds or where it is: reading a file or a folder (which
/// every indexing run does), a change of its metadata alone, or an unknown event does not.
fn changes_content(kind: &notify::EventKind) -> bool {
    use notify::EventKind;
    use notify::event::{AccessKind, AccessMode, ModifyKind};
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) => true,
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Modify(_) => true,
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) | EventKind::Any | EventKind::Other => false,
    }
}

/// Watches the sources of every base of `knowledge` as they are now (call again after a
/// source is added or removed: the old watcher is replaced).
pub async fn watch(knowledge: &Knowledge) -> Watcher {
    let sources: BTreeSet<PathBuf> = match knowledge.list().await {
        Ok(bases) => bases
            .iter()
            .flat_map(|b| b.sources.iter().map(PathBuf::from))
            .collect(),
        Err(error) => {
            tracing::warn!(%error, "cannot read the knowledge bases to watch them");
            BTreeSet::new()
        }
    };
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<PathBuf>>();
    let debouncer = new_debouncer(QUIET, None, move |result: DebounceEventResult| {
        if let Ok(events) = result {
            let paths: Vec<PathBuf> = (events.into_iter())
                .filter(|e| changes_content(&e.event.kind))
                .flat_map(|e| e.event.paths)
                .collect();
            if !paths.is_empty() {
                let _ = tx.send(paths);
            }
        }
    });
    let debouncer = match debouncer {
        Ok(mut debouncer) => {
            for source in &sources {
                if let Err(error) = debouncer.watch(source, RecursiveMode::Recursive) {
                    tracing::warn!(source = %source.display(), %error, "cannot watch a knowledge source");
                }
            }
            Some(debouncer)
        }
        Err(error) => {
            tracing::warn!(%error, "cannot watch knowledge sources");
            None
        }
    };
    let this = knowledge.clone();
    let task = tokio::spawn(async move {
        while let Some(mut paths) = rx.recv().await {
            // Take every change that queued up meanwhile, then index each base touched once.
            while let Ok(more) = rx.try_recv() {
                paths.extend(more);
            }
            // Runs are detached: replacing the watcher (a source added) never cuts one short.
            for base in this.bases_under(&paths).await {
                this.index_in_background(&base);
            }
        }
    });
    Watcher {
        _debouncer: debouncer,
        task,
    }
}
