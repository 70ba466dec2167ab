//! Attached images through the sync folder: each blob is its own file, `blobs/<hash>.blob`
//! (sealed like a batch), sent once before the first batch whose messages show it and fetched
//! before such a batch is applied here. A fetched blob must hash to its name, or it is refused.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use serde::{Deserialize, Serialize};

use super::error::SyncError;
use super::remote::Remote;
use super::seal::Seal;
use crate::store::image::sha256_hex;
use crate::store::{NewBlob, Store, SyncRecord};

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct BlobFile {
    hash: String,
    mime_type: String,
    width: u32,
    height: u32,
    data: String,
    thumb: String,
    thumb_mime: String,
}

fn blob_path(hash: &str) -> String {
    format!("blobs/{hash}.blob")
}

/// The blobs the messages among `records` show (each once).
fn image_hashes(records: &[SyncRecord]) -> Vec<String> {
    let mut hashes: Vec<String> = records
        .iter()
        .filter(|r| r.kind == "message")
        .filter_map(|r| r.data.as_ref()?.get("content")?.as_array())
        .flatten()
        .filter(|part| part["type"] == "image_ref")
        .filter_map(|part| part["hash"].as_str())
        .filter(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
        .map(str::to_owned)
        .collect();
    hashes.sort();
    hashes.dedup();
    hashes
}

/// Sends the blobs `records` show that the sync folder does not have yet. Returns how many.
pub(super) async fn send(
    store: &Store,
    remote: &dyn Remote,
    seal: &Seal,
    records: &[SyncRecord],
) -> Result<u64, SyncError> {
    let hashes = image_hashes(records);
    if hashes.is_empty() {
        return Ok(0);
    }
    let known = store.synced_blobs(&hashes).await?;
    let mut sent = 0;
    for hash in hashes.iter().filter(|h| !known.contains(*h)) {
        let Some(blob) = store.blob_whole(hash).await? else {
            continue;
        };
        if sent == 0 {
            remote.mkdir("blobs").await?;
        }
        let file = BlobFile {
            hash: blob.hash,
            mime_type: blob.mime_type,
            width: blob.width,
            height: blob.height,
            data: B64.encode(&blob.data),
            thumb: B64.encode(&blob.thumb),
            thumb_mime: blob.thumb_mime,
        };
        let path = blob_path(hash);
        let plain = serde_json::to_vec(&file).map_err(|e| SyncError::foreign(&path, e))?;
        remote.put(&path, seal.seal(&path, &plain)?).await?;
        store.mark_blob_synced(hash).await?;
        sent += 1;
    }
    Ok(sent)
}

/// Fetches the blobs `records` show that are not stored here. One the sync folder does not
/// have (yet) is left: its messages show it as missing until a later sync brings it.
pub(super) async fn fetch(
    store: &Store,
    remote: &dyn Remote,
    seal: &Seal,
    records: &[SyncRecord],
) -> Result<u64, SyncError> {
    let mut fetched = 0;
    for hash in image_hashes(records) {
        if store.has_blob(&hash).await? {
            continue;
        }
        let path = blob_path(&hash);
        let Some(bytes) = remote.get(&path).await? else {
            tracing::info!(%path, "sync: an image a message shows is not in the sync folder");
            continue;
        };
        let file: BlobFile = serde_json::from_slice(&seal.open(&path, &bytes)?)
            .map_err(|e| SyncError::foreign(&path, e))?;
        let data = B64
            .decode(&file.data)
            .map_err(|e| SyncError::foreign(&path, e))?;
        let thumb = B64
            .decode(&file.thumb)
            .map_err(|e| SyncError::foreign(&path, e))?;
        if file.hash != hash || sha256_hex(&data) != hash {
            return Err(SyncError::foreign(&path, "its bytes do not match its name"));
        }
        let blob = NewBlob {
            hash: hash.clone(),
            mime_type: file.mime_type,
            width: file.width,
            height: file.height,
            data,
            thumb,
            thumb_mime: file.thumb_mime,
        };
        store.put_blob(&blob).await?;
        store.mark_blob_synced(&hash).await?;
        fetched += 1;
    }
    Ok(fetched)
}
