//! One sync: the sync folder's format read (or written the first time), every other device's
//! new batches applied in order, then this device's changes written as numbered batches and
//! its head file moved on.
//!
//! Layout of the sync folder:
//! - `format.json` — the format version and, when encrypted, how the key is derived;
//! - `devices/<device>/head.json` — the number of the device's last complete batch and its
//!   name (read first, so a half-written batch is never read);
//! - `devices/<device>/<n>.batch` — the device's n-th batch of records (`seal.rs`);
//! - `blobs/<hash>.blob` — an attached image a synced message shows (`blobs.rs`).
//!
//! Each device writes only in its own folder, so two devices never write the same file. A
//! batch is written before the head names it; a pull applies one batch per transaction with
//! the device's cursor. An interrupted sync therefore resumes where it stopped: a batch is
//! never applied twice and never skipped.

use std::time::Instant;

use secrecy::SecretString;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::error::SyncError;
use super::remote::Remote;
use super::seal::{Kdf, Seal};
use crate::store::{PushedKey, Store, StoreError, SyncRecord, now_ms};

/// The file that says what the sync folder is.
pub const FORMAT_FILE: &str = "format.json";
/// What `format.json` names.
const FORMAT_NAME: &str = "switchboard.sync";
/// The format this build writes and reads.
pub const FORMAT_VERSION: u64 = 1;
/// Records in one batch at most.
pub const BATCH_RECORDS: usize = 2000;

#[derive(Serialize, Deserialize)]
struct FormatFile {
    format: String,
    version: u64,
    #[serde(default)]
    encryption: Option<Kdf>,
}

#[derive(Serialize, Deserialize)]
struct Head {
    last: u64,
    #[serde(default)]
    name: String,
}

#[derive(Serialize, Deserialize)]
struct Batch {
    device: String,
    batch: u64,
    records: Vec<SyncRecord>,
}

/// What one sync did and what it cost.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SyncReport {
    /// Records written here from other devices.
    pub pulled: u64,
    /// Records sent.
    pub pushed: u64,
    /// Real conflicts found (both sides kept).
    pub conflicts: u64,
    /// Records still waiting for their conversation or parent.
    pub waiting: u64,
    /// Batches read.
    pub batches_in: u64,
    /// Batches written.
    pub batches_out: u64,
    /// Bytes sent (request bodies).
    pub bytes_up: u64,
    /// Bytes received (response bodies).
    pub bytes_down: u64,
    /// Requests made.
    pub requests: u64,
    /// How long it took.
    pub millis: u64,
}

fn head_path(device: &str) -> String {
    format!("devices/{device}/head.json")
}

fn batch_path(device: &str, n: u64) -> String {
    format!("devices/{device}/{n:010}.batch")
}

/// Whether a folder name is a device id (others are left alone).
fn is_device(name: &str) -> bool {
    name.len() == 32 && name.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Reads the sync folder's format (writing it, encrypted when `passphrase` is given, the
/// first time) and returns how its files open.
pub async fn open_folder(
    remote: &dyn Remote,
    passphrase: Option<&SecretString>,
) -> Result<Seal, SyncError> {
    let Some(bytes) = remote.get(FORMAT_FILE).await? else {
        remote.mkdir("").await?;
        remote.mkdir("devices").await?;
        let (seal, encryption) = match passphrase {
            Some(p) => {
                let (seal, kdf) = Seal::create(p)?;
                (seal, Some(kdf))
            }
            None => (Seal::plain(), None),
        };
        let format = FormatFile {
            format: FORMAT_NAME.into(),
            version: FORMAT_VERSION,
            encryption,
        };
        let body =
            serde_json::to_vec_pretty(&format).map_err(|e| SyncError::foreign(FORMAT_FILE, e))?;
        remote.put(FORMAT_FILE, body).await?;
        return Ok(seal);
    };
    let format: FormatFile =
        serde_json::from_slice(&bytes).map_err(|e| SyncError::foreign(FORMAT_FILE, e))?;
    if format.format != FORMAT_NAME {
        return Err(SyncError::foreign(
            FORMAT_FILE,
            format!("it names {:?}", format.format),
        ));
    }
    if format.version > FORMAT_VERSION {
        return Err(SyncError::NewerFormat {
            found: format.version,
            supported: FORMAT_VERSION,
        });
    }
    match (&format.encryption, passphrase) {
        (Some(kdf), Some(p)) => Seal::open_with(p, kdf),
        (Some(_), None) => Err(SyncError::PassphraseNeeded),
        (None, Some(_)) => Err(SyncError::NotEncrypted),
        (None, None) => Ok(Seal::plain()),
    }
}

/// Syncs `store` through `remote` once: pull, then push. `name` is this device's name as
/// other devices show it.
pub async fn sync_once(
    store: &Store,
    remote: &dyn Remote,
    passphrase: Option<&SecretString>,
    name: &str,
) -> Result<SyncReport, SyncError> {
    let started = Instant::now();
    let seal = open_folder(remote, passphrase).await?;
    if !store.sync_cursor().await?.tracking {
        store.start_sync_tracking().await?;
    }
    let mut report = SyncReport::default();
    pull(store, remote, &seal, &mut report).await?;
    push(store, remote, &seal, name, &mut report).await?;
    let (up, down, requests) = remote.traffic().totals();
    (report.bytes_up, report.bytes_down, report.requests) = (up, down, requests);
    report.millis = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    Ok(report)
}

async fn pull(
    store: &Store,
    remote: &dyn Remote,
    seal: &Seal,
    report: &mut SyncReport,
) -> Result<(), SyncError> {
    let me = store.sync_cursor().await?.device;
    for peer in remote.folders("devices/").await? {
        if peer == me || !is_device(&peer) {
            continue;
        }
        let path = head_path(&peer);
        let Some(bytes) = remote.get(&path).await? else {
            continue;
        };
        let head: Head =
            serde_json::from_slice(&bytes).map_err(|e| SyncError::foreign(&path, e))?;
        store.name_sync_peer(&peer, &head.name).await?;
        let mut n = store.sync_peer_applied(&peer).await? + 1;
        while n <= head.last {
            let path = batch_path(&peer, n);
            // A synced folder may not have received the file yet: the next sync goes on.
            let Some(bytes) = remote.get(&path).await? else {
                tracing::info!(%path, "sync: a batch the head names has not arrived yet");
                break;
            };
            let plain = seal.open(&path, &bytes)?;
            let batch: Batch =
                serde_json::from_slice(&plain).map_err(|e| SyncError::foreign(&path, e))?;
            if batch.device != peer || batch.batch != n {
                return Err(SyncError::foreign(
                    &path,
                    "it names another device or number",
                ));
            }
            super::blobs::fetch(store, remote, seal, &batch.records).await?;
            let applied = match store.apply_sync_batch(&peer, n, &batch.records).await {
                Ok(applied) => applied,
                // A record the database refuses (a value out of its range): nothing of the
                // batch is applied, and the error names it.
                Err(StoreError::Database(e)) => {
                    return Err(SyncError::foreign(
                        &path,
                        format!("a record in it does not fit ({e})"),
                    ));
                }
                Err(StoreError::SyncRecord(e)) => {
                    return Err(SyncError::foreign(
                        &path,
                        format!("a record in it is not valid ({e})"),
                    ));
                }
                Err(e) => return Err(e.into()),
            };
            report.pulled += applied.applied;
            report.conflicts += applied.conflicts;
            report.waiting = applied.waiting;
            report.batches_in += 1;
            n += 1;
        }
    }
    Ok(())
}

async fn push(
    store: &Store,
    remote: &dyn Remote,
    seal: &Seal,
    name: &str,
    report: &mut SyncReport,
) -> Result<(), SyncError> {
    let cursor = store.sync_cursor().await?;
    let me = cursor.device;
    remote.mkdir(&format!("devices/{me}")).await?;
    let mut pushed = cursor.pushed;
    if cursor.head < pushed {
        write_head(remote, &me, pushed, name).await?;
    }
    // Changes made while this push runs go out in its next round.
    loop {
        let keys = store.sync_change_keys().await?;
        if keys.is_empty() {
            break;
        }
        for chunk in keys.chunks(BATCH_RECORDS) {
            let records = store.sync_records_of(chunk).await?;
            if records.is_empty() {
                continue;
            }
            let n = pushed + 1;
            let keys: Vec<PushedKey> = records
                .iter()
                .map(|r| (r.kind.clone(), r.id.clone(), r.version))
                .collect();
            let count = records.len() as u64;
            let batch = Batch {
                device: me.clone(),
                batch: n,
                records,
            };
            super::blobs::send(store, remote, seal, &batch.records).await?;
            let path = batch_path(&me, n);
            let plain = serde_json::to_vec(&batch).map_err(|e| SyncError::foreign(&path, e))?;
            remote.put(&path, seal.seal(&path, &plain)?).await?;
            store.mark_sync_pushed(n, &keys).await?;
            write_head(remote, &me, n, name).await?;
            store.set_sync_head(n, None).await?;
            pushed = n;
            report.pushed += count;
            report.batches_out += 1;
        }
    }
    store.set_sync_head(pushed, Some(now_ms())).await?;
    Ok(())
}

async fn write_head(remote: &dyn Remote, me: &str, last: u64, name: &str) -> Result<(), SyncError> {
    let head = Head {
        last,
        name: name.to_owned(),
    };
    let path = head_path(me);
    let body = serde_json::to_vec(&head).map_err(|e| SyncError::foreign(&path, e))?;
    remote.put(&path, body).await
}
