//! Where sync files live: a WebDAV server (`webdav.rs`) or a folder another program syncs
//! (Dropbox, Syncthing, a network share). Both answer the same four requests, and both count
//! the bytes they move so a sync can say what it cost.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;

use super::error::SyncError;

/// Bytes and requests a remote has moved.
#[derive(Clone, Debug, Default)]
pub struct Traffic {
    up: Arc<AtomicU64>,
    down: Arc<AtomicU64>,
    requests: Arc<AtomicU64>,
}

impl Traffic {
    /// Counts one request that sent `up` bytes and received `down`.
    pub fn count(&self, up: usize, down: usize) {
        self.up.fetch_add(up as u64, Ordering::Relaxed);
        self.down.fetch_add(down as u64, Ordering::Relaxed);
        self.requests.fetch_add(1, Ordering::Relaxed);
    }

    /// (bytes sent, bytes received, requests) so far.
    pub fn totals(&self) -> (u64, u64, u64) {
        (
            self.up.load(Ordering::Relaxed),
            self.down.load(Ordering::Relaxed),
            self.requests.load(Ordering::Relaxed),
        )
    }
}

/// A place sync files are kept. Paths are relative, `/`-separated.
#[async_trait]
pub trait Remote: Send + Sync {
    /// The file at `path`, or `None` when there is none.
    async fn get(&self, path: &str) -> Result<Option<Vec<u8>>, SyncError>;
    /// Writes the file at `path` whole (a reader never sees half of it).
    async fn put(&self, path: &str, body: Vec<u8>) -> Result<(), SyncError>;
    /// Makes the folder at `path` (nothing when it exists).
    async fn mkdir(&self, path: &str) -> Result<(), SyncError>;
    /// The names of the folders in the folder at `path` (empty when it does not exist).
    async fn folders(&self, path: &str) -> Result<Vec<String>, SyncError>;
    /// What it has moved.
    fn traffic(&self) -> &Traffic;
}

/// A folder on this machine that another program keeps in sync between machines.
#[derive(Debug)]
pub struct FolderRemote {
    root: PathBuf,
    traffic: Traffic,
}

impl FolderRemote {
    /// Sync files under `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            traffic: Traffic::default(),
        }
    }

    fn at(&self, path: &str) -> PathBuf {
        path.split('/')
            .filter(|p| !p.is_empty())
            .fold(self.root.clone(), |p, part| p.join(part))
    }

    fn error(&self, path: &std::path::Path, e: std::io::Error) -> SyncError {
        SyncError::Folder {
            path: path.display().to_string(),
            reason: e.to_string(),
        }
    }
}

#[async_trait]
impl Remote for FolderRemote {
    async fn get(&self, path: &str) -> Result<Option<Vec<u8>>, SyncError> {
        let file = self.at(path);
        match tokio::fs::read(&file).await {
            Ok(bytes) => {
                self.traffic.count(0, bytes.len());
                Ok(Some(bytes))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(self.error(&file, e)),
        }
    }

    async fn put(&self, path: &str, body: Vec<u8>) -> Result<(), SyncError> {
        let file = self.at(path);
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let partial = file.with_file_name(format!(".{name}.{}.partial", fastrand::u32(..)));
        let len = body.len();
        tokio::fs::write(&partial, body)
            .await
            .map_err(|e| self.error(&partial, e))?;
        tokio::fs::rename(&partial, &file)
            .await
            .map_err(|e| self.error(&file, e))?;
        self.traffic.count(len, 0);
        Ok(())
    }

    async fn mkdir(&self, path: &str) -> Result<(), SyncError> {
        let dir = self.at(path);
        tokio::fs::create_dir_all(&dir)
            .await
            .map_err(|e| self.error(&dir, e))
    }

    async fn folders(&self, path: &str) -> Result<Vec<String>, SyncError> {
        let dir = self.at(path);
        let mut entries = match tokio::fs::read_dir(&dir).await {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(self.error(&dir, e)),
        };
        let mut names = Vec::new();
        while let Some(entry) = entries
            .next_entry()
            .await
            .map_err(|e| self.error(&dir, e))?
        {
            if entry.file_type().await.is_ok_and(|t| t.is_dir()) {
                names.push(entry.file_name().to_string_lossy().into_owned());
            }
        }
        names.sort();
        Ok(names)
    }

    fn traffic(&self) -> &Traffic {
        &self.traffic
    }
}
