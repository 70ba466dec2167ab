//! Knowledge bases: search at scale, indexing speed against llama-cpp-python, and retrieval
//! quality on public data (BEIR SciFact), and a question's embedding alone. Four parts, chosen
//! with `SWITCHBOARD_KB_PARTS=scale,speed,quality,query` (the first three unless told); medians with their spread
//! (min–max) over `SWITCHBOARD_BENCH_RUNS` runs (3 unless told); nothing is asserted. The
//! embedder is the built-in multilingual-e5-small GGUF (`SWITCHBOARD_EMBED_GGUF`, else
//! ~/.cache/switchboard/models) on 2 threads throughout.
//!
//! - **scale**: a base of 100,000 chunks (2,000 files × 50; ~60 words each from a fixed made-up
//!   vocabulary of 5,000 words with some Chinese; random unit vectors of 384 values, as int8)
//!   written straight through the store into a real SQLite file (timed), then, in a fresh
//!   process per run, 200 searches of 2–5 vocabulary words (10 passages) through
//!   [`Knowledge::search`] with the real embedder embedding each question: p50 and p95 for
//!   hybrid, keywords alone and vectors alone, and resident memory idle after opening against
//!   its peak while searching (VmRSS after every search, and VmHWM).
//! - **speed**: the same 1,000 passages (SciFact's first 1,000 documents when the data is
//!   there, else the repository's docs cut into ~1,000-character pieces; each cut to e5's 512
//!   tokens) embedded in groups of 32 by the built-in embedder and by llama-cpp-python
//!   (`bench/knowledge/llama_embed.py`: the same GGUF, threads, context, batch and mean pooling)
//!   in chunks per second, after checking that both make the same vectors.
//! - **quality**: SciFact's 5,183 abstracts indexed through [`Knowledge`] as one file each
//!   (chunks per second), then its 300 test queries in each mode: nDCG@10 and recall@10 by
//!   document. Once (not `RUNS` times); results also go to `bench/knowledge/results/`. Needs
//!   `SWITCHBOARD_SCIFACT_DIR` (corpus.jsonl, queries.jsonl, qrels/test.tsv, BEIR's layout),
//!   made outside the repository by `bench/knowledge/scifact.py`.
//! - **query**: 200 questions embedded one at a time on the question lane (one thread, as
//!   searches do) and on the passage lane (2 threads): p50 and p95 of each.
//!
//! `make bench-knowledge` (RUNS=N, PARTS=scale,speed,quality); underneath
//! `SWITCHBOARD_LLAMA_PYTHON=… SWITCHBOARD_SCIFACT_DIR=… SWITCHBOARD_BENCH_RUNS=R cargo bench
//! -p switchboard-engine --bench knowledge` (release build; llama-cpp-python is skipped when
//! `SWITCHBOARD_LLAMA_PYTHON` is unset). On a slow machine `SWITCHBOARD_KB_QUESTIONS`,
//! `SWITCHBOARD_KB_PASSAGES` and `SWITCHBOARD_KB_DOCS` (every judged document and the first
//! others up to that many) make the parts smaller; the output says so.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use switchboard_engine::Store;
use switchboard_engine::knowledge::embedder::{BuiltinEmbedder, Embedder, Purpose, builtin_path};
use switchboard_engine::knowledge::keywords::{indexed_text, match_expression};
use switchboard_engine::knowledge::vectors::quantize;
use switchboard_engine::knowledge::{Knowledge, Mode};
use switchboard_engine::store::{ChunkWrite, FileWrite};

/// CPU threads for every embedder, ours and theirs.
const THREADS: i32 = 2;
/// Texts per embedding request in the speed part.
const GROUP: usize = 32;

const FILES: usize = 2_000;
const CHUNKS_PER_FILE: usize = 50;
const WORDS_PER_CHUNK: usize = 60;
const VOCABULARY: usize = 5_000;
const DIMENSIONS: usize = 384;
/// Questions a mode in the scale part (`SWITCHBOARD_KB_QUESTIONS` for fewer).
const QUESTIONS: usize = 200;
/// Passages in the speed part (`SWITCHBOARD_KB_PASSAGES` for fewer).
const PASSAGES: usize = 1_000;
/// e5's longest input (its position table), the prefix and start and end tokens included.
const MAX_TOKENS: usize = 512;

/// Set in the child process that runs one scale run's searches: the database to open.
const CHILD_DB: &str = "SWITCHBOARD_KB_SCALE_DB";
/// How the child hands its figures back, one line on stdout.
const CHILD_MARK: &str = "KB_SCALE_RESULT ";

const MODES: [(Mode, &str); 3] = [
    (Mode::Keywords, "keywords"),
    (Mode::Vectors, "vectors"),
    (Mode::Hybrid, "hybrid"),
];

/// A size from the environment (`name`), else `default`: a smaller run on a slow machine.
fn size(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n: &usize| *n >= 1)
        .unwrap_or(default)
}

fn runs() -> usize {
    std::env::var("SWITCHBOARD_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n: &usize| *n >= 1)
        .unwrap_or(3)
}

fn parts() -> Vec<String> {
    let asked = std::env::var("SWITCHBOARD_KB_PARTS").unwrap_or_default();
    let asked: Vec<String> = asked
        .split(',')
        .map(|p| p.trim().to_lowercase())
        .filter(|p| !p.is_empty())
        .collect();
    if asked.is_empty() {
        vec!["scale".into(), "speed".into(), "quality".into()]
    } else {
        asked
    }
}

fn gguf() -> PathBuf {
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("/"), PathBuf::from);
    builtin_path(&home.join(".cache/switchboard/models"), None)
}

fn load_embedder() -> Arc<dyn Embedder> {
    let path = gguf();
    Arc::new(BuiltinEmbedder::load(&path, Some(THREADS)).unwrap())
}

/// Where results are saved (in the repository: figures only, never data).
fn results_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/knowledge/results")
}

fn save(part: &str, mut value: Value) {
    let date = jiff::Zoned::now().strftime("%Y-%m-%d").to_string();
    value["date"] = json!(date);
    value["part"] = json!(part);
    value["runs"] = json!(runs());
    value["threads"] = json!(THREADS);
    value["embedder"] = json!(gguf().file_name().map(|n| n.to_string_lossy().into_owned()));
    let dir = results_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{part}-{date}.json"));
    std::fs::write(&path, serde_json::to_string_pretty(&value).unwrap() + "\n").unwrap();
    println!("  saved {}", path.canonicalize().unwrap_or(path).display());
}

// ---------------------------------------------------------------------------------------------
// Figures.

/// Median, min and max of `samples`.
fn spread(samples: &[f64]) -> (f64, f64, f64) {
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    (s[s.len() / 2], s[0], s[s.len() - 1])
}

/// "12.3 ms (11.9–13.0, 3 runs)" with `digits` decimals.
fn shown(samples: &[f64], unit: &str, digits: usize) -> String {
    let (median, min, max) = spread(samples);
    format!(
        "{median:.digits$}{unit} ({min:.digits$}–{max:.digits$}, {} runs)",
        samples.len()
    )
}

/// The nearest-rank percentile `p` (0–100) of `samples`.
fn percentile(samples: &[f64], p: f64) -> f64 {
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * s.len() as f64).ceil() as usize;
    s[rank.clamp(1, s.len()) - 1]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// A field of /proc/self/status in KiB ("VmRSS", "VmHWM").
fn status_kib(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with(&format!("{field}:")))
        .unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Resets the process's peak-memory mark (VmHWM) to its current resident size (Linux).
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn mib(kib: f64) -> f64 {
    kib / 1024.0
}

/// The cosine of two vectors.
fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum();
    let na: f64 = a.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    dot / (na * nb)
}

// ---------------------------------------------------------------------------------------------
// Scale.

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A standard normal value (Box–Muller).
    fn normal(&mut self) -> f32 {
        let u1 = self.unit().max(f64::MIN_POSITIVE);
        let u2 = self.unit();
        ((-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()) as f32
    }
}

/// The made-up vocabulary: 5,000 distinct words, 2–4 syllables each, the last 60 of them
/// Chinese words of two characters.
fn vocabulary() -> Vec<String> {
    const CONSONANTS: &[char] = &[
        'b', 'd', 'f', 'g', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'z',
    ];
    const VOWELS: &[char] = &['a', 'e', 'i', 'o', 'u'];
    const HAN: &[char] = &[
        '知', '识', '库', '搜', '索', '模', '型', '向', '量', '文', '档', '天', '气', '服', '务',
        '器', '工', '具', '结', '果', '数', '据', '网', '络', '语', '言', '学', '习', '系', '统',
    ];
    let mut rng = Rng(0x5EED_0001);
    let mut seen = HashSet::new();
    let mut words = Vec::with_capacity(VOCABULARY);
    while words.len() < VOCABULARY - 60 {
        let syllables = 2 + rng.below(3);
        let word: String = (0..syllables)
            .flat_map(|_| {
                [
                    CONSONANTS[rng.below(CONSONANTS.len())],
                    VOWELS[rng.below(VOWELS.len())],
                ]
            })
            .collect();
        if seen.insert(word.clone()) {
            words.push(word);
        }
    }
    while words.len() < VOCABULARY {
        let word: String = [HAN[rng.below(HAN.len())], HAN[rng.below(HAN.len())]]
            .iter()
            .collect();
        if seen.insert(word.clone()) {
            words.push(word);
        }
    }
    // Mixed in, so that frequent and rare words are of both kinds.
    let mut shuffled = Vec::with_capacity(words.len());
    while !words.is_empty() {
        let i = rng.below(words.len());
        shuffled.push(words.swap_remove(i));
    }
    shuffled
}

/// A chunk's text: `WORDS_PER_CHUNK` words, frequent ones more often (index ∝ u²).
fn chunk_text(rng: &mut Rng, words: &[String]) -> String {
    let mut text = String::new();
    for i in 0..WORDS_PER_CHUNK {
        let u = rng.unit();
        let word = &words[((u * u) * words.len() as f64) as usize % words.len()];
        if i > 0 {
            text.push(if i % 12 == 0 { '\n' } else { ' ' });
        }
        text.push_str(word);
    }
    text
}

/// A random unit vector of `DIMENSIONS` values.
fn unit_vector(rng: &mut Rng) -> Vec<f32> {
    let v: Vec<f32> = (0..DIMENSIONS).map(|_| rng.normal()).collect();
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter().map(|x| x / norm).collect()
}

/// The questions: 2–5 words of the vocabulary each, the same every run.
fn questions(words: &[String]) -> Vec<String> {
    let mut rng = Rng(0x5EED_0002);
    (0..size("SWITCHBOARD_KB_QUESTIONS", QUESTIONS))
        .map(|_| {
            let n = 2 + rng.below(4);
            (0..n)
                .map(|_| words[rng.below(words.len())].as_str())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// Writes the 100,000-chunk base into a new database at `db`; returns the time spent in
/// `put_knowledge_file` (text and vectors made outside it).
async fn build_scale_base(db: &Path, embedder_id: &str) -> Duration {
    let store = Store::open(db).await.unwrap();
    let base = store
        .create_knowledge_base("scale", embedder_id)
        .await
        .unwrap();
    // Before the chunks: a base given an embedder drops the vectors it had.
    store
        .set_knowledge_embedder(base.id, embedder_id, DIMENSIONS as u32)
        .await
        .unwrap();
    let words = vocabulary();
    let mut rng = Rng(0x5EED_0003);
    let mut spent = Duration::ZERO;
    for f in 0..FILES {
        let chunks: Vec<ChunkWrite> = (0..CHUNKS_PER_FILE)
            .map(|c| {
                let text = chunk_text(&mut rng, &words);
                let (scale, bytes) = quantize(&unit_vector(&mut rng));
                ChunkWrite {
                    keywords: indexed_text(&text),
                    text,
                    line: Some((c * 6 + 1) as u32),
                    page: None,
                    heading: Some(format!("Part {}", c / 10 + 1)),
                    scale,
                    vector: Some(bytes),
                }
            })
            .collect();
        let size: usize = chunks.iter().map(|c| c.text.len() + 1).sum();
        let file = FileWrite {
            path: format!("/bench/scale/notes-{f:04}.md"),
            size: size as i64,
            modified_ns: 1_700_000_000_000_000_000,
            sha256: Some(format!("{f:064x}")),
            kind: Some("markdown".into()),
            title: None,
            error: None,
        };
        let started = Instant::now();
        store
            .put_knowledge_file(base.id, &file, &chunks)
            .await
            .unwrap();
        spent += started.elapsed();
    }
    store.close().await;
    spent
}

/// One scale run's searches, in this (child) process: opens `db`, then searches in each mode.
async fn scale_child(db: &Path) {
    let embedder = load_embedder();
    let store = Store::open(db).await.unwrap();
    let knowledge = Knowledge::with_embedder(store.clone(), embedder.clone());
    knowledge.embedder().await.unwrap();
    // The embedder's first decode allocates its buffers: done before the idle figure.
    embedder
        .embed(vec!["warm up".into()], Purpose::Query)
        .await
        .unwrap();
    let words = vocabulary();
    let questions = questions(&words);
    reset_peak();
    let idle = status_kib("VmRSS");
    let started = Instant::now();
    let first = knowledge
        .search("scale", &questions[0], 10, Mode::Hybrid)
        .await
        .unwrap();
    let first_ms = ms(started.elapsed());
    let mut peak = status_kib("VmRSS");
    let mut latencies: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let mut found: BTreeMap<&str, usize> = BTreeMap::new();
    for (mode, name) in MODES {
        for question in &questions {
            let started = Instant::now();
            let passages = knowledge.search("scale", question, 10, mode).await.unwrap();
            latencies
                .entry(name)
                .or_default()
                .push(ms(started.elapsed()));
            *found.entry(name).or_default() += passages.len();
            peak = peak.max(status_kib("VmRSS"));
        }
        let took = &latencies[name];
        eprintln!(
            "    {name}: p50 {:.1} ms, p95 {:.1} ms",
            percentile(took, 50.0),
            percentile(took, 95.0)
        );
    }
    let breakdown = breakdown(&store, &embedder, &questions).await;
    let result = json!({
        "breakdown_p50_ms": breakdown,
        "first_ms": first_ms,
        "first_found": first.len(),
        "latencies_ms": latencies,
        "found": found,
        "idle_kib": idle,
        "peak_kib": peak,
        "hwm_kib": status_kib("VmHWM"),
    });
    println!("{CHILD_MARK}{result}");
}

/// Where a search's time goes, step by step as [`Knowledge::search`] takes them (p50 and p95
/// over the questions, ms): finding the base by name, embedding the question, scanning the
/// vectors, the keyword query, and reading the 10 passages back.
async fn breakdown(store: &Store, embedder: &Arc<dyn Embedder>, questions: &[String]) -> Value {
    let base = store.knowledge_base_named("scale").await.unwrap().unwrap();
    let width = base.dimensions as usize;
    let vectors = switchboard_engine::knowledge::vectors::VectorSet::new(
        width,
        store.knowledge_vectors(base.id, width).await.unwrap(),
    );
    let mut steps: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for question in questions {
        let started = Instant::now();
        store.knowledge_base_named("scale").await.unwrap();
        steps.entry("base").or_default().push(ms(started.elapsed()));
        let started = Instant::now();
        let query = embedder
            .embed(vec![question.clone()], Purpose::Query)
            .await
            .unwrap();
        steps
            .entry("embed")
            .or_default()
            .push(ms(started.elapsed()));
        let started = Instant::now();
        std::hint::black_box(vectors.nearest(&query[0], 50));
        steps.entry("scan").or_default().push(ms(started.elapsed()));
        let Some(expression) = match_expression(question) else {
            continue;
        };
        let started = Instant::now();
        let found = store
            .knowledge_keyword_search(base.id, &expression, 50)
            .await
            .unwrap();
        steps
            .entry("keywords")
            .or_default()
            .push(ms(started.elapsed()));
        let ids: Vec<i64> = found.iter().take(10).map(|f| f.0).collect();
        let started = Instant::now();
        store.knowledge_chunks(&ids).await.unwrap();
        steps
            .entry("passages")
            .or_default()
            .push(ms(started.elapsed()));
    }
    let at = |p: f64| -> BTreeMap<&str, f64> {
        steps
            .iter()
            .map(|(step, took)| (*step, percentile(took, p)))
            .collect()
    };
    let (medians, tails) = (at(50.0), at(95.0));
    eprintln!("    steps (p50): {medians:.1?}");
    eprintln!("    steps (p95): {tails:.1?}");
    json!(medians)
}

async fn scale(runs: usize) {
    let questions = size("SWITCHBOARD_KB_QUESTIONS", QUESTIONS);
    println!(
        "scale: {} chunks ({FILES} files × {CHUNKS_PER_FILE}, {WORDS_PER_CHUNK} words, {DIMENSIONS}-value vectors), {questions} questions a mode, 10 passages each",
        FILES * CHUNKS_PER_FILE
    );
    let embedder = load_embedder();
    let (embedder_id, width) = (embedder.id(), embedder.dimensions());
    drop(embedder);
    assert_eq!(width, DIMENSIONS, "the embedder's vectors are {width} long");
    let mut inserts = Vec::new();
    let mut children: Vec<Value> = Vec::new();
    for run in 1..=runs {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("switchboard.db");
        let spent = build_scale_base(&db, &embedder_id).await;
        inserts.push(spent.as_secs_f64());
        let db_mib = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok()?.metadata().ok())
            .map(|m| m.len() as f64)
            .sum::<f64>()
            / 1_048_576.0;
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(std::env::args_os().skip(1))
            .env(CHILD_DB, &db)
            .stderr(std::process::Stdio::inherit())
            .output()
            .unwrap();
        assert!(out.status.success(), "the search process failed");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let line = stdout
            .lines()
            .find_map(|l| l.strip_prefix(CHILD_MARK))
            .expect("the search process gave no figures");
        let mut child: Value = serde_json::from_str(line).unwrap();
        child["insert_s"] = json!(spent.as_secs_f64());
        child["db_mib"] = json!(db_mib);
        println!(
            "  run {run}/{runs}: insert {:.1} s, database {db_mib:.0} MiB, first search {:.0} ms",
            spent.as_secs_f64(),
            child["first_ms"].as_f64().unwrap_or_default()
        );
        children.push(child);
    }
    let total = (FILES * CHUNKS_PER_FILE) as f64;
    let rates: Vec<f64> = inserts.iter().map(|s| total / s).collect();
    println!(
        "  insert (put_knowledge_file, 100,000 chunks with keyword rows): {}; {} chunks/s",
        shown(&inserts, " s", 1),
        shown(&rates, "", 0)
    );
    let firsts: Vec<f64> = children
        .iter()
        .map(|c| c["first_ms"].as_f64().unwrap())
        .collect();
    println!(
        "  first search (reads the 100,000 vectors into memory): {}",
        shown(&firsts, " ms", 0)
    );
    for step in ["base", "embed", "keywords", "passages"] {
        let took: Vec<f64> = children
            .iter()
            .filter_map(|c| c["breakdown_p50_ms"][step].as_f64())
            .collect();
        if !took.is_empty() {
            println!("  step {step:<8} p50 {}", shown(&took, " ms", 1));
        }
    }
    let mut summary = json!({});
    for (_, name) in MODES {
        let of = |c: &Value| -> Vec<f64> {
            c["latencies_ms"][name]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect()
        };
        let p50: Vec<f64> = children.iter().map(|c| percentile(&of(c), 50.0)).collect();
        let p95: Vec<f64> = children.iter().map(|c| percentile(&of(c), 95.0)).collect();
        let found: f64 = children
            .iter()
            .map(|c| c["found"][name].as_f64().unwrap())
            .sum::<f64>()
            / (children.len() * questions) as f64;
        println!(
            "  {name:<8} p50 {}, p95 {}; {found:.1} passages a search",
            shown(&p50, " ms", 1),
            shown(&p95, " ms", 1)
        );
        summary[name] = json!({"p50_ms": p50, "p95_ms": p95, "passages": found});
    }
    let kib = |key: &str| -> Vec<f64> {
        children
            .iter()
            .map(|c| mib(c[key].as_f64().unwrap()))
            .collect()
    };
    let (idle, peak, hwm) = (kib("idle_kib"), kib("peak_kib"), kib("hwm_kib"));
    let grew: Vec<f64> = peak.iter().zip(&idle).map(|(p, i)| p - i).collect();
    let grew_hwm: Vec<f64> = hwm.iter().zip(&idle).map(|(p, i)| p - i).collect();
    println!(
        "  resident memory: idle after opening (store, embedder loaded) {}; peak while searching {} (VmHWM {}); grew {} (by VmHWM {})",
        shown(&idle, " MiB", 0),
        shown(&peak, " MiB", 0),
        shown(&hwm, " MiB", 0),
        shown(&grew, " MiB", 0),
        shown(&grew_hwm, " MiB", 0)
    );
    summary["breakdown_p50_ms"] = json!(
        children
            .iter()
            .map(|c| c["breakdown_p50_ms"].clone())
            .collect::<Vec<_>>()
    );
    summary["insert_s"] = json!(inserts);
    summary["first_search_ms"] = json!(firsts);
    summary["idle_mib"] = json!(idle);
    summary["peak_mib"] = json!(peak);
    summary["hwm_mib"] = json!(hwm);
    summary["chunks"] = json!(FILES * CHUNKS_PER_FILE);
    save("scale", summary);
}

// ---------------------------------------------------------------------------------------------
// Speed.

/// SciFact's documents as (id, title, text), in file order.
fn scifact_corpus(dir: &Path) -> Vec<(String, String, String)> {
    std::fs::read_to_string(dir.join("corpus.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let field = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
            (field("_id"), field("title"), field("text"))
        })
        .collect()
}

fn scifact_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os("SWITCHBOARD_SCIFACT_DIR")?);
    let complete = ["corpus.jsonl", "queries.jsonl", "qrels/test.tsv"]
        .iter()
        .all(|f| dir.join(f).is_file());
    complete.then_some(dir)
}

/// The repository's own docs (README.md, docs/*.md by name) cut into ~1,000-character pieces
/// at a space or line end.
fn repo_passages(count: usize) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    let mut pieces = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let mut rest = text.as_str();
        while !rest.trim().is_empty() {
            let mut cut = rest.len();
            if rest.len() > 1_000 {
                let mut at = 1_000;
                while !rest.is_char_boundary(at) {
                    at -= 1;
                }
                cut = rest[..at]
                    .rfind([' ', '\n'])
                    .filter(|&i| i > 500)
                    .unwrap_or(at);
            }
            pieces.push(rest[..cut].trim().to_owned());
            rest = &rest[cut..];
        }
    }
    pieces.retain(|p| !p.is_empty());
    pieces.truncate(count);
    pieces
}

/// `text` cut (by characters) so that "passage: " + it is under `MAX_TOKENS` tokens, so both
/// embedders see all of it: ours would cut a longer text to 512 tokens, llama-cpp-python
/// would pass it whole and fail (e5's position table has 512 rows). `count_tokens` counts at
/// most 512 (it counts the tokens the embedder keeps), so a fit is a count under that.
fn fit(embedder: &dyn Embedder, text: &str) -> (String, bool) {
    let tokens = |t: &str| embedder.count_tokens(&format!("passage: {t}"));
    if tokens(text) < MAX_TOKENS {
        return (text.to_owned(), false);
    }
    let chars: Vec<char> = text.chars().collect();
    let (mut lo, mut hi) = (0, chars.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        let candidate: String = chars[..mid].iter().collect();
        if tokens(&candidate) < MAX_TOKENS {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    (
        chars[..lo].iter().collect::<String>().trim_end().to_owned(),
        true,
    )
}

/// Runs llama_embed.py on `texts_file`: (seconds, vectors asked for).
fn theirs(python: &str, texts_file: &Path, vectors: usize) -> (f64, usize, Vec<Vec<f32>>) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/knowledge/llama_embed.py");
    let out = std::process::Command::new(python)
        .arg(script)
        .arg(gguf())
        .arg(texts_file)
        .args(["--threads", &THREADS.to_string()])
        .args(["--group", &GROUP.to_string()])
        .args(["--vectors", &vectors.to_string()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "llama_embed.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let found = v["vectors"]
        .as_array()
        .map(|all| {
            all.iter()
                .map(|row| {
                    row.as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_f64().unwrap() as f32)
                        .collect()
                })
                .collect()
        })
        .unwrap_or_default();
    (
        v["seconds"].as_f64().unwrap(),
        v["chunks"].as_u64().unwrap() as usize,
        found,
    )
}

async fn speed(runs: usize) {
    let passages = size("SWITCHBOARD_KB_PASSAGES", PASSAGES);
    let embedder = load_embedder();
    let (source, raw): (&str, Vec<String>) = match scifact_dir() {
        Some(dir) => (
            "SciFact's first documents (title and text)",
            scifact_corpus(&dir)
                .into_iter()
                .take(passages)
                .map(|(_, title, text)| format!("{title} {text}"))
                .collect(),
        ),
        None => (
            "the repository's README.md and docs/*.md in ~1,000-character pieces",
            repo_passages(passages),
        ),
    };
    let mut cut = 0;
    let passages: Vec<String> = raw
        .iter()
        .map(|t| {
            let (text, was_cut) = fit(embedder.as_ref(), t);
            cut += usize::from(was_cut);
            text
        })
        .collect();
    let tokens: usize = passages
        .iter()
        .map(|t| embedder.count_tokens(&format!("passage: {t}")))
        .sum();
    println!(
        "speed: {} passages from {source}; {cut} cut under {MAX_TOKENS} tokens; {tokens} tokens ({:.0} a passage); groups of {GROUP}, {THREADS} threads",
        passages.len(),
        tokens as f64 / passages.len() as f64
    );
    let dir = tempfile::tempdir().unwrap();
    let texts_file = dir.path().join("texts.json");
    std::fs::write(&texts_file, serde_json::to_vec(&passages).unwrap()).unwrap();
    let python = std::env::var("SWITCHBOARD_LLAMA_PYTHON").ok();

    // The same vectors first.
    const CHECKED: usize = 5;
    let mut agreement = Vec::new();
    if let Some(python) = &python {
        let sample = dir.path().join("sample.json");
        let mut texts = passages[..CHECKED].to_vec();
        // A short text and a Chinese one too.
        texts.push("How do I reset my password?".into());
        texts.push("知识库把用户的文件夹变成可以搜索的资料。".into());
        std::fs::write(&sample, serde_json::to_vec(&texts).unwrap()).unwrap();
        let ours = embedder
            .embed(texts.clone(), Purpose::Passage)
            .await
            .unwrap();
        let (_, _, theirs_v) = theirs(python, &sample, texts.len());
        agreement = ours
            .iter()
            .zip(&theirs_v)
            .map(|(a, b)| cosine(a, b))
            .collect();
        let (_, min, max) = spread(&agreement);
        println!(
            "  same vectors? cosine ours · llama-cpp-python over {} texts: min {min:.4}, max {max:.4}",
            agreement.len()
        );
    }

    // Warm-up: the first decode allocates.
    embedder
        .embed(passages[..GROUP].to_vec(), Purpose::Passage)
        .await
        .unwrap();
    let mut ours_rates = Vec::new();
    let mut theirs_rates = Vec::new();
    for run in 1..=runs {
        let started = Instant::now();
        for group in passages.chunks(GROUP) {
            embedder
                .embed(group.to_vec(), Purpose::Passage)
                .await
                .unwrap();
        }
        let ours_s = started.elapsed().as_secs_f64();
        ours_rates.push(passages.len() as f64 / ours_s);
        let mut line = format!("  run {run}/{runs}: ours {ours_s:.1} s");
        if let Some(python) = &python {
            let (theirs_s, chunks, _) = theirs(python, &texts_file, 0);
            theirs_rates.push(chunks as f64 / theirs_s);
            line.push_str(&format!(", llama-cpp-python {theirs_s:.1} s"));
        }
        println!("{line}");
    }
    println!(
        "  Switchboard (built-in embedder): {} chunks/s",
        shown(&ours_rates, "", 1)
    );
    let mut summary = json!({
        "source": source,
        "passages": passages.len(),
        "tokens": tokens,
        "cut": cut,
        "ours_chunks_per_s": ours_rates,
        "cosine": agreement,
    });
    if python.is_some() {
        println!(
            "  llama-cpp-python 0.3.36:         {} chunks/s",
            shown(&theirs_rates, "", 1)
        );
        let ratios: Vec<f64> = ours_rates
            .iter()
            .zip(&theirs_rates)
            .map(|(a, b)| a / b)
            .collect();
        println!(
            "  ours ÷ theirs: {:.2}× (medians); per run {}",
            spread(&ours_rates).0 / spread(&theirs_rates).0,
            shown(&ratios, "×", 2)
        );
        summary["theirs_chunks_per_s"] = json!(theirs_rates);
    } else {
        println!("  (no SWITCHBOARD_LLAMA_PYTHON: llama-cpp-python skipped)");
    }
    save("speed", summary);
}

// ---------------------------------------------------------------------------------------------
// Quality.

/// nDCG@10 (binary gains) and recall@10 of `ranked` document ids against `relevant`.
fn ndcg_recall(ranked: &[String], relevant: &HashSet<String>) -> (f64, f64) {
    let gain = |i: usize| 1.0 / ((i + 2) as f64).log2();
    let dcg: f64 = ranked
        .iter()
        .take(10)
        .enumerate()
        .filter(|(_, d)| relevant.contains(*d))
        .map(|(i, _)| gain(i))
        .sum();
    let ideal: f64 = (0..relevant.len().min(10)).map(gain).sum();
    let hits = ranked
        .iter()
        .take(10)
        .filter(|d| relevant.contains(*d))
        .count();
    (dcg / ideal, hits as f64 / relevant.len() as f64)
}

async fn quality() {
    let Some(dir) = scifact_dir() else {
        println!(
            "quality: skipped (SWITCHBOARD_SCIFACT_DIR is not a folder with corpus.jsonl, queries.jsonl and qrels/test.tsv; \
             make one with `python3 bench/knowledge/scifact.py --corpus-csv PATH`)"
        );
        return;
    };
    let corpus = scifact_corpus(&dir);
    let queries: HashMap<String, String> = std::fs::read_to_string(dir.join("queries.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (
                v["_id"].as_str().unwrap().to_owned(),
                v["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let mut qrels: BTreeMap<String, HashSet<String>> = BTreeMap::new();
    for line in std::fs::read_to_string(dir.join("qrels/test.tsv"))
        .unwrap()
        .lines()
        .skip(1)
    {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() == 3 && f[2].trim().parse::<f64>().unwrap_or(0.0) > 0.0 {
            qrels
                .entry(f[0].to_owned())
                .or_default()
                .insert(f[1].to_owned());
        }
    }
    // SWITCHBOARD_KB_DOCS=N: every judged document and the first others up to N (a quicker
    // check of the modes against each other; not comparable with full-corpus figures).
    let full = corpus.len();
    let corpus: Vec<(String, String, String)> = match std::env::var("SWITCHBOARD_KB_DOCS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        Some(limit) if limit < full => {
            let judged: HashSet<&String> = qrels.values().flatten().collect();
            let mut others = limit.saturating_sub(judged.len());
            corpus
                .into_iter()
                .filter(|(id, _, _)| {
                    judged.contains(id)
                        || (others > 0 && {
                            others -= 1;
                            true
                        })
                })
                .collect()
        }
        _ => corpus,
    };
    let mut tests: Vec<(&String, &String)> = qrels
        .keys()
        .filter_map(|q| queries.get_key_value(q))
        .collect();
    tests.sort_by_key(|(q, _)| q.parse::<u64>().unwrap_or(u64::MAX));
    let subset = if corpus.len() < full {
        format!(
            " (a subset of {full}: every judged one and the first others; not comparable with full-corpus figures)"
        )
    } else {
        String::new()
    };
    println!(
        "quality: BEIR SciFact, {} documents{subset}, {} test queries with judgements; nDCG@10 and recall@10 by document",
        corpus.len(),
        tests.len()
    );

    let work = tempfile::tempdir().unwrap();
    let docs = work.path().join("scifact");
    std::fs::create_dir(&docs).unwrap();
    for (id, title, text) in &corpus {
        std::fs::write(docs.join(format!("{id}.txt")), format!("{title}\n\n{text}")).unwrap();
    }
    let store = Store::open(&work.path().join("switchboard.db"))
        .await
        .unwrap();
    let knowledge = Knowledge::with_embedder(store, load_embedder());
    knowledge.create("scifact").await.unwrap();
    knowledge.add_source("scifact", &docs).await.unwrap();
    let started = Instant::now();
    let report = knowledge.index("scifact").await.unwrap();
    let index_s = started.elapsed().as_secs_f64();
    println!(
        "  indexed {} files ({} failed) into {} chunks in {index_s:.0} s: {:.1} chunks/s, {:.1} documents/s",
        report.indexed,
        report.failed,
        report.chunks,
        f64::from(report.chunks) / index_s,
        f64::from(report.indexed) / index_s
    );

    let mut table = json!({});
    println!("  mode       nDCG@10  recall@10  search p50");
    for (mode, name) in MODES {
        let (mut ndcg, mut recall, mut took) = (0.0, 0.0, Vec::new());
        for (qid, question) in &tests {
            let started = Instant::now();
            let passages = knowledge
                .search("scifact", question, 50, mode)
                .await
                .unwrap();
            took.push(ms(started.elapsed()));
            let mut seen = HashSet::new();
            let ranked: Vec<String> = passages
                .iter()
                .filter_map(|p| {
                    Some(
                        Path::new(&p.path)
                            .file_stem()?
                            .to_string_lossy()
                            .into_owned(),
                    )
                })
                .filter(|d| seen.insert(d.clone()))
                .take(10)
                .collect();
            let (n, r) = ndcg_recall(&ranked, &qrels[*qid]);
            ndcg += n;
            recall += r;
        }
        let count = tests.len() as f64;
        let (ndcg, recall) = (ndcg / count, recall / count);
        let p50 = percentile(&took, 50.0);
        println!("  {name:<9}  {ndcg:.4}   {recall:.4}     {p50:.0} ms");
        table[name] = json!({"ndcg@10": ndcg, "recall@10": recall, "search_p50_ms": p50});
    }
    save(
        "quality",
        json!({
            "dataset": "BEIR SciFact (test)",
            "documents": corpus.len(),
            "corpus_documents": full,
            "queries": tests.len(),
            "indexed_files": report.indexed,
            "failed_files": report.failed,
            "chunks": report.chunks,
            "index_s": index_s,
            "chunks_per_s": f64::from(report.chunks) / index_s,
            "results": table,
        }),
    );
}

/// How long one question takes to embed, alone: on the question lane (one thread, as
/// searches do) and on the passage lane (all [`THREADS`]), the choice `local::embed` makes.
async fn query_latency(runs: usize) {
    let questions = questions(&vocabulary());
    println!(
        "query: {} questions, embedded one at a time; question lane (1 thread) and passage lane ({THREADS} threads)",
        questions.len()
    );
    let mut figures = serde_json::Map::new();
    for (lane, purpose) in [
        ("question_lane", Purpose::Query),
        ("passage_lane", Purpose::Passage),
    ] {
        let (mut p50s, mut p95s) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            let embedder = load_embedder();
            let mut took = Vec::new();
            for (i, question) in questions.iter().enumerate() {
                let started = Instant::now();
                embedder
                    .embed(vec![question.clone()], purpose)
                    .await
                    .unwrap();
                if i >= 5 {
                    took.push(ms(started.elapsed()));
                }
            }
            p50s.push(percentile(&took, 50.0));
            p95s.push(percentile(&took, 95.0));
        }
        println!(
            "  {lane}: p50 {}  p95 {}",
            shown(&p50s, "ms", 1),
            shown(&p95s, "ms", 1)
        );
        figures.insert(lane.into(), json!({"p50_ms": p50s, "p95_ms": p95s}));
    }
    save("query", Value::Object(figures));
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    if let Some(db) = std::env::var_os(CHILD_DB) {
        runtime.block_on(scale_child(Path::new(&db)));
        return;
    }
    let runs = runs();
    let parts = parts();
    println!(
        "knowledge bench: parts {}, {runs} runs, embedder {}",
        parts.join(","),
        gguf().display()
    );
    runtime.block_on(async {
        for part in &parts {
            match part.as_str() {
                "scale" => scale(runs).await,
                "speed" => speed(runs).await,
                "quality" => quality().await,
                "query" => query_latency(runs).await,
                other => println!("unknown part {other:?} (scale, speed, quality, query)"),
            }
        }
    });
}
