//! Attached images: decoded with limits (a decompression bomb is refused, not allocated),
//! turned upright from their EXIF orientation, downscaled to a long side a provider accepts
//! and re-encoded once (kept byte for byte when nothing needs changing), with a thumbnail.

use std::io::Cursor;

use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader, Limits};
use sha2::{Digest, Sha256};

use crate::store::NewBlob;
use crate::vocab::error::UploadError;

/// The long side an image is stored and sent at: the smallest of the providers' limits
/// (Anthropic recommends 1568 px and scales larger images down on its side; OpenAI scales to
/// 2048 px, Gemini, DashScope and Ollama take this as is), so the one stored copy is sent to
/// any provider without another re-encoding.
pub const MAX_SIDE: u32 = 1568;
/// The long side of a thumbnail.
pub const THUMB_SIDE: u32 = 320;
/// Images wider or taller than this are refused before decoding.
const MAX_DIMENSION: u32 = 20_000;
/// The most memory a decode may take.
const MAX_ALLOC: u64 = 512 * 1024 * 1024;
/// JPEG quality for re-encoded photos.
const JPEG_QUALITY: u8 = 85;

/// The image formats accepted, by their signature.
pub fn sniff(bytes: &[u8]) -> Option<ImageFormat> {
    match image::guess_format(bytes).ok()? {
        f @ (ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::WebP | ImageFormat::Gif) => {
            Some(f)
        }
        _ => None,
    }
}

/// Whether a file name's extension says "image".
pub fn named_like_image(name: &str) -> bool {
    let ext = super::extension(name);
    matches!(
        ext.as_str(),
        "png" | "jpg" | "jpeg" | "webp" | "gif" | "bmp" | "heic" | "heif" | "tif" | "tiff" | "avif"
    )
}

/// Decodes `bytes`, fits them within `max_side` and returns what to store.
pub fn process(name: &str, bytes: &[u8], max_side: u32) -> Result<NewBlob, UploadError> {
    let corrupt = |reason: String| UploadError::CorruptImage {
        name: name.to_owned(),
        reason,
    };
    let format = sniff(bytes).ok_or_else(|| corrupt("not a PNG, JPEG, WebP or GIF".into()))?;
    let (img, upright) = decode(bytes, format).map_err(corrupt)?;
    let too_big = img.width().max(img.height()) > max_side;
    let keep = !too_big && upright && matches!(format, ImageFormat::Png | ImageFormat::Jpeg);
    let img = if too_big {
        img.thumbnail(max_side, max_side)
    } else {
        img
    };
    let (data, mime_type) = if keep {
        (bytes.to_vec(), mime_of(format).to_owned())
    } else {
        encode(&img, format).map_err(corrupt)?
    };
    let (thumb, thumb_mime) =
        encode(&img.thumbnail(THUMB_SIDE, THUMB_SIDE), format).map_err(corrupt)?;
    Ok(NewBlob {
        hash: sha256_hex(&data),
        mime_type,
        width: img.width(),
        height: img.height(),
        data,
        thumb,
        thumb_mime,
    })
}

/// The decoded image, turned upright; the flag says it already was.
fn decode(bytes: &[u8], format: ImageFormat) -> Result<(DynamicImage, bool), String> {
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_DIMENSION);
    limits.max_image_height = Some(MAX_DIMENSION);
    limits.max_alloc = Some(MAX_ALLOC);
    reader.limits(limits);
    let mut decoder = reader.into_decoder().map_err(|e| e.to_string())?;
    let orientation = decoder
        .orientation()
        .unwrap_or(image::metadata::Orientation::NoTransforms);
    let mut img = DynamicImage::from_decoder(decoder).map_err(|e| e.to_string())?;
    let upright = orientation == image::metadata::Orientation::NoTransforms;
    img.apply_orientation(orientation);
    Ok((img, upright))
}

/// PNG when the image has transparency or came as PNG or GIF (drawings, screenshots), else
/// JPEG.
fn encode(img: &DynamicImage, source: ImageFormat) -> Result<(Vec<u8>, String), String> {
    let mut out = Cursor::new(Vec::new());
    let lossless = img.color().has_alpha() || matches!(source, ImageFormat::Png | ImageFormat::Gif);
    if lossless {
        img.write_to(&mut out, ImageFormat::Png)
            .map_err(|e| e.to_string())?;
        return Ok((out.into_inner(), "image/png".into()));
    }
    let rgb = img.to_rgb8();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY)
        .encode_image(&rgb)
        .map_err(|e| e.to_string())?;
    Ok((out.into_inner(), "image/jpeg".into()))
}

fn mime_of(format: ImageFormat) -> &'static str {
    match format {
        ImageFormat::Png => "image/png",
        ImageFormat::Jpeg => "image/jpeg",
        ImageFormat::WebP => "image/webp",
        ImageFormat::Gif => "image/gif",
        _ => "application/octet-stream",
    }
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
