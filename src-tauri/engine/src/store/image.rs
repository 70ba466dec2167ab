//! Attached images made ready to store, for an upload and an import alike: decoded with
//! limits (a decompression bomb is refused, not allocated), downscaled to a long side a
//! provider accepts (SIMD Lanczos3), turned upright from their EXIF orientation and re-encoded
//! once (kept byte for byte when nothing needs changing), with a thumbnail.

use std::io::Cursor;

use fast_image_resize::{FilterType, ResizeAlg, ResizeOptions, Resizer};
use image::metadata::Orientation;
use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader, Limits};
use sha2::{Digest, Sha256};

use super::NewBlob;
use crate::vocab::error::UploadError;

/// The long side an image is stored and sent at: the smallest of the providers' limits
/// (Anthropic recommends 1568 px and scales larger images down on its side; OpenAI scales to
/// 2048 px, Gemini, DashScope and Ollama take this as is), so the one stored copy is sent to
/// any provider without another re-encoding.
pub(crate) const MAX_SIDE: u32 = 1568;
/// The long side of a thumbnail.
pub(crate) const THUMB_SIDE: u32 = 320;
/// Images wider or taller than this are refused before decoding.
const MAX_DIMENSION: u32 = 20_000;
/// The most memory a decoded image may take (64 megapixels of RGB, a 48-megapixel photo with
/// room to spare), so that with its downscaled copy and thumbnail an upload stays well under
/// 256 MB; a larger image is refused from its header, before any pixel is decoded.
pub(crate) const MAX_ALLOC: u64 = 192 * 1024 * 1024;
/// JPEG quality for re-encoded photos.
const JPEG_QUALITY: u8 = 85;

/// The image formats accepted, by their signature.
pub(crate) fn sniff(bytes: &[u8]) -> Option<ImageFormat> {
    match image::guess_format(bytes).ok()? {
        f @ (ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::WebP | ImageFormat::Gif) => {
            Some(f)
        }
        _ => None,
    }
}

/// Decodes `bytes`, fits them within `max_side` and returns what to store.
pub(crate) fn process(name: &str, bytes: &[u8], max_side: u32) -> Result<NewBlob, UploadError> {
    // Decoders' messages may span lines (a JPEG cut in its header): one line, as errors are.
    let corrupt = |reason: String| UploadError::CorruptImage {
        name: name.to_owned(),
        reason: reason.split_whitespace().collect::<Vec<_>>().join(" "),
    };
    let format = sniff(bytes).ok_or_else(|| corrupt("not a PNG, JPEG, WebP or GIF".into()))?;
    let (img, orientation) = decode(bytes, format).map_err(corrupt)?;
    let upright = orientation == Orientation::NoTransforms;
    let too_big = img.width().max(img.height()) > max_side;
    let keep = !too_big && upright && matches!(format, ImageFormat::Png | ImageFormat::Jpeg);
    // Downscaled before it is turned upright: the long side is the same either way, and
    // turning the smaller image moves a fraction of the pixels.
    let mut img = if too_big { fit(&img, max_side) } else { img };
    img.apply_orientation(orientation);
    let (data, mime_type) = if keep {
        (bytes.to_vec(), mime_of(format).to_owned())
    } else {
        encode(&img, format).map_err(corrupt)?
    };
    let (thumb, thumb_mime) = encode(&fit(&img, THUMB_SIDE), format).map_err(corrupt)?;
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

/// The decoded image and how it must be turned to stand upright. The memory the pixels need is
/// checked against [`MAX_ALLOC`] from the header, before any pixel is decoded.
fn decode(bytes: &[u8], format: ImageFormat) -> Result<(DynamicImage, Orientation), String> {
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_DIMENSION);
    limits.max_image_height = Some(MAX_DIMENSION);
    limits.max_alloc = Some(MAX_ALLOC);
    reader.limits(limits.clone());
    let mut decoder = reader.into_decoder().map_err(|e| e.to_string())?;
    let needed = decoder.total_bytes();
    if needed > MAX_ALLOC {
        let (w, h) = decoder.dimensions();
        return Err(format!(
            "it is {w} × {h} pixels, which takes {} MiB to decode; the most is {} MiB",
            needed.div_ceil(1 << 20),
            MAX_ALLOC >> 20
        ));
    }
    limits.reserve(needed).map_err(|e| e.to_string())?;
    decoder.set_limits(limits).map_err(|e| e.to_string())?;
    let orientation = decoder.orientation().unwrap_or(Orientation::NoTransforms);
    let img = DynamicImage::from_decoder(decoder).map_err(|e| e.to_string())?;
    Ok((img, orientation))
}

/// `img` scaled down (Lanczos3, SIMD) so its long side is at most `max_side`; a smaller image
/// is returned as it is, never enlarged.
pub(crate) fn fit(img: &DynamicImage, max_side: u32) -> DynamicImage {
    let (w, h) = (img.width(), img.height());
    let long = w.max(h);
    if long <= max_side {
        return img.clone();
    }
    let side = |s: u32| {
        let scaled = u64::from(s) * u64::from(max_side) / u64::from(long);
        u32::try_from(scaled).unwrap_or(max_side).clamp(1, max_side)
    };
    let mut out = DynamicImage::new(side(w), side(h), img.color());
    let options = ResizeOptions::new().resize_alg(ResizeAlg::Convolution(FilterType::Lanczos3));
    match Resizer::new().resize(img, &mut out, &options) {
        Ok(()) => out,
        // A pixel layout the SIMD resizer does not take (16-bit with alpha, float): the image
        // crate's own.
        Err(_) => img.thumbnail(max_side, max_side),
    }
}

/// PNG when the image has transparency or came as PNG or GIF (drawings, screenshots), else
/// JPEG.
fn encode(img: &DynamicImage, source: ImageFormat) -> Result<(Vec<u8>, String), String> {
    let lossless = img.color().has_alpha() || matches!(source, ImageFormat::Png | ImageFormat::Gif);
    if lossless {
        let mut out = Cursor::new(Vec::new());
        img.write_to(&mut out, ImageFormat::Png)
            .map_err(|e| e.to_string())?;
        return Ok((out.into_inner(), "image/png".into()));
    }
    let rgb = img.to_rgb8();
    let mut out = Vec::new();
    match (u16::try_from(rgb.width()), u16::try_from(rgb.height())) {
        (Ok(w), Ok(h)) => jpeg_encoder::Encoder::new(&mut out, JPEG_QUALITY)
            .encode(rgb.as_raw(), w, h, jpeg_encoder::ColorType::Rgb)
            .map_err(|e| e.to_string())?,
        // Wider than a JPEG header can say: the image crate's encoder refuses it in words.
        _ => image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY)
            .encode_image(&rgb)
            .map_err(|e| e.to_string())?,
    }
    Ok((out, "image/jpeg".into()))
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
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
