//! The built-in `filesystem` server: list, read, search and write files inside user-chosen
//! root folders. Every path is checked after canonicalization (so `..` and symlinks cannot
//! leave the roots); `..` components are refused outright. The check is then enforced by the
//! open itself ([`super::beneath`]: beneath the root's descriptor, following no symlink), so a
//! link swapped in after the check cannot escape; only regular files are read or written (a
//! FIFO fails at once). Search stops after [`SEARCH_MAX_ENTRIES`] entries or [`SEARCH_TIME`].
//! Reads are annotated read-only, `write_file` destructive (the host's policy asks the user
//! before it runs).

use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;

use super::beneath::{self, Access};

/// The largest file `read_text_file` returns.
pub(crate) const READ_LIMIT: u64 = 1024 * 1024;
/// The most paths `search_files` returns.
pub(crate) const SEARCH_LIMIT: usize = 500;
/// The most folder entries one search looks at.
pub const SEARCH_MAX_ENTRIES: usize = 20_000;
/// The longest one search runs.
pub(crate) const SEARCH_TIME: Duration = Duration::from_secs(5);

/// Arguments naming one path.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(crate) struct PathArgs {
    /// The path.
    #[schemars(description = "Absolute path, or a path relative to the first allowed folder")]
    pub path: String,
}

/// Arguments of `search_files`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(crate) struct SearchArgs {
    /// The pattern.
    #[schemars(
        description = "File-name pattern: `*` and `?` wildcards, case-insensitive; without wildcards, matches names containing it"
    )]
    pub pattern: String,
    /// Where to search.
    #[schemars(description = "Folder to search in (default: every allowed folder)")]
    #[serde(default)]
    pub path: Option<String>,
}

/// Arguments of `write_file`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(crate) struct WriteArgs {
    /// The path.
    #[schemars(description = "Absolute path, or a path relative to the first allowed folder")]
    pub path: String,
    /// The new contents.
    #[schemars(description = "The complete new contents of the file (UTF-8 text)")]
    pub content: String,
}

/// The `filesystem` server.
#[derive(Clone, Debug)]
pub(crate) struct FilesystemServer {
    roots: Arc<Vec<PathBuf>>,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl FilesystemServer {
    /// A server confined to `roots` (each must be an existing folder).
    pub(crate) fn new(roots: &[PathBuf]) -> Result<Self, String> {
        let roots = roots
            .iter()
            .map(|root| match root.canonicalize() {
                Ok(dir) if dir.is_dir() => Ok(dir),
                _ => Err(format!("{} is not an existing folder", root.display())),
            })
            .collect::<Result<Vec<_>, _>>()?;
        if roots.is_empty() {
            return Err("the filesystem server needs at least one folder".to_owned());
        }
        Ok(Self {
            roots: Arc::new(roots),
            tool_router: Self::tool_router(),
        })
    }

    /// Tool `list_directory`.
    #[tool(
        description = "List the files and folders in a directory. Folders are prefixed [DIR], files [FILE]. Only works inside the allowed folders.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn list_directory(&self, Parameters(args): Parameters<PathArgs>) -> Result<String, String> {
        let dir = self.existing(&args.path)?;
        let mut lines = beneath::list_dir(&self.roots, &dir)?
            .into_iter()
            .map(|entry| {
                let kind = if entry.is_dir { "[DIR]" } else { "[FILE]" };
                format!("{kind} {}", entry.name)
            })
            .collect::<Vec<_>>();
        lines.sort();
        Ok(lines.join("\n"))
    }

    /// Tool `read_text_file`.
    #[tool(
        description = "Read the complete contents of a UTF-8 text file (up to 1 MiB). Only works inside the allowed folders.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn read_text_file(&self, Parameters(args): Parameters<PathArgs>) -> Result<String, String> {
        let file = self.existing(&args.path)?;
        let opened = beneath::open_file(&self.roots, &file, Access::Read)?;
        let size = opened
            .metadata()
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?
            .len();
        if size > READ_LIMIT {
            return Err(format!(
                "{} is {size} bytes; the limit is {READ_LIMIT} bytes",
                file.display()
            ));
        }
        let mut bytes = Vec::new();
        (opened.take(READ_LIMIT))
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        String::from_utf8(bytes).map_err(|_| format!("{} is not UTF-8 text", file.display()))
    }

    /// Tool `search_files`.
    #[tool(
        description = "Recursively search for files and folders whose names match a pattern. Returns full paths. Only searches inside the allowed folders.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn search_files(
        &self,
        Parameters(args): Parameters<SearchArgs>,
    ) -> Result<String, String> {
        let starts = match &args.path {
            Some(path) => vec![self.existing(path)?],
            None => self.roots.to_vec(),
        };
        let pattern = args.pattern.to_lowercase();
        let roots = self.roots.clone();
        let found = tokio::task::spawn_blocking(move || search(&roots, &starts, &pattern))
            .await
            .map_err(|e| format!("the search failed: {e}"))?;
        if found.is_empty() {
            return Ok("No matches found".to_owned());
        }
        Ok(found.join("\n"))
    }

    /// Tool `write_file`.
    #[tool(
        description = "Create a new file or completely overwrite an existing file with new content. Only works inside the allowed folders.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn write_file(&self, Parameters(args): Parameters<WriteArgs>) -> Result<String, String> {
        let file = self.writable(&args.path)?;
        beneath::open_file(&self.roots, &file, Access::Write)?
            .write_all(args.content.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        Ok(format!("Successfully wrote to {}", file.display()))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for FilesystemServer {
    fn get_info(&self) -> ServerConfig {
        let folders: Vec<String> = self.roots.iter().map(|r| r.display().to_string()).collect();
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_instructions(format!("Allowed folders: {}", folders.join(", ")))
    }
}

impl FilesystemServer {
    /// `path` as an absolute path with no `..`, or why not.
    fn absolute(&self, path: &str) -> Result<PathBuf, String> {
        let path = Path::new(path);
        if path.components().any(|c| c == Component::ParentDir) {
            return Err(format!("`..` is not allowed in paths: {}", path.display()));
        }
        match self.roots.first() {
            Some(root) if path.is_relative() => Ok(root.join(path)),
            _ => Ok(path.to_path_buf()),
        }
    }

    /// An existing path, canonical and inside a root.
    fn existing(&self, path: &str) -> Result<PathBuf, String> {
        let absolute = self.absolute(path)?;
        let real = absolute
            .canonicalize()
            .map_err(|e| format!("{}: {e}", absolute.display()))?;
        self.inside(real, &absolute)
    }

    /// A path to write: an existing file inside a root, or a new name in a folder inside one.
    fn writable(&self, path: &str) -> Result<PathBuf, String> {
        let absolute = self.absolute(path)?;
        if std::fs::symlink_metadata(&absolute).is_ok() {
            return self.existing(path);
        }
        let (Some(parent), Some(name)) = (absolute.parent(), absolute.file_name()) else {
            return Err(format!("{} is not a file path", absolute.display()));
        };
        let parent = parent
            .canonicalize()
            .map_err(|e| format!("{}: {e}", parent.display()))?;
        Ok(self.inside(parent, &absolute)?.join(name))
    }

    /// `real` if it lies inside a root, else an error naming `asked`.
    fn inside(&self, real: PathBuf, asked: &Path) -> Result<PathBuf, String> {
        if self.roots.iter().any(|root| real.starts_with(root)) {
            return Ok(real);
        }
        Err(format!(
            "access denied: {} is outside the allowed folders",
            asked.display()
        ))
    }
}

/// Walks `starts` (beneath `roots`, following no symlink) for names matching `pattern`
/// (lower-case), within [`SEARCH_MAX_ENTRIES`] entries and [`SEARCH_TIME`]; when a bound
/// stops it, the last line says so.
fn search(roots: &[PathBuf], starts: &[PathBuf], pattern: &str) -> Vec<String> {
    let deadline = Instant::now() + SEARCH_TIME;
    let (mut found, mut seen) = (Vec::new(), 0usize);
    let mut stack: Vec<PathBuf> = starts.to_vec();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = beneath::list_dir(roots, &dir) else {
            continue;
        };
        for entry in entries {
            seen += 1;
            if seen > SEARCH_MAX_ENTRIES || Instant::now() > deadline {
                found.sort();
                found.push(format!(
                    "(search stopped after {} entries or {SEARCH_TIME:?}; narrow the path or pattern)",
                    seen - 1
                ));
                return found;
            }
            let path = dir.join(&entry.name);
            if matches(pattern, &entry.name.to_lowercase()) {
                found.push(path.display().to_string());
                if found.len() >= SEARCH_LIMIT {
                    return found;
                }
            }
            if entry.is_dir {
                stack.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Glob match with `*` and `?`; a pattern without wildcards matches names containing it.
fn matches(pattern: &str, name: &str) -> bool {
    if !pattern.contains(['*', '?']) {
        return name.contains(pattern);
    }
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    let (mut pi, mut ni, mut star, mut mark) = (0, 0, None, 0);
    while ni < n.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == n[ni]) {
            (pi, ni) = (pi + 1, ni + 1);
        } else if pi < p.len() && p[pi] == '*' {
            (star, mark, pi) = (Some(pi), ni, pi + 1);
        } else if let Some(s) = star {
            (pi, mark) = (s + 1, mark + 1);
            ni = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn glob_patterns_match_names() {
        assert!(matches("*.rs", "main.rs"));
        assert!(!matches("*.rs", "main.rsx"));
        assert!(matches("a?c*", "abcdef"));
        assert!(matches("note", "my-notes.txt"));
        assert!(!matches("x*y", "xay-z"));
    }
}
