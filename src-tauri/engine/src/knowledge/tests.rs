//! Knowledge bases across their modules: real files made in a temp folder, a real SQLite file,
//! and the real built-in embedder (multilingual-e5-small GGUF, made by `scripts/deps.sh`).
#![cfg(feature = "local")]

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::embedder::{BuiltinEmbedder, Embedder, Purpose};
use super::{Knowledge, KnowledgeError, Mode};
use crate::store::Store;

/// The embedder GGUF: `SWITCHBOARD_TEST_EMBED_GGUF`, else where `scripts/deps.sh` puts it.
fn embed_gguf() -> PathBuf {
    let path = std::env::var_os("SWITCHBOARD_TEST_EMBED_GGUF")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let home = std::env::var_os("HOME")
                .map(PathBuf::from)
                .unwrap_or_default();
            home.join(".cache/switchboard/models")
                .join(super::embedder::BUILTIN_FILE)
        });
    assert!(
        path.is_file(),
        "{} is missing: run `scripts/deps.sh test` from the repository root",
        path.display()
    );
    path
}

/// One embedder for every test (loading takes a second).
fn embedder() -> Arc<dyn Embedder> {
    static ONE: OnceLock<Arc<BuiltinEmbedder>> = OnceLock::new();
    ONE.get_or_init(|| Arc::new(BuiltinEmbedder::load(&embed_gguf(), Some(2)).unwrap()))
        .clone()
}

async fn service(dir: &Path) -> Knowledge {
    let store = Store::open(&dir.join("kb.db")).await.unwrap();
    Knowledge::with_embedder(store, embedder())
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[tokio::test]
async fn the_builtin_embedder_matches_a_question_to_its_answer_across_english_and_chinese() {
    let e = embedder();
    assert_eq!(e.dimensions(), 384);
    let q = e
        .embed(vec!["How do I reset my password?".into()], Purpose::Query)
        .await
        .unwrap();
    let passages = e
        .embed(
            vec![
                "要重置密码，请打开设置，选择账户，然后点击“忘记密码”。".into(),
                "The museum is open from nine to five on weekdays.".into(),
            ],
            Purpose::Passage,
        )
        .await
        .unwrap();
    let (zh, other) = (cosine(&q[0], &passages[0]), cosine(&q[0], &passages[1]));
    assert!(zh > other + 0.05, "password passage {zh} vs museum {other}");
    assert!(
        (cosine(&q[0], &q[0]) - 1.0).abs() < 1e-3,
        "vectors are unit length"
    );
}

fn write(root: &Path, name: &str, text: &str) {
    let path = root.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn docs(root: &Path) {
    write(
        root,
        "garden.md",
        "# Garden notes\n\n## Tomatoes\n\nWater the tomato plants every morning and tie them to stakes when they reach a foot tall.\n",
    );
    write(
        root,
        "car/service.txt",
        "The car's next oil change is due at 45,000 km. The garage is Miller & Sons on Bridge Street.\n",
    );
    write(
        root,
        "notes/会议.md",
        "# 会议记录\n\n季度预算评审定在三月十五日，由财务部的王经理主持。\n",
    );
    write(root, "fake.txt", "\0\0binary\0");
}

#[tokio::test]
async fn a_folder_is_indexed_and_each_kind_of_question_finds_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("docs");
    docs(&root);
    let kb = service(dir.path()).await;
    kb.create("Home").await.unwrap();
    kb.add_source("home", &root).await.unwrap();
    let report = kb.index("Home").await.unwrap();
    assert_eq!((report.indexed, report.failed), (3, 1), "{report:?}");

    let top = |found: Vec<crate::vocab::knowledge::Passage>| {
        Path::new(&found[0].path)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    };
    // Meaning (no shared word with the file), an exact term, and Chinese.
    let found = kb
        .search(
            "Home",
            "when should I get my vehicle's engine lubricant replaced?",
            3,
            Mode::Hybrid,
        )
        .await
        .unwrap();
    assert_eq!(top(found), "service.txt");
    let found = kb
        .search("Home", "Miller", 3, Mode::Keywords)
        .await
        .unwrap();
    assert_eq!(top(found), "service.txt");
    let found = kb
        .search("Home", "预算评审", 3, Mode::Keywords)
        .await
        .unwrap();
    assert_eq!(top(found.clone()), "会议.md");
    assert_eq!(found[0].title, "会议记录");
    let found = kb
        .search("Home", "who chairs the budget review?", 3, Mode::Vectors)
        .await
        .unwrap();
    assert_eq!(top(found), "会议.md");
    let found = kb.search("Home", "tomato", 1, Mode::Hybrid).await.unwrap();
    // A short file is one chunk: under its first heading, from line 1.
    assert_eq!(found[0].heading.as_deref(), Some("Garden notes"));
    assert_eq!(found[0].line, Some(1));

    let files = kb.files("Home").await.unwrap();
    let fake = files.iter().find(|f| f.path.ends_with("fake.txt")).unwrap();
    assert!(
        fake.error.as_deref().unwrap().contains("binary"),
        "{fake:?}"
    );
}

#[tokio::test]
async fn a_changed_file_is_read_again_alone_and_a_deleted_one_leaves_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("docs");
    docs(&root);
    let kb = service(dir.path()).await;
    kb.create("Home").await.unwrap();
    kb.add_source("Home", &root).await.unwrap();
    kb.index("Home").await.unwrap();

    let again = kb.index("Home").await.unwrap();
    // The binary file is not read again until it changes; it still counts as failed.
    let counts = (again.indexed, again.unchanged, again.removed, again.failed);
    assert_eq!(counts, (0, 4, 0, 1), "{again:?}");

    write(
        &root,
        "car/service.txt",
        "The car was sold in June to a neighbour.\n",
    );
    std::fs::remove_file(root.join("garden.md")).unwrap();
    std::fs::rename(root.join("notes/会议.md"), root.join("notes/budget.md")).unwrap();
    let after = kb.index("Home").await.unwrap();
    assert_eq!((after.indexed, after.removed), (2, 2), "{after:?}");

    assert!(
        kb.search("Home", "tomato", 5, Mode::Keywords)
            .await
            .unwrap()
            .is_empty()
    );
    let sold = kb
        .search("Home", "sold neighbour", 1, Mode::Keywords)
        .await
        .unwrap();
    assert!(sold[0].text.contains("sold in June"));
    let moved = kb.search("Home", "预算", 1, Mode::Keywords).await.unwrap();
    assert!(moved[0].path.ends_with("budget.md"));
}

#[tokio::test]
async fn bad_sources_and_unknown_bases_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let kb = service(dir.path()).await;
    kb.create("Notes").await.unwrap();
    let err = kb.create(" notes ").await.unwrap_err();
    assert!(err.to_string().contains("exists already"), "{err}");
    let err = kb
        .add_source("Notes", Path::new("relative/dir"))
        .await
        .unwrap_err();
    assert!(matches!(err, KnowledgeError::BadSource { .. }), "{err}");
    let err = kb
        .add_source("Notes", &dir.path().join("missing"))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("does not exist"), "{err}");
    let err = kb.search("Nope", "x", 3, Mode::Hybrid).await.unwrap_err();
    assert!(matches!(err, KnowledgeError::NoSuchBase(_)), "{err}");
    kb.delete("Notes").await.unwrap();
    assert!(kb.list().await.unwrap().is_empty());
}

#[tokio::test]
async fn every_base_is_listed_with_its_own_sources_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let kb = service(dir.path()).await;
    for folder in ["b-notes", "a-notes", "c-work"] {
        std::fs::create_dir(dir.path().join(folder)).unwrap();
    }
    kb.create("Work").await.unwrap();
    kb.create("Home").await.unwrap();
    kb.create("Empty").await.unwrap();
    kb.add_source("Home", &dir.path().join("b-notes"))
        .await
        .unwrap();
    kb.add_source("Home", &dir.path().join("a-notes"))
        .await
        .unwrap();
    kb.add_source("Work", &dir.path().join("c-work"))
        .await
        .unwrap();
    let listed: Vec<(String, Vec<String>)> = kb
        .list()
        .await
        .unwrap()
        .into_iter()
        .map(|b| {
            let names = b.sources.iter().map(|s| file_name_of(s)).collect();
            (b.name, names)
        })
        .collect();
    assert_eq!(
        listed,
        [
            ("Empty".to_owned(), vec![]),
            (
                "Home".to_owned(),
                vec!["a-notes".to_owned(), "b-notes".to_owned()]
            ),
            ("Work".to_owned(), vec!["c-work".to_owned()]),
        ]
    );
}

fn file_name_of(path: &str) -> String {
    Path::new(path)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

#[tokio::test]
async fn a_file_written_while_the_base_is_watched_is_indexed_without_asking() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("docs");
    docs(&root);
    let kb = service(dir.path()).await;
    kb.create("Home").await.unwrap();
    kb.add_source("Home", &root).await.unwrap();
    kb.index("Home").await.unwrap();
    let mut events = kb.subscribe();
    kb.rewatch().await;
    write(
        &root,
        "new/plumber.md",
        "# Plumber\n\nCall Ortega Plumbing about the leaking boiler valve.\n",
    );
    let indexed = tokio::time::timeout(std::time::Duration::from_secs(30), async {
        loop {
            if let Ok(super::KnowledgeEvent::Indexed(report)) = events.recv().await
                && report.indexed > 0
            {
                return report;
            }
        }
    })
    .await
    .expect("the change was indexed within 30 s");
    assert_eq!(indexed.indexed, 1, "{indexed:?}");
    let found = kb
        .search("Home", "Ortega", 1, Mode::Keywords)
        .await
        .unwrap();
    assert!(found[0].path.ends_with("plumber.md"));
    // Indexing reads the folder; that must not count as a change and start run after run. A
    // late event of the same write (a busy machine can split one write's events across two
    // debounce windows) may start one more run, which finds nothing to do; then all is quiet.
    if let Ok(extra) = next_run(&mut events).await {
        let report = tokio::time::timeout(std::time::Duration::from_secs(30), async {
            loop {
                if let Ok(super::KnowledgeEvent::Indexed(report)) = events.recv().await {
                    return report;
                }
            }
        })
        .await
        .expect("the extra run ended within 30 s");
        assert_eq!(report.indexed, 0, "{extra:?} then {report:?}");
        let quiet = next_run(&mut events).await;
        assert!(
            quiet.is_err(),
            "a run started with nothing changed: {quiet:?}"
        );
    }
    kb.unwatch();
}

/// The next run's first progress within 6 s (`Err`: none began).
async fn next_run(
    events: &mut tokio::sync::broadcast::Receiver<super::KnowledgeEvent>,
) -> Result<super::IndexProgress, tokio::time::error::Elapsed> {
    tokio::time::timeout(std::time::Duration::from_secs(6), async {
        loop {
            if let Ok(super::KnowledgeEvent::Progress(p)) = events.recv().await {
                return p;
            }
        }
    })
    .await
}

#[tokio::test]
async fn a_folder_that_is_gone_for_now_keeps_its_passages() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("docs");
    docs(&root);
    let kb = service(dir.path()).await;
    kb.create("Home").await.unwrap();
    kb.add_source("Home", &root).await.unwrap();
    kb.index("Home").await.unwrap();
    // An unmounted drive: the folder is not there.
    std::fs::rename(&root, dir.path().join("elsewhere")).unwrap();
    let report = kb.index("Home").await.unwrap();
    assert_eq!(report.removed, 0, "{report:?}");
    let found = kb
        .search("Home", "Miller", 1, Mode::Keywords)
        .await
        .unwrap();
    assert!(found[0].path.ends_with("service.txt"));
}

#[tokio::test]
async fn a_pdf_passage_is_cited_by_its_page() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("docs");
    std::fs::create_dir_all(&root).unwrap();
    let pages = [
        "Warranty terms.",
        "Installation steps.",
        "Descaling: run the Calc program every 200 cycles.",
    ];
    std::fs::write(root.join("manual.pdf"), super::pdf::sample(&pages)).unwrap();
    let kb = service(dir.path()).await;
    kb.create("M").await.unwrap();
    kb.add_source("M", &root).await.unwrap();
    let report = kb.index("M").await.unwrap();
    assert_eq!(report.indexed, 1, "{report:?}");
    let found = kb
        .search("M", "Calc program", 1, Mode::Keywords)
        .await
        .unwrap();
    assert_eq!(
        (found[0].page, found[0].line),
        (Some(1), None),
        "one short chunk starts on page 1"
    );
}

/// A manual whose second section does not name its subject: only its headings say what it is
/// about.
fn manual(subject: &str) -> String {
    let intro = format!("This manual is about the {subject}. ")
        + &"Read every section before first use, keep the receipt with the warranty card, and set the unit on a flat, dry surface away from heat. ".repeat(6);
    let care = "Take out the fine mesh filter, rinse it under warm running water, brush the coarse filter with a soft brush, let both dry and put them back until they click. ".repeat(6);
    format!("# {subject}\n\n## About\n\n{intro}\n\n## Cleaning the filter\n\n{care}\n")
}

#[tokio::test]
async fn a_passage_is_embedded_under_its_headings_so_its_subject_finds_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("docs");
    // The same care section in two manuals: only the headings above it tell them apart.
    write(&root, "a-coffee.md", &manual("Coffee machine"));
    write(&root, "b-dishwasher.md", &manual("Dishwasher"));
    let kb = service(dir.path()).await;
    kb.create("Manuals").await.unwrap();
    kb.add_source("Manuals", &root).await.unwrap();
    let report = kb.index("Manuals").await.unwrap();
    assert_eq!(report.indexed, 2, "{report:?}");
    assert!(
        report.chunks >= 4,
        "each manual is cut in sections: {report:?}"
    );

    // Identical passages tie on their own text, whichever manual is asked about.
    for (question, expected) in [
        ("how do I clean the dishwasher filter", "b-dishwasher.md"),
        ("how do I clean the coffee machine filter", "a-coffee.md"),
    ] {
        let found = kb
            .search("Manuals", question, 10, Mode::Vectors)
            .await
            .unwrap();
        let care: Vec<_> = found
            .iter()
            .filter(|p| p.text.contains("mesh filter"))
            .collect();
        assert_eq!(care.len(), 2, "{found:?}");
        assert!(care[0].path.ends_with(expected), "{question}: {found:?}");
    }
}
