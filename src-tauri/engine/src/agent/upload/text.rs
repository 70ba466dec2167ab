//! Attached text and code files: refused when binary or too long, fenced for the model with a
//! language from the extension and a fence longer than any backtick run inside.

use crate::vocab::content::FileText;

/// The fence language for a file's extension; empty when unknown.
pub fn language(ext: &str) -> &'static str {
    match ext {
        "rs" => "rust",
        "py" | "pyw" => "python",
        "js" | "mjs" | "cjs" => "javascript",
        "ts" | "mts" | "cts" => "typescript",
        "tsx" => "tsx",
        "jsx" => "jsx",
        "json" | "jsonl" => "json",
        "md" | "markdown" => "markdown",
        "html" | "htm" => "html",
        "css" => "css",
        "scss" => "scss",
        "c" | "h" => "c",
        "cc" | "cpp" | "cxx" | "hpp" | "hh" => "cpp",
        "cs" => "csharp",
        "go" => "go",
        "java" => "java",
        "kt" | "kts" => "kotlin",
        "swift" => "swift",
        "rb" => "ruby",
        "php" => "php",
        "sh" | "bash" | "zsh" => "bash",
        "ps1" => "powershell",
        "toml" => "toml",
        "yaml" | "yml" => "yaml",
        "sql" => "sql",
        "xml" => "xml",
        "svelte" => "svelte",
        "vue" => "vue",
        "lua" => "lua",
        "r" => "r",
        "dart" => "dart",
        "scala" => "scala",
        "csv" => "csv",
        "ini" | "cfg" | "conf" => "ini",
        "tex" => "latex",
        "diff" | "patch" => "diff",
        _ => "",
    }
}

/// `bytes` as text: UTF-8 (a BOM dropped) with no NUL byte, or `None` for a binary file.
pub fn decode(bytes: &[u8]) -> Option<String> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.contains(&0) {
        return None;
    }
    String::from_utf8(bytes.to_vec()).ok()
}

/// What a model is sent for `file`: its name, then its text in a fenced block.
pub fn for_model(file: &FileText) -> String {
    let longest = longest_run(&file.text, '`');
    let fence = "`".repeat(longest.max(2) + 1);
    let about = match file.pages {
        Some(p) if p.extracted < p.total => {
            format!(
                " (PDF, the text of its first {} of {} pages)",
                p.extracted, p.total
            )
        }
        Some(p) => format!(" (PDF, {} pages)", p.total),
        None => String::new(),
    };
    let body = file.text.trim_end_matches('\n');
    format!(
        "File: {}{about}\n{fence}{}\n{body}\n{fence}",
        file.name, file.language
    )
}

fn longest_run(text: &str, c: char) -> usize {
    let (mut best, mut run) = (0, 0);
    for ch in text.chars() {
        run = if ch == c { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}
