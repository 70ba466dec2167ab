//! What a GGUF file says about its model, read from the file's header without loading it:
//! architecture, parameter count label, quantization, trained context length and whether its
//! chat template knows tools. Only the key/value section is read; arrays (the vocabulary) are
//! skipped.

use std::io::{BufReader, Read, Seek};
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
/// How deep arrays may nest: llama.cpp writes flat arrays, so an array of arrays of arrays is
/// already more than any real file holds (a hostile file nesting thousands deep would overflow
/// the stack).
pub const MAX_DEPTH: u32 = 3;

/// Reads the facts of the GGUF file at `path`.
pub fn read_info(path: &Path) -> Result<GgufInfo, LocalError> {
    let file = std::fs::File::open(path).map_err(|e| LocalError::io("cannot read", path, &e))?;
    let len = file
        .metadata()
        .map_err(|e| LocalError::io("cannot read", path, &e))?
        .len();
    parse(BufReader::new(file), len).map_err(|fault| fault.at(path))
}

/// Reads the facts of a GGUF file held in memory (the fuzz target's way in); `name` is what
/// errors call it.
pub fn read_info_from(name: &Path, bytes: &[u8]) -> Result<GgufInfo, LocalError> {
    parse(std::io::Cursor::new(bytes), bytes.len() as u64).map_err(|fault| fault.at(name))
}

/// Why a header was refused: cut short or unreadable, or a header that cannot be true.
enum Fault {
    Unreadable,
    Bad(String),
}

impl Fault {
    fn at(self, path: &Path) -> LocalError {
        let path = path.to_path_buf();
        match self {
            Self::Unreadable => LocalError::Unloadable { path },
            Self::Bad(reason) => LocalError::BadGguf { path, reason },
        }
    }
}

impl From<std::io::Error> for Fault {
    fn from(_: std::io::Error) -> Self {
        Self::Unreadable
    }
}

/// A reader that knows how many bytes of the file are left, so that no length is believed
/// beyond them.
struct Header<R> {
    r: R,
    left: u64,
}

impl<R: Read + Seek> Header<R> {
    fn bytes<const N: usize>(&mut self) -> Result<[u8; N], Fault> {
        let mut b = [0u8; N];
        self.r.read_exact(&mut b)?;
        self.left = self.left.saturating_sub(N as u64);
        Ok(b)
    }

    fn u32(&mut self) -> Result<u32, Fault> {
        Ok(u32::from_le_bytes(self.bytes()?))
    }

    fn u64(&mut self) -> Result<u64, Fault> {
        Ok(u64::from_le_bytes(self.bytes()?))
    }

    /// Skips `n` bytes, which must be in the file.
    fn skip(&mut self, n: u64, what: &str) -> Result<(), Fault> {
        if n > self.left {
            return Err(Fault::Bad(format!(
                "{what} of {n} bytes runs past the end of the file"
            )));
        }
        let by = i64::try_from(n).map_err(|_| Fault::Unreadable)?;
        self.r.seek_relative(by)?;
        self.left -= n;
        Ok(())
    }

    /// A string's length, which must fit in what is left of the file.
    fn string_len(&mut self) -> Result<u64, Fault> {
        let len = self.u64()?;
        if len > self.left {
            return Err(Fault::Bad(format!(
                "a string of {len} bytes runs past the end of the file"
            )));
        }
        Ok(len)
    }

    fn string(&mut self) -> Result<String, Fault> {
        let len = self.string_len()?;
        if len > MAX_STRING {
            return Err(Fault::Bad(format!(
                "a string of {len} bytes is longer than {MAX_STRING}"
            )));
        }
        let mut bytes = vec![0u8; usize::try_from(len).map_err(|_| Fault::Unreadable)?];
        self.r.read_exact(&mut bytes)?;
        self.left -= len;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Skips one value of `kind` (arrays whole), `depth` arrays deep, within the reader's
    /// buffer when it can.
    fn skip_value(&mut self, kind: u32, depth: u32) -> Result<(), Fault> {
        if let Some(n) = fixed_size(kind) {
            return self.skip(n, "a value");
        }
        match kind {
            8 => {
                let len = self.string_len()?;
                self.skip(len, "a string")
            }
            9 => {
                if depth >= MAX_DEPTH {
                    return Err(Fault::Bad(format!(
                        "its arrays nest deeper than {MAX_DEPTH} levels"
                    )));
                }
                let item = self.u32()?;
                let count = self.u64()?;
                let each = min_size(item)
                    .ok_or_else(|| Fault::Bad(format!("an array holds unknown type {item}")))?;
                if count.checked_mul(each).is_none_or(|need| need > self.left) {
                    return Err(Fault::Bad(format!(
                        "an array of {count} elements does not fit in the file"
                    )));
                }
                match fixed_size(item) {
                    Some(n) => self.skip(count * n, "an array"),
                    None => {
                        for _ in 0..count {
                            self.skip_value(item, depth + 1)?;
                        }
                        Ok(())
                    }
                }
            }
            _ => Err(Fault::Bad(format!("a value has unknown type {kind}"))),
        }
    }
}

fn parse(r: impl Read + Seek, len: u64) -> Result<GgufInfo, Fault> {
    let mut r = Header { r, left: len };
    if &r.bytes::<4>()? != b"GGUF" {
        return Err(Fault::Unreadable);
    }
    let version = r.u32()?;
    if version < 2 {
        return Err(Fault::Unreadable);
    }
    let _tensors = r.u64()?;
    let pairs = r.u64()?;
    // A pair is at least a key's length, a type and a one-byte value.
    if pairs > MAX_PAIRS || pairs.saturating_mul(13) > r.left {
        return Err(Fault::Bad(format!(
            "{pairs} key/value pairs do not fit in the file"
        )));
    }
    let mut info = GgufInfo::default();
    let mut context: Vec<(String, u32)> = Vec::new();
    for _ in 0..pairs {
        let key = r.string()?;
        let kind = r.u32()?;
        match (key.as_str(), kind) {
            ("general.architecture", 8) => info.architecture = Some(r.string()?),
            ("general.size_label", 8) => info.size_label = Some(r.string()?),
            ("tokenizer.chat_template", 8) => {
                let template = r.string()?;
                info.has_template = true;
                info.supports_tools = super::template::supports_tools(&template);
            }
            ("general.file_type", 4 | 5) => {
                info.quantization = file_type(r.u32()?).map(str::to_owned);
            }
            (k, 4 | 5) if k.ends_with(".context_length") => {
                context.push((k.to_owned(), r.u32()?));
            }
            (_, kind) => r.skip_value(kind, 0)?,
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

/// The size of a fixed-size value type, in bytes.
fn fixed_size(kind: u32) -> Option<u64> {
    match kind {
        0 | 1 | 7 => Some(1),
        2 | 3 => Some(2),
        4..=6 => Some(4),
        10..=12 => Some(8),
        _ => None,
    }
}

/// The fewest bytes a value of `kind` takes: its fixed size, a string's length, an array's
/// type and count.
fn min_size(kind: u32) -> Option<u64> {
    match kind {
        8 => Some(8),
        9 => Some(12),
        k => fixed_size(k),
    }
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
        assert_eq!(
            read_info(&cut),
            Err(LocalError::BadGguf {
                path: cut.clone(),
                reason: "1 key/value pairs do not fit in the file".into()
            })
        );
        assert_eq!(
            read_info(&text),
            Err(LocalError::Unloadable { path: text.clone() })
        );
    }

    /// A header with one pair, `key`, of type `kind`, followed by `value`.
    fn one_pair(kind: u32, value: &[u8]) -> Vec<u8> {
        let mut b = b"GGUF".to_vec();
        b.extend(3u32.to_le_bytes());
        b.extend(0u64.to_le_bytes());
        b.extend(1u64.to_le_bytes());
        b.extend(3u64.to_le_bytes());
        b.extend(b"key");
        b.extend(kind.to_le_bytes());
        b.extend(value);
        b
    }

    #[test]
    fn arrays_nested_thousands_deep_are_refused_without_overflowing_the_stack() {
        let mut value = Vec::new();
        for _ in 0..50_000 {
            value.extend(9u32.to_le_bytes());
            value.extend(1u64.to_le_bytes());
        }
        value.extend(4u32.to_le_bytes());
        value.extend(0u64.to_le_bytes());
        let err = read_info_from(Path::new("deep.gguf"), &one_pair(9, &value)).unwrap_err();
        assert!(
            err.to_string().contains("nest deeper than 3 levels"),
            "{err}"
        );
    }

    #[test]
    fn counts_and_lengths_beyond_the_file_are_refused_by_what_they_claim() {
        let mut array = 8u32.to_le_bytes().to_vec();
        array.extend(u64::MAX.to_le_bytes());
        let err = read_info_from(Path::new("a.gguf"), &one_pair(9, &array)).unwrap_err();
        assert!(
            err.to_string().contains("does not fit in the file"),
            "{err}"
        );
        let string = (1u64 << 40).to_le_bytes();
        let err = read_info_from(Path::new("s.gguf"), &one_pair(8, &string)).unwrap_err();
        assert!(
            err.to_string().contains("runs past the end of the file"),
            "{err}"
        );
        let err = read_info_from(Path::new("t.gguf"), &one_pair(99, &[0; 8])).unwrap_err();
        assert!(err.to_string().contains("unknown type 99"), "{err}");
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
