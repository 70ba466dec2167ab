//! The recommended models: a few current instruct models with tool-capable chat templates,
//! from ~0.5B to ~8B, kept as data (`catalogue.json`: URL, size, SHA-256, facts) — and the one
//! this machine's memory suits best.

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// One model of the catalogue.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CatalogueModel {
    /// A stable id.
    pub id: String,
    /// The name shown.
    pub name: String,
    /// The file name it is saved under in the models folder.
    pub file: String,
    /// Where it is downloaded from (a Hugging Face `resolve/` link).
    pub url: String,
    /// The file's size in bytes.
    #[ts(type = "number")]
    pub size: u64,
    /// The file's SHA-256, checked after the download.
    pub sha256: String,
    /// The parameter count, e.g. `4.0B`.
    pub parameters: String,
    /// The quantization, e.g. `Q4_K_M`.
    pub quantization: String,
    /// The context length it was trained for, in tokens.
    pub context_length: u32,
    /// Its licence.
    pub license: String,
    /// The memory (GiB) a machine should have to run it with the app.
    pub min_memory_gib: u32,
    /// Whether it is the one recommended for this machine (set by [`for_this_machine`]).
    #[serde(default)]
    pub recommended: bool,
}

#[derive(Deserialize)]
struct CatalogueFile {
    models: Vec<CatalogueModel>,
}

static CATALOGUE: LazyLock<Vec<CatalogueModel>> = LazyLock::new(|| {
    serde_json::from_str::<CatalogueFile>(include_str!("catalogue.json"))
        .map(|f| f.models)
        .unwrap_or_default()
});

/// The catalogue, smallest model first.
pub fn catalogue() -> &'static [CatalogueModel] {
    &CATALOGUE
}

/// The index of the model for a machine with `memory` bytes: the largest it has the memory
/// for; the smallest when it has too little for any (or its memory is unknown).
pub fn recommend(models: &[CatalogueModel], memory: Option<u64>) -> Option<usize> {
    let gib = memory.map_or(0, |m| m >> 30);
    let fits = models
        .iter()
        .enumerate()
        .filter(|(_, m)| u64::from(m.min_memory_gib) <= gib)
        .max_by_key(|(_, m)| (m.min_memory_gib, m.size))
        .map(|(i, _)| i);
    fits.or_else(|| {
        models
            .iter()
            .enumerate()
            .min_by_key(|(_, m)| m.size)
            .map(|(i, _)| i)
    })
}

/// The catalogue with the model for this machine's memory marked as recommended.
pub fn for_this_machine() -> Vec<CatalogueModel> {
    let mut models = catalogue().to_vec();
    if let Some(i) = recommend(&models, total_memory()) {
        models[i].recommended = true;
    }
    models
}

/// This machine's memory in bytes (`MemTotal` of `/proc/meminfo`), when it can be read.
pub fn total_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_mem_total(&text)
}

fn parse_mem_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_parses_and_each_entry_is_a_verified_hugging_face_download() {
        let models = catalogue();
        assert!(models.len() >= 4, "{models:?}");
        for m in models {
            assert!(m.url.starts_with("https://huggingface.co/"), "{}", m.url);
            assert!(
                m.url.ends_with(&format!("/resolve/main/{}", m.file)),
                "{}",
                m.url
            );
            assert!(m.file.ends_with(".gguf"), "{}", m.file);
            assert_eq!(m.sha256.len(), 64, "{}", m.id);
            assert!(m.sha256.bytes().all(|b| b.is_ascii_hexdigit()), "{}", m.id);
            assert!(m.size > 100 << 20, "{}", m.id);
            assert!(!m.recommended, "{}", m.id);
        }
        let gib: Vec<u32> = models.iter().map(|m| m.min_memory_gib).collect();
        assert!(
            gib.windows(2).all(|w| w[0] <= w[1]),
            "smallest first: {gib:?}"
        );
    }

    #[test]
    fn the_largest_model_the_memory_allows_is_recommended_else_the_smallest() {
        let models = catalogue();
        let pick = |gib: u64| recommend(models, Some(gib << 30)).map(|i| models[i].id.as_str());
        assert_eq!(pick(1), Some("qwen2.5-0.5b-instruct"));
        assert_eq!(pick(4), Some("qwen3-1.7b"));
        assert_eq!(pick(8), Some("qwen3-4b"));
        assert_eq!(pick(15), Some("qwen2.5-7b-instruct"));
        assert_eq!(pick(24), Some("qwen3-8b"));
        assert_eq!(
            recommend(models, None).map(|i| models[i].id.as_str()),
            Some("qwen2.5-0.5b-instruct")
        );
        assert_eq!(recommend(&[], Some(64 << 30)), None);
    }

    #[test]
    fn memory_is_read_from_meminfo() {
        let text = "MemTotal:       24578948 kB\nMemFree:         8000000 kB\n";
        assert_eq!(parse_mem_total(text), Some(24_578_948 * 1024));
        assert_eq!(parse_mem_total("nothing here"), None);
        assert_eq!(
            for_this_machine().iter().filter(|m| m.recommended).count(),
            1
        );
    }
}
