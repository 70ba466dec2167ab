//! Files the user attaches in the composer, made ready to send before the message is: an
//! image decoded, downscaled and stored once by content hash (the message names the hash); a
//! PDF as the text of its first pages; a text or code file as itself. Each is checked first
//! (size, kind, contents) and refused with a message saying why; a refused file leaves
//! nothing stored. Before a turn, [`hydrate`] puts the stored images' bytes back into the
//! branch a model is sent.

pub use crate::knowledge::pdf;
#[cfg(test)]
mod tests;
pub mod text;

use std::path::Path;

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::Agent;
use crate::error::EngineError;
use crate::store::image as store_image;
use crate::store::{Message, NewBlob, Store};
use crate::vocab::content::{ContentPart, FileText, ImageRef};
use crate::vocab::error::UploadError;

/// The largest file that may be attached.
pub const MAX_BYTES: u64 = 50 * 1024 * 1024;
/// The largest text or code file that may be attached (its text goes into the message).
pub const MAX_TEXT_BYTES: u64 = 1024 * 1024;

/// An attachment ready to send: the part the message will hold, a thumbnail for an image
/// (a `data:` URL) and what it costs in tokens.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PreparedFile {
    /// An `image_ref` or a `file` part.
    pub part: ContentPart,
    /// A small version of an image, as a `data:` URL.
    pub thumbnail: Option<String>,
    /// Estimated tokens it adds to the message.
    pub tokens: u32,
}

/// What a file becomes, decided from its contents (and its name when they do not say).
#[derive(Debug)]
pub enum Ready {
    /// An image to store.
    Image(NewBlob, Option<String>),
    /// Text to send.
    File(FileText),
}

/// The lowercase extension of a file name, empty when it has none.
pub fn extension(name: &str) -> String {
    Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// Refuses a file over `limit` bytes.
fn check_size(name: &str, size: u64, limit: u64) -> Result<(), UploadError> {
    if size <= limit {
        return Ok(());
    }
    let mb = |b: u64| b as f64 / (1024.0 * 1024.0);
    Err(UploadError::TooLarge {
        name: name.to_owned(),
        size_mb: mb(size),
        limit_mb: limit / (1024 * 1024),
    })
}

/// Decides what `bytes` (named `name`) become; no I/O, CPU-bound.
pub fn ready(name: &str, bytes: &[u8]) -> Result<Ready, UploadError> {
    check_size(name, bytes.len() as u64, MAX_BYTES)?;
    if store_image::sniff(bytes).is_some() {
        let blob = store_image::process(name, bytes, store_image::MAX_SIDE)?;
        return Ok(Ready::Image(blob, Some(name.to_owned())));
    }
    if named_like_image(name) {
        return Err(UploadError::CorruptImage {
            name: name.to_owned(),
            reason: "its contents are not a PNG, JPEG, WebP or GIF image".into(),
        });
    }
    if pdf::sniff(bytes) || extension(name) == "pdf" {
        let (text, pages) = pdf::extract(name, bytes)?;
        return Ok(Ready::File(file_text(name, "", text, Some(pages))));
    }
    check_size(name, bytes.len() as u64, MAX_TEXT_BYTES)?;
    let text = text::decode(bytes).ok_or_else(|| UploadError::Unsupported {
        name: name.to_owned(),
    })?;
    let language = text::language(&extension(name));
    Ok(Ready::File(file_text(name, language, text, None)))
}

fn file_text(
    name: &str,
    language: &str,
    text: String,
    pages: Option<crate::vocab::content::PdfPages>,
) -> FileText {
    let mut file = FileText {
        name: name.to_owned(),
        language: language.to_owned(),
        text,
        tokens: 0,
        pages,
    };
    file.tokens = super::budget::count(&text::for_model(&file));
    file
}

/// A `data:` URL of `bytes`.
pub fn data_url(mime_type: &str, bytes: &[u8]) -> String {
    let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
    format!("data:{mime_type};base64,{b64}")
}

impl Agent {
    /// Makes `bytes` (a file named `name`, pasted or dropped) ready to send: an image is
    /// stored (once by its hash), a file's text taken. Refused files store nothing.
    pub async fn attach_bytes(
        &self,
        name: &str,
        bytes: Vec<u8>,
    ) -> Result<PreparedFile, EngineError> {
        let owned = name.to_owned();
        let work = tokio::task::spawn_blocking(move || ready(&owned, &bytes));
        let ready = work.await.map_err(|_| UploadError::Unsupported {
            name: name.to_owned(),
        })??;
        match ready {
            Ready::File(file) => Ok(PreparedFile {
                tokens: file.tokens,
                part: ContentPart::File(file),
                thumbnail: None,
            }),
            Ready::Image(blob, name) => {
                self.store().put_blob(&blob).await?;
                Ok(PreparedFile {
                    thumbnail: Some(data_url(&blob.thumb_mime, &blob.thumb)),
                    tokens: super::budget::IMAGE,
                    part: ContentPart::ImageRef(ImageRef {
                        hash: blob.hash,
                        mime_type: blob.mime_type,
                        width: blob.width,
                        height: blob.height,
                        name,
                    }),
                })
            }
        }
    }

    /// [`Agent::attach_bytes`] for a file on disk (the file picker): its size is checked
    /// before it is read.
    pub async fn attach_path(&self, path: &Path) -> Result<PreparedFile, EngineError> {
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let unreadable = |e: std::io::Error| UploadError::Unreadable {
            name: name.clone(),
            reason: e.to_string(),
        };
        let meta = tokio::fs::metadata(path).await.map_err(unreadable)?;
        check_size(&name, meta.len(), MAX_BYTES)?;
        let bytes = tokio::fs::read(path).await.map_err(unreadable)?;
        self.attach_bytes(&name, bytes).await
    }

    /// A stored image as a `data:` URL: whole, or its thumbnail.
    pub async fn image_url(&self, hash: &str, thumbnail: bool) -> Result<String, EngineError> {
        let blob = if thumbnail {
            self.store().blob_thumb(hash).await?
        } else {
            self.store().blob(hash).await?
        };
        Ok(data_url(&blob.mime_type, &blob.data))
    }

    /// Checks the parts a message attaches from the composer: only images and files, every
    /// image stored, and a model that can see them.
    pub(super) async fn check_uploads(
        &self,
        conv: &crate::store::Conversation,
        parts: &[ContentPart],
    ) -> Result<(), EngineError> {
        let mut images = false;
        for part in parts {
            match part {
                ContentPart::ImageRef(r) => {
                    if !self.store().has_blob(&r.hash).await? {
                        return Err(UploadError::MissingImage {
                            hash: r.hash.clone(),
                        }
                        .into());
                    }
                    images = true;
                }
                ContentPart::File(_) => {}
                _ => {
                    return Err(super::invalid(
                        "only images and files can be attached this way",
                    ));
                }
            }
        }
        if images {
            self.check_vision(conv).await?;
        }
        Ok(())
    }

    /// Refuses images for a model its provider says cannot see them.
    async fn check_vision(&self, conv: &crate::store::Conversation) -> Result<(), EngineError> {
        let Ok(record) = super::setup::provider_of(self, conv).await else {
            return Ok(()); // the turn says what is missing
        };
        let Some(model) = conv.model.clone().or(record.settings.default_model.clone()) else {
            return Ok(());
        };
        if self.providers().sees_images(&record, &model).await == Some(false) {
            return Err(UploadError::NoVision {
                model,
                provider: record.name,
            }
            .into());
        }
        Ok(())
    }
}

/// `branch` with each stored image's bytes in place of its reference (see
/// [`Store::inline_images`]), ready for [`super::history::to_chat`].
pub async fn hydrate(store: &Store, mut branch: Vec<Message>) -> Result<Vec<Message>, EngineError> {
    store.inline_images(&mut branch).await?;
    Ok(branch)
}

impl Agent {
    /// Whether the conversation's model can see images, when its provider or the table of
    /// known models tells (the composer warns as soon as an image is attached).
    pub async fn sees_images(&self, conversation: &str) -> Result<Option<bool>, EngineError> {
        let conv = self.store().get_conversation(conversation).await?;
        let Ok(record) = super::setup::provider_of(self, &conv).await else {
            return Ok(None);
        };
        let Some(model) = conv.model.clone().or(record.settings.default_model.clone()) else {
            return Ok(None);
        };
        Ok(self.providers().sees_images(&record, &model).await)
    }

    /// How many messages deleting `message_id` removes (itself and those below it).
    pub async fn deletion_size(&self, message_id: &str) -> Result<u64, EngineError> {
        Ok(self.store().subtree_size(message_id).await?)
    }

    /// Deletes `message_id` and every message below it in its branch tree (refused while a
    /// turn runs in its conversation); images no message names any more are dropped.
    pub async fn delete_message(&self, message_id: &str) -> Result<u64, EngineError> {
        let m = self.store().get_message(message_id).await?;
        if self.turn_running(&m.conversation_id) {
            return Err(crate::vocab::error::AgentError::Busy.into());
        }
        let removed = self.store().delete_message_subtree(message_id).await?;
        let an_hour_ago = jiff::Timestamp::now().as_millisecond() - 3_600_000;
        if let Err(e) = self.store().delete_unused_blobs(an_hour_ago).await {
            tracing::warn!(error = %e, "unused images were not dropped");
        }
        Ok(removed)
    }
}

/// Whether a file name's extension says "image".
pub fn named_like_image(name: &str) -> bool {
    let ext = extension(name);
    matches!(
        ext.as_str(),
        "png" | "jpg" | "jpeg" | "webp" | "gif" | "bmp" | "heic" | "heif" | "tif" | "tiff" | "avif"
    )
}
