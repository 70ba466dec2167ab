//! Commands of attached files: make a picked file or pasted bytes ready to send (an image is
//! stored once by hash, a file's text taken), show a stored image, say whether the model can
//! see images; and the message actions — delete a message with what hangs under it, and the
//! prices its token use is shown at.

use switchboard_engine::Engine;
use switchboard_engine::agent::upload::PreparedFile;
use switchboard_engine::providers::PriceTable;
use switchboard_engine::vocab::error::UploadError;
use tauri::State;
use tauri::ipc::{InvokeBody, Request};

use super::CmdResult;

/// The header that names a file sent as raw bytes (percent-encoded, as `encodeURIComponent`).
const NAME_HEADER: &str = "x-file-name";

/// Makes the file at `path` (from the file picker) ready to send.
#[tauri::command]
pub async fn attach_file(engine: State<'_, Engine>, path: String) -> CmdResult<PreparedFile> {
    Ok(engine
        .agent()
        .attach_path(std::path::Path::new(&path))
        .await?)
}

/// Makes pasted or dropped bytes ready to send: the body is the file, the `x-file-name`
/// header its name.
#[tauri::command]
pub async fn attach_bytes(
    engine: State<'_, Engine>,
    request: Request<'_>,
) -> CmdResult<PreparedFile> {
    let name = request
        .headers()
        .get(NAME_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(decode_name)
        .unwrap_or_else(|| "pasted".to_owned());
    let InvokeBody::Raw(bytes) = request.body() else {
        return Err(
            switchboard_engine::EngineError::from(UploadError::Unsupported { name }).into(),
        );
    };
    Ok(engine.agent().attach_bytes(&name, bytes.clone()).await?)
}

fn decode_name(encoded: &str) -> String {
    url::form_urlencoded::parse(format!("n={encoded}").as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "pasted".to_owned())
}

/// A stored image as a `data:` URL, whole or as its thumbnail.
#[tauri::command]
pub async fn image_url(
    engine: State<'_, Engine>,
    hash: String,
    thumbnail: bool,
) -> CmdResult<String> {
    Ok(engine.agent().image_url(&hash, thumbnail).await?)
}

/// Whether the conversation's model can see images (`null`: not known).
#[tauri::command]
pub async fn image_support(
    engine: State<'_, Engine>,
    conversation_id: String,
) -> CmdResult<Option<bool>> {
    Ok(engine.agent().sees_images(&conversation_id).await?)
}

/// How many messages deleting `message_id` removes (itself and those under it).
#[tauri::command]
pub async fn message_deletion_size(
    engine: State<'_, Engine>,
    message_id: String,
) -> CmdResult<u64> {
    Ok(engine.agent().deletion_size(&message_id).await?)
}

/// Deletes a message and every message under it; returns how many were deleted.
#[tauri::command]
pub async fn delete_message(engine: State<'_, Engine>, message_id: String) -> CmdResult<u64> {
    Ok(engine.agent().delete_message(&message_id).await?)
}

/// The prices per model (built in, with the user's over them).
#[tauri::command]
pub async fn model_prices(engine: State<'_, Engine>) -> CmdResult<PriceTable> {
    Ok(engine.providers().model_prices().await?)
}

/// The user's own prices (what the settings edit).
#[tauri::command]
pub async fn own_model_prices(engine: State<'_, Engine>) -> CmdResult<PriceTable> {
    Ok(engine.providers().own_prices().await?)
}

/// Replaces the user's own prices.
#[tauri::command]
pub async fn set_model_prices(engine: State<'_, Engine>, prices: PriceTable) -> CmdResult<()> {
    Ok(engine.providers().set_own_prices(prices).await?)
}
