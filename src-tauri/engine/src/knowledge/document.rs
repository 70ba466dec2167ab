//! A file of a knowledge base read as text, by its kind: Markdown and plain text as they are,
//! source code as lines, HTML turned into Markdown (`htmd`, without scripts, styles and the
//! head), PDF page by page (`pdf`, each page's start kept for citations), DOCX and EPUB from
//! their XML (`packaged`). A binary file (a NUL byte or invalid UTF-8 in its first 8 KiB, whatever its name), a
//! file over [`MAX_FILE_BYTES`] and a kind not read are each refused with an error that names
//! the file and says why, so an index lists it and goes on.

use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest file read (bigger ones are listed with an error, not read).
pub const MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;
/// How much of a file's start is checked for binary content.
const SNIFF_BYTES: usize = 8 * 1024;

/// How a file is read and cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Markdown (and HTML once converted): cut at headings, then blocks.
    Markdown,
    /// Prose: cut at paragraphs, then lines, then sentences.
    Text,
    /// Source code: cut at blank lines, then lines.
    Code,
    /// HTML: converted to Markdown.
    Html,
    /// PDF: its pages' text (read as [`Kind::Text`]).
    Pdf,
    /// Word (DOCX): read as Markdown.
    Docx,
    /// EPUB: its chapters read as Markdown.
    Epub,
}

/// Source-code extensions (lower case).
const CODE: [&str; 48] = [
    "rs", "py", "js", "mjs", "cjs", "ts", "tsx", "jsx", "go", "java", "kt", "kts", "c", "h", "cc",
    "cpp", "cxx", "hpp", "cs", "swift", "rb", "php", "scala", "lua", "sh", "bash", "zsh", "ps1",
    "sql", "r", "jl", "dart", "ex", "exs", "erl", "hs", "ml", "clj", "vue", "svelte", "css",
    "scss", "toml", "yaml", "yml", "json", "xml", "proto",
];
/// Plain-text extensions (lower case); a file without an extension is read as text too.
const TEXT: [&str; 10] = [
    "txt", "text", "rst", "org", "adoc", "tex", "csv", "tsv", "log", "ini",
];

impl Kind {
    /// The kind of the file at `path`, by its extension; `None` for a kind not read.
    pub fn of(path: &Path) -> Option<Kind> {
        let Some(ext) = path.extension() else {
            return Some(Kind::Text);
        };
        let ext = ext.to_string_lossy().to_ascii_lowercase();
        match ext.as_str() {
            "md" | "markdown" | "mdx" | "mdown" => Some(Kind::Markdown),
            "html" | "htm" | "xhtml" => Some(Kind::Html),
            "pdf" => Some(Kind::Pdf),
            "docx" => Some(Kind::Docx),
            "epub" => Some(Kind::Epub),
            e if TEXT.contains(&e) => Some(Kind::Text),
            e if CODE.contains(&e) => Some(Kind::Code),
            _ => None,
        }
    }
}

/// A file read as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Document {
    /// Where it was read.
    pub path: PathBuf,
    /// How it is cut ([`Kind::Html`] is read as Markdown).
    pub kind: Kind,
    /// Its text.
    pub text: String,
    /// The SHA-256 of its bytes, hex: an unchanged file is not indexed again.
    pub hash: String,
    /// Where each page starts in `text` (byte, page number from 1); PDF only.
    pub pages: Vec<(usize, u32)>,
}

impl Document {
    /// The page the byte `at` of the text is on (PDF), if pages are known.
    pub fn page_at(&self, at: usize) -> Option<u32> {
        let i = self.pages.partition_point(|&(start, _)| start <= at);
        i.checked_sub(1).map(|i| self.pages[i].1)
    }
}

/// The most PDF pages read from one file.
const PDF_PAGES: u32 = 2_000;

/// Why a file is not read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DocumentError {
    /// Its kind is not one that is read.
    #[error(
        "{0}: this kind of file is not read (Markdown, text, source code, HTML, PDF, DOCX and EPUB are)"
    )]
    Unsupported(PathBuf),
    /// It is bigger than [`MAX_FILE_BYTES`].
    #[error("{path}: {bytes} bytes is more than the {max} bytes read", max = MAX_FILE_BYTES)]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        bytes: u64,
    },
    /// Its content is not text.
    #[error("{0}: not a text file (binary content)")]
    Binary(PathBuf),
    /// A PDF, DOCX or EPUB that cannot be read (corrupt, encrypted, a scan without text).
    #[error("{path}: {reason}")]
    UnreadableDocument {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// It could not be read.
    #[error("{path}: cannot be read: {reason}")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The system's words.
        reason: String,
    },
}

impl DocumentError {
    /// The file it is about.
    pub fn path(&self) -> &Path {
        match self {
            Self::Unsupported(path) | Self::Binary(path) => path,
            Self::TooLarge { path, .. }
            | Self::UnreadableDocument { path, .. }
            | Self::Unreadable { path, .. } => path,
        }
    }

    /// What is wrong, without the file's path (for a list that shows the path already).
    pub fn reason(&self) -> String {
        let full = self.to_string();
        let prefix = format!("{}: ", self.path().display());
        full.strip_prefix(&prefix).unwrap_or(&full).to_owned()
    }
}

/// Reads the file at `path` as its kind says.
pub fn read_document(path: &Path) -> Result<Document, DocumentError> {
    let kind = Kind::of(path).ok_or_else(|| DocumentError::Unsupported(path.to_owned()))?;
    let unreadable = |e: std::io::Error| DocumentError::Unreadable {
        path: path.to_owned(),
        reason: e.to_string(),
    };
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let bytes = file.metadata().map_err(unreadable)?.len();
    if bytes > MAX_FILE_BYTES {
        return Err(DocumentError::TooLarge {
            path: path.to_owned(),
            bytes,
        });
    }
    // Read at most the cap even if the file grew since it was measured.
    let mut raw = Vec::new();
    file.take(MAX_FILE_BYTES)
        .read_to_end(&mut raw)
        .map_err(unreadable)?;
    let hash = hex(&sha2::Sha256::digest(&raw));
    let bad = |reason: String| DocumentError::UnreadableDocument {
        path: path.to_owned(),
        reason,
    };
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let mut pages = Vec::new();
    let (kind, text) = match kind {
        Kind::Pdf => {
            let (texts, _) =
                super::pdf::page_texts(&name, &raw, PDF_PAGES).map_err(|e| bad(e.to_string()))?;
            let mut text = String::new();
            for (page, page_text) in texts {
                if !text.is_empty() {
                    text.push_str("\n\n");
                }
                pages.push((text.len(), page));
                text.push_str(&page_text);
            }
            (Kind::Text, text)
        }
        Kind::Docx => (Kind::Markdown, super::packaged::docx(&raw).map_err(bad)?),
        Kind::Epub => {
            let text = super::packaged::epub(&raw, super::html::to_markdown).map_err(bad)?;
            (Kind::Markdown, text)
        }
        other => {
            let text = text_of(&raw).ok_or_else(|| DocumentError::Binary(path.to_owned()))?;
            match other {
                Kind::Html => (
                    Kind::Markdown,
                    super::html::to_markdown(&text).map_err(bad)?,
                ),
                other => (other, text),
            }
        }
    };
    Ok(Document {
        path: path.to_owned(),
        kind,
        text,
        hash,
        pages,
    })
}

use sha2::Digest as _;

/// The bytes as text: `None` when their start holds a NUL byte or is not UTF-8 (a cut
/// character at the sniffed edge aside); invalid bytes later are replaced.
fn text_of(raw: &[u8]) -> Option<String> {
    let head = &raw[..raw.len().min(SNIFF_BYTES)];
    if head.contains(&0) {
        return None;
    }
    if let Err(e) = std::str::from_utf8(head) {
        // A character cut at the end of the sniffed bytes is fine; anything else is not text.
        if e.error_len().is_some() {
            return None;
        }
    }
    let text = String::from_utf8_lossy(raw);
    Some(text.strip_prefix('\u{feff}').unwrap_or(&text).to_owned())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn kinds_follow_the_extension_and_a_bare_name_is_text() {
        assert_eq!(Kind::of(Path::new("a/README.MD")), Some(Kind::Markdown));
        assert_eq!(Kind::of(Path::new("main.rs")), Some(Kind::Code));
        assert_eq!(Kind::of(Path::new("notes.txt")), Some(Kind::Text));
        assert_eq!(Kind::of(Path::new("LICENSE")), Some(Kind::Text));
        assert_eq!(Kind::of(Path::new("page.htm")), Some(Kind::Html));
        assert_eq!(Kind::of(Path::new("photo.jpg")), None);
    }

    #[test]
    fn html_is_read_as_markdown_and_the_hash_is_of_the_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let html = b"<html><head><title>t</title><script>x()</script></head><body><h1>Tea</h1><p>Green <b>tea</b>.</p></body></html>";
        let doc = read_document(&write(dir.path(), "tea.html", html)).unwrap();
        assert_eq!(doc.kind, Kind::Markdown);
        assert_eq!(doc.text, "# Tea\n\nGreen **tea**.");
        assert_eq!(doc.hash, hex(&sha2::Sha256::digest(html)));
    }

    #[test]
    fn binary_unsupported_and_missing_files_say_which_and_why() {
        let dir = tempfile::tempdir().unwrap();
        let fake = write(dir.path(), "fake.txt", b"PK\x03\x04\x00\x00binary");
        assert_eq!(
            read_document(&fake),
            Err(DocumentError::Binary(fake.clone()))
        );
        let latin1 = write(dir.path(), "old.txt", b"caf\xe9 au lait");
        assert_eq!(
            read_document(&latin1),
            Err(DocumentError::Binary(latin1.clone()))
        );
        let photo = write(dir.path(), "p.jpg", b"\xff\xd8");
        assert_eq!(
            read_document(&photo).unwrap_err().to_string(),
            format!(
                "{}: this kind of file is not read (Markdown, text, source code, HTML, PDF, DOCX and EPUB are)",
                photo.display()
            )
        );
        let gone = dir.path().join("gone.md");
        assert!(matches!(
            read_document(&gone),
            Err(DocumentError::Unreadable { .. })
        ));
        // Beside the path in a files list, only what is wrong.
        assert_eq!(
            read_document(&fake).unwrap_err().reason(),
            "not a text file (binary content)"
        );
        let reason = read_document(&gone).unwrap_err().reason();
        assert!(reason.starts_with("cannot be read: "), "{reason}");
        assert!(!reason.contains("gone.md"), "{reason}");
    }

    #[test]
    fn a_file_over_the_cap_is_refused_by_its_size_without_reading_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("huge.log");
        std::fs::File::create(&path)
            .unwrap()
            .set_len(MAX_FILE_BYTES + 1)
            .unwrap();
        assert_eq!(
            read_document(&path),
            Err(DocumentError::TooLarge {
                path: path.clone(),
                bytes: MAX_FILE_BYTES + 1
            })
        );
    }

    #[test]
    fn a_pdf_is_read_page_by_page_and_each_offset_knows_its_page() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = super::super::pdf::sample(&[
            "First page about boilers.",
            "",
            "Third page about pumps.",
        ]);
        let doc = read_document(&write(dir.path(), "m.pdf", &bytes)).unwrap();
        assert_eq!(doc.kind, Kind::Text);
        assert!(
            doc.text.starts_with("First page about boilers."),
            "{}",
            doc.text
        );
        let pumps = doc.text.find("pumps").unwrap();
        assert_eq!(doc.page_at(0), Some(1));
        assert_eq!(doc.page_at(pumps), Some(3), "{:?}", doc.pages);
    }

    #[test]
    fn docx_and_epub_are_read_as_markdown_and_a_broken_one_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let docx = super::super::packaged::tests_support::package(&[(
            "word/document.xml",
            r#"<w:document xmlns:w="x"><w:body><w:p><w:pPr><w:pStyle w:val="Heading2"/></w:pPr><w:r><w:t>Pump</w:t></w:r></w:p><w:p><w:r><w:t>Bleed it yearly.</w:t></w:r></w:p></w:body></w:document>"#,
        )]);
        let doc = read_document(&write(dir.path(), "a.docx", &docx)).unwrap();
        assert_eq!(
            (doc.kind, doc.text.as_str()),
            (Kind::Markdown, "## Pump\n\nBleed it yearly.")
        );
        let epub = super::super::packaged::tests_support::package(&[
            (
                "META-INF/container.xml",
                r#"<container><rootfiles><rootfile full-path="c.opf"/></rootfiles></container>"#,
            ),
            (
                "c.opf",
                r#"<package><manifest><item id="a" href="a.xhtml"/></manifest><spine><itemref idref="a"/></spine></package>"#,
            ),
            (
                "a.xhtml",
                "<html><body><h1>Tea</h1><p>Green tea.</p></body></html>",
            ),
        ]);
        let doc = read_document(&write(dir.path(), "b.epub", &epub)).unwrap();
        assert_eq!(doc.text, "# Tea\n\nGreen tea.");
        let broken = read_document(&write(dir.path(), "c.docx", b"PK\x03\x04junk")).unwrap_err();
        assert!(broken.to_string().contains("not a zip package"), "{broken}");
        let encrypted = read_document(&write(dir.path(), "d.pdf", b"%PDF-1.7\n%junk")).unwrap_err();
        assert!(
            matches!(encrypted, DocumentError::UnreadableDocument { .. }),
            "{encrypted}"
        );
    }

    #[test]
    fn a_chinese_text_with_a_bom_is_read_without_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "zh.txt", "\u{feff}知识库。".as_bytes());
        assert_eq!(read_document(&path).unwrap().text, "知识库。");
    }
}
