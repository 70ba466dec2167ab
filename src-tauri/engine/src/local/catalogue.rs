//! The recommended models: a few current instruct models with tool-capable chat templates,
//! from ~0.5B to ~8B, kept as data (`catalogue.json`: URL, size, SHA-256, facts) — each with
//! the generation speed to expect on this machine, and the one this machine suits best: the
//! largest its memory holds that still generates at a usable speed
//! ([`USABLE_TOKENS_PER_SECOND`]).
//!
//! Generating a token on a CPU reads the whole model once, so a model's speed goes inversely
//! with its file's size: a [`Speed`] is the model bytes this machine gets through per second,
//! measured from the built-in model's real answers (`providers/local_speed.rs`) or, before any,
//! estimated from the CPU threads ([`estimated_speed`]).

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// One model of the catalogue.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
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
    /// Whether it is the one recommended for this machine (set by [`for_machine`]).
    #[serde(default)]
    pub recommended: bool,
    /// The speed it should generate at on this machine (set by [`for_machine`]).
    #[serde(default)]
    #[ts(optional)]
    pub expected_speed: Option<ExpectedSpeed>,
}

/// A model's expected generation speed on this machine.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExpectedSpeed {
    /// Generated tokens per second, rounded to one decimal.
    pub tokens_per_second: f32,
    /// Whether it was scaled from a speed measured here (else estimated from the CPU).
    pub measured: bool,
}

/// The fewest generated tokens per second a recommended model should reach. People read some
/// 4–5 words (6–7 tokens) a second, so below ~8 an answer streams slower than it is read, and
/// a turn that calls tools (several answers in a row) takes minutes; above it, a larger model
/// is worth its wait.
pub const USABLE_TOKENS_PER_SECOND: f64 = 8.0;

/// Model bytes one CPU thread gets through per second while generating, for the estimate made
/// before any measurement: llama.cpp on one core of a current x86 CPU generates ~6 tokens/s
/// from a 0.5 GB Q4 model. Deliberately modest (a laptop core, a virtual CPU).
const BYTES_PER_SECOND_PER_THREAD: f64 = 3.0e9;
/// The most model bytes per second a CPU estimate assumes, whatever its threads: generation is
/// bound by memory bandwidth (~30 GB/s usable from dual-channel DDR4/DDR5).
const MAX_BYTES_PER_SECOND: f64 = 30.0e9;

/// How fast this machine generates: the model bytes it gets through per second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Speed {
    /// Model bytes per second (tokens per second times the model file's size).
    pub bytes_per_second: f64,
    /// Whether it was measured here (else estimated).
    pub measured: bool,
}

impl Speed {
    /// The speed measured for a model of `model_bytes` generating `tokens_per_second`.
    pub fn measured(tokens_per_second: f64, model_bytes: u64) -> Self {
        Self {
            bytes_per_second: tokens_per_second * model_bytes as f64,
            measured: true,
        }
    }

    /// The tokens per second a model of `model_bytes` should generate at.
    pub fn tokens_per_second(&self, model_bytes: u64) -> f64 {
        self.bytes_per_second / (model_bytes.max(1) as f64)
    }
}

/// The speed estimated for a CPU with `threads` threads (nothing measured yet).
pub fn estimated_speed(threads: usize) -> Speed {
    let threads = threads.max(1) as f64;
    Speed {
        bytes_per_second: (threads * BYTES_PER_SECOND_PER_THREAD).min(MAX_BYTES_PER_SECOND),
        measured: false,
    }
}

/// This machine's CPU threads (1 when unknown).
pub fn cpu_threads() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
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

/// The index of the model for a machine with `memory` bytes generating at `speed`: the
/// largest it has the memory for that reaches [`USABLE_TOKENS_PER_SECOND`]; the smallest when
/// none does (too little memory, its memory unknown, or too slow a CPU for any).
pub fn recommend(models: &[CatalogueModel], memory: Option<u64>, speed: Speed) -> Option<usize> {
    let gib = memory.map_or(0, |m| m >> 30);
    let fits = models
        .iter()
        .enumerate()
        .filter(|(_, m)| u64::from(m.min_memory_gib) <= gib)
        .filter(|(_, m)| speed.tokens_per_second(m.size) >= USABLE_TOKENS_PER_SECOND)
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

/// The catalogue for a machine with `memory` bytes generating at `speed`: each model with its
/// expected speed, the one for the machine marked as recommended.
pub fn for_machine(memory: Option<u64>, speed: Speed) -> Vec<CatalogueModel> {
    let mut models = catalogue().to_vec();
    for m in &mut models {
        let tokens = speed.tokens_per_second(m.size);
        m.expected_speed = Some(ExpectedSpeed {
            tokens_per_second: ((tokens * 10.0).round() / 10.0) as f32,
            measured: speed.measured,
        });
    }
    if let Some(i) = recommend(&models, memory, speed) {
        models[i].recommended = true;
    }
    models
}

/// The catalogue for this machine's memory and threads, before any speed was measured (the
/// providers service gives the measured one: `Providers::model_catalogue`).
pub fn for_this_machine() -> Vec<CatalogueModel> {
    for_machine(total_memory(), estimated_speed(cpu_threads()))
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
            assert_eq!(m.expected_speed, None, "{}", m.id);
        }
        let gib: Vec<u32> = models.iter().map(|m| m.min_memory_gib).collect();
        assert!(
            gib.windows(2).all(|w| w[0] <= w[1]),
            "smallest first: {gib:?}"
        );
    }

    /// A speed at which every catalogue model is usable (the memory alone decides).
    fn fast() -> Speed {
        Speed::measured(100.0, 6 << 30)
    }

    #[test]
    fn the_largest_model_the_memory_allows_is_recommended_else_the_smallest() {
        let models = catalogue();
        let pick =
            |gib: u64| recommend(models, Some(gib << 30), fast()).map(|i| models[i].id.as_str());
        assert_eq!(pick(1), Some("qwen2.5-0.5b-instruct"));
        assert_eq!(pick(4), Some("qwen3-1.7b"));
        assert_eq!(pick(8), Some("qwen3-4b"));
        assert_eq!(pick(15), Some("qwen2.5-7b-instruct"));
        assert_eq!(pick(24), Some("qwen3-8b"));
        assert_eq!(
            recommend(models, None, fast()).map(|i| models[i].id.as_str()),
            Some("qwen2.5-0.5b-instruct")
        );
        assert_eq!(recommend(&[], Some(64 << 30), fast()), None);
    }

    fn pick(memory_gib: u64, speed: Speed) -> &'static str {
        let models = catalogue();
        recommend(models, Some(memory_gib << 30), speed)
            .map(|i| models[i].id.as_str())
            .unwrap()
    }

    #[test]
    fn a_slow_machine_with_much_memory_is_recommended_a_model_it_runs_at_a_usable_speed() {
        // 24 GB and SmolLM2 (98 MB) measured at 60 tokens/s: ~5.9 GB/s, so Qwen3 8B (5 GB)
        // would make ~1.2 tokens/s and Qwen3 1.7B (1.1 GB) ~5.3; Qwen2.5 0.5B (0.49 GB) ~12.
        let slow = Speed::measured(60.0, 98_362_432);
        assert_eq!(pick(24, slow), "qwen2.5-0.5b-instruct");
        // Measured at 24 tokens/s on a 1.1 GB model: ~26.6 GB/s, so Qwen3 4B (2.5 GB) makes
        // ~10.6 tokens/s and Qwen2.5 7B (4.7 GB) ~5.7.
        let faster = Speed::measured(24.0, 1_107_409_472);
        assert_eq!(pick(24, faster), "qwen3-4b");
        // Memory still bounds it: 4 GB holds no more than Qwen3 1.7B, however fast.
        assert_eq!(pick(4, faster), "qwen3-1.7b");
        // Too slow for any: the smallest (the fastest) is still the one to try.
        assert_eq!(
            pick(24, Speed::measured(1.0, 98_362_432)),
            "qwen2.5-0.5b-instruct"
        );
    }

    #[test]
    fn without_a_measurement_the_speed_is_estimated_from_the_threads_and_says_so() {
        let two = estimated_speed(2);
        assert!(!two.measured);
        assert_eq!(pick(24, two), "qwen2.5-0.5b-instruct");
        assert_eq!(pick(24, estimated_speed(8)), "qwen3-4b");
        // Memory bandwidth caps what more threads add.
        assert_eq!(estimated_speed(64), estimated_speed(10));
        assert_eq!(estimated_speed(0), estimated_speed(1));
    }

    #[test]
    fn each_model_carries_its_expected_speed_scaled_by_its_size() {
        let speed = Speed::measured(20.0, 1 << 30);
        let models = for_machine(Some(24 << 30), speed);
        for m in &models {
            let expected = m.expected_speed.unwrap();
            assert!(expected.measured);
            let want = 20.0 * (1u64 << 30) as f64 / m.size as f64;
            assert!(
                (f64::from(expected.tokens_per_second) - want).abs() < 0.06,
                "{}: {expected:?} vs {want}",
                m.id
            );
        }
        let recommended: Vec<&str> = models
            .iter()
            .filter(|m| m.recommended)
            .map(|m| m.id.as_str())
            .collect();
        assert_eq!(recommended, vec!["qwen3-4b"]);
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
