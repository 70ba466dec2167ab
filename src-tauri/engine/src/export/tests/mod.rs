//! Tests of export and import against a real SQLite file: round trips (examples and a
//! property test), golden Markdown and HTML, HTML safety against the XSS corpus, ChatGPT and
//! Claude fixtures, and corrupt files.

pub(super) mod fixtures;
mod golden;
mod imports;
mod round_trip;
mod safety;

use std::path::Path;

use super::json::JsonWriter;
use crate::store::{ImportItem, Store};

/// A fresh store in `dir`.
pub(super) async fn store(dir: &Path, name: &str) -> Store {
    Store::open(&dir.join(name)).await.unwrap()
}

/// The JSON export of every conversation of `store`, in memory.
pub(super) async fn json_of(store: &Store) -> Vec<u8> {
    let mut w = JsonWriter::start(Vec::new()).unwrap();
    for id in store.all_conversation_ids().await.unwrap() {
        let (c, messages) = store
            .conversation_with_messages(&id)
            .await
            .unwrap()
            .unwrap();
        w.conversation(&c, &messages).unwrap();
    }
    w.finish().unwrap()
}

/// Imports `items` for real and asserts every conversation was added.
pub(super) async fn seed(store: &Store, items: &[ImportItem]) {
    let report = store.import_conversations(items, false).await.unwrap();
    assert_eq!(report.added as usize, items.len(), "{report:?}");
}
