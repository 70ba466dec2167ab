//! What a GGUF file says about its model, read from the file's header without loading it:
//! architecture, parameter count label, quantization, trained context length and whether its
//! chat template knows tools. Only the key/value section is read; arrays (the vocabulary) are
//! skipped.

use std::io::{BufReader, Read};
use std::path::Path;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::LocalError;

/// The facts of one model file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct GgufInfo {
    /// `general.architecture`, e.g. `llama`, `qwen2`.
    pub architecture: Option<String>,
    /// `general.size_label`, e.g. `135M`, `7B`.
    pub size_label: Option<String>,
    /// The quantization, from `general.file_type`, e.g. `Q4_K_M`.
    pub quantization: Option<String>,
    /// `<architecture>.context_length`: the context it was trained for.
    pub context_length: Option<u32>,
    /// Whether `tokenizer.chat_template` renders tool definitions.
    pub supports_tools: bool,
    /// Whether the file has a chat template at all.
    pub has_template: bool,
}

/// The most key/value pairs, and the longest string, believed (a guard against a corrupt file).
const MAX_PAIRS: u64 = 1 << 16;
const MAX_STRING: u64 = 1 << 24;

/// Reads the facts of the GGUF file at `path`.
pub fn read_info(path: &Path) -> Result<GgufInfo, LocalError> {
    let bad = || LocalError::Unloadable {
        path: path.to_path_buf(),
    };
    let file = std::fs::File::open(path).map_err(|e| LocalError::io("cannot read", path, &e))?;
    let mut r = BufReader::new(file);
    let mut magic = [0u8; 4];
    r.read_exact(&mut magic).map_err(|_| bad())?;
    if &magic != b"GGUF" {
        return Err(bad());
    }
    let version = u32_of(&mut r).map_err(|_| bad())?;
    if version < 2 {
        return Err(bad());
    }
    let _tensors = u64_of(&mut r).map_err(|_| bad())?;
    let pairs = u64_of(&mut r).map_err(|_| bad())?;
    if pairs > MAX_PAIRS {
        return Err(bad());
    }
    let mut info = GgufInfo::default();
    let mut context: Vec<(String, u32)> = Vec::new();
    for _ in 0..pairs {
        let key = string_of(&mut r).map_err(|_| bad())?;
        let kind = u32_of(&mut r).map_err(|_| bad())?;
        match (key.as_str(), kind) {
            ("general.architecture", 8) => {
                info.architecture = Some(string_of(&mut r).map_err(|_| bad())?)
            }
            ("general.size_label", 8) => {
                info.size_label = Some(string_of(&mut r).map_err(|_| bad())?)
            }
            ("tokenizer.chat_template", 8) => {
                let template = string_of(&mut r).map_err(|_| bad())?;
                info.has_template = true;
                info.supports_tools = super::template::supports_tools(&template);
            }
            ("general.file_type", 4 | 5) => {
                info.quantization =
                    file_type(u32_of(&mut r).map_err(|_| bad())?).map(str::to_owned);
            }
            (k, 4 | 5) if k.ends_with(".context_length") => {
                context.push((k.to_owned(), u32_of(&mut r).map_err(|_| bad())?));
            }
            (_, kind) => skip(&mut r, kind).map_err(|_| bad())?,
        }
    }
    let wanted = info
        .architecture
        .as_ref()
        .map(|a| format!("{a}.context_length"));
    info.context_length = context
        .iter()
        .find(|(k, _)| Some(k) == wanted.as_ref())
        .or(context.first())
        .map(|(_, n)| *n);
    Ok(info)
}

fn u32_of(r: &mut impl Read) -> std::io::Result<u32> {
    let mut b = [0u8; 4];
    r.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

fn u64_of(r: &mut impl Read) -> std::io::Result<u64> {
    let mut b = [0u8; 8];
    r.read_exact(&mut b)?;
    Ok(u64::from_le_bytes(b))
}

fn string_of(r: &mut impl Read) -> std::io::Result<String> {
    let len = u64_of(r)?;
    if len > MAX_STRING {
        return Err(std::io::Error::other("string too long"));
    }
    let mut bytes = vec![0u8; usize::try_from(len).unwrap_or(0)];
    r.read_exact(&mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The size of a fixed-size value type, in bytes.
fn fixed_size(kind: u32) -> Option<i64> {
    match kind {
        0 | 1 | 7 => Some(1),
        2 | 3 => Some(2),
        4..=6 => Some(4),
        10..=12 => Some(8),
        _ => None,
    }
}

/// Skips one value of `kind` (arrays whole), within the reader's buffer when it can.
fn skip(r: &mut BufReader<std::fs::File>, kind: u32) -> std::io::Result<()> {
    if let Some(n) = fixed_size(kind) {
        r.seek_relative(n)?;
        return Ok(());
    }
    match kind {
        8 => {
            let len = u64_of(r)?;
            let len = i64::try_from(len).map_err(std::io::Error::other)?;
            r.seek_relative(len)?;
        }
        9 => {
            let item = u32_of(r)?;
            let count = u64_of(r)?;
            match fixed_size(item) {
                Some(n) => {
                    let bytes = i64::try_from(count)
                        .ok()
                        .and_then(|c| c.checked_mul(n))
                        .ok_or_else(|| std::io::Error::other("array too long"))?;
                    r.seek_relative(bytes)?;
                }
                None => {
                    for _ in 0..count {
                        skip(r, item)?;
                    }
                }
            }
        }
        _ => return Err(std::io::Error::other("unknown value type")),
    }
    Ok(())
}

/// llama.cpp's `llama_ftype` names.
fn file_type(t: u32) -> Option<&'static str> {
    Some(match t {
        0 => "F32",
        1 => "F16",
        2 => "Q4_0",
        3 => "Q4_1",
        7 => "Q8_0",
        8 => "Q5_0",
        9 => "Q5_1",
        10 => "Q2_K",
        11 => "Q3_K_S",
        12 => "Q3_K_M",
        13 => "Q3_K_L",
        14 => "Q4_K_S",
        15 => "Q4_K_M",
        16 => "Q5_K_S",
        17 => "Q5_K_M",
        18 => "Q6_K",
        19 => "IQ2_XXS",
        20 => "IQ2_XS",
        21 => "Q2_K_S",
        22 => "IQ3_XS",
        23 => "IQ3_XXS",
        24 => "IQ1_S",
        25 => "IQ4_NL",
        26 => "IQ3_S",
        27 => "IQ3_M",
        28 => "IQ2_S",
        29 => "IQ2_M",
        30 => "IQ4_XS",
        31 => "IQ1_M",
        32 => "BF16",
        36 => "TQ1_0",
        37 => "TQ2_0",
        38 => "MXFP4_MOE",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_file_that_is_not_gguf_or_is_cut_short_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let cut = dir.path().join("cut.gguf");
        // The header promises one key/value pair that is not there.
        let mut bytes = b"GGUF".to_vec();
        bytes.extend(3u32.to_le_bytes());
        bytes.extend(0u64.to_le_bytes());
        bytes.extend(1u64.to_le_bytes());
        std::fs::write(&cut, bytes).unwrap();
        let text = dir.path().join("text.gguf");
        std::fs::write(&text, "hello world").unwrap();
        for path in [cut, text] {
            assert_eq!(
                read_info(&path),
                Err(LocalError::Unloadable { path: path.clone() })
            );
        }
    }

    #[test]
    fn a_small_file_gives_its_facts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.gguf");
        let mut b = b"GGUF".to_vec();
        b.extend(3u32.to_le_bytes());
        b.extend(0u64.to_le_bytes());
        b.extend(4u64.to_le_bytes());
        let key = |b: &mut Vec<u8>, k: &str, kind: u32| {
            b.extend((k.len() as u64).to_le_bytes());
            b.extend(k.as_bytes());
            b.extend(kind.to_le_bytes());
        };
        key(&mut b, "general.architecture", 8);
        b.extend(5u64.to_le_bytes());
        b.extend(b"qwen2");
        key(&mut b, "tokenizer.ggml.tokens", 9);
        b.extend(8u32.to_le_bytes());
        b.extend(2u64.to_le_bytes());
        for t in ["a", "bc"] {
            b.extend((t.len() as u64).to_le_bytes());
            b.extend(t.as_bytes());
        }
        key(&mut b, "qwen2.context_length", 4);
        b.extend(32768u32.to_le_bytes());
        key(&mut b, "general.file_type", 4);
        b.extend(15u32.to_le_bytes());
        std::fs::write(&path, b).unwrap();
        let info = read_info(&path).unwrap();
        assert_eq!(info.architecture.as_deref(), Some("qwen2"));
        assert_eq!(info.context_length, Some(32768));
        assert_eq!(info.quantization.as_deref(), Some("Q4_K_M"));
        assert!(!info.has_template);
    }
}
