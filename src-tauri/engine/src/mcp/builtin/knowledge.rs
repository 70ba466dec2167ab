//! The built-in `knowledge` server: one per knowledge base (its `BASE` setting names it), with
//! a `search` tool that returns the base's best passages numbered for citations — file, line or
//! page, headings — and, as structured content, the sources the app shows under the answer
//! (`{query, provider, results: [{n, title, url, snippet}]}`, `url` a `file://` URL, with
//! `#page=N` for a PDF page). The bases are reached through
//! [`KnowledgeSearch`], which the engine hands to the MCP host.

use std::sync::{Arc, OnceLock};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::json;

use crate::vocab::knowledge::{KnowledgeSearch, Passage};

/// The setting that names the knowledge base.
pub(crate) const BASE: &str = "BASE";

/// Where the engine puts the knowledge bases' door, shared by every connection (empty until
/// the engine sets it, and in tests that need none).
pub(crate) type KnowledgeSlot = Arc<OnceLock<Arc<dyn KnowledgeSearch>>>;

/// Passages a search returns by default, and at most.
const DEFAULT_COUNT: usize = 5;
const MAX_COUNT: usize = 20;

/// Arguments of `search`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(crate) struct SearchArgs {
    /// The question.
    #[schemars(
        description = "What to look for, as a question or keywords, in the language of the documents when known"
    )]
    pub query: String,
    /// How many passages.
    #[schemars(description = "How many passages to return (1-20, default 5)")]
    #[serde(default = "default_count")]
    pub count: usize,
}

fn default_count() -> usize {
    DEFAULT_COUNT
}

/// The `knowledge` server of one base.
#[derive(Clone)]
pub(crate) struct KnowledgeServer {
    base: String,
    bases: Option<Arc<dyn KnowledgeSearch>>,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl KnowledgeServer {
    /// The server of base `base`, searching through `bases` (none: every call says the
    /// knowledge bases are not available).
    pub(crate) fn new(base: String, bases: Option<Arc<dyn KnowledgeSearch>>) -> Self {
        Self {
            base,
            bases,
            tool_router: Self::tool_router(),
        }
    }

    /// Tool `search`.
    #[tool(
        description = "Searches the user's own documents (a knowledge base of their files) and returns numbered passages with the file they come from. Use it for questions about the user's files, notes, projects or documentation. Cite the passages you use by their numbers, e.g. [1].",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn search(
        &self,
        Parameters(args): Parameters<SearchArgs>,
    ) -> Result<CallToolResult, String> {
        let query = args.query.trim();
        if query.is_empty() {
            return Err("query must not be empty".to_owned());
        }
        let bases = self
            .bases
            .clone()
            .ok_or_else(|| "knowledge bases are not available in this app".to_owned())?;
        let count = args.count.clamp(1, MAX_COUNT);
        let found = bases
            .search(self.base.clone(), query.to_owned(), count)
            .await?;
        let mut result =
            CallToolResult::success(vec![ContentBlock::text(listing(query, &self.base, &found))]);
        result.structured_content = Some(sources(query, &self.base, &found));
        Ok(result)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for KnowledgeServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_instructions(
            format!(
                "Searches the knowledge base {:?}: the user's own files.",
                self.base
            ),
        )
    }
}

/// Where a passage is: "notes/a.md, line 12 (Guide › Install)".
fn place(p: &Passage) -> String {
    let mut out = p.path.clone();
    if let Some(page) = p.page {
        out.push_str(&format!(", page {page}"));
    } else if let Some(line) = p.line {
        out.push_str(&format!(", line {line}"));
    }
    if let Some(heading) = &p.heading {
        out.push_str(&format!(" ({heading})"));
    }
    out
}

/// The passages as the model reads them: numbered, for citations.
fn listing(query: &str, base: &str, found: &[Passage]) -> String {
    if found.is_empty() {
        return format!("Nothing in the knowledge base \"{base}\" matches \"{query}\".");
    }
    let mut out = format!("Passages from the knowledge base \"{base}\" for \"{query}\":\n");
    for (i, p) in found.iter().enumerate() {
        out.push_str(&format!(
            "\n[{}] {} — {}\n{}\n",
            i + 1,
            p.title,
            place(p),
            p.text
        ));
    }
    out
}

/// A file's `file://` URL, at the page for a PDF.
fn file_url(p: &Passage) -> String {
    let url = reqwest::Url::from_file_path(&p.path)
        .map_or_else(|()| format!("file://{}", p.path), |u| u.to_string());
    match p.page {
        Some(page) => format!("{url}#page={page}"),
        None => url,
    }
}

/// The passages for the app, shown as the answer's sources.
fn sources(query: &str, base: &str, found: &[Passage]) -> serde_json::Value {
    let results: Vec<serde_json::Value> = (found.iter().enumerate())
        .map(|(i, p)| {
            let snippet: String = p.text.chars().take(300).collect();
            json!({"n": i + 1, "title": p.title, "url": file_url(p), "snippet": snippet,
                   "path": p.path, "line": p.line, "page": p.page})
        })
        .collect();
    json!({"query": query, "provider": format!("knowledge base {base}"), "results": results})
}
