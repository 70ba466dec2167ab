//! The user's MCP server configuration in the `mcpServers` JSON format of Claude Desktop's
//! `claude_desktop_config.json` (which Cherry Studio, Cursor and Chatbox also read): parsing
//! with every error found at once, each naming the server and the field, and exporting back to
//! the same format. Our own optional fields per entry: `startupTimeoutMs`, `callTimeoutMs`,
//! `autoStart` and `approval`.
//!
//! Env and header values may be secrets: [`ServerConfig`]'s `Debug` never prints them and
//! [`ServerConfig::without_secrets`] blanks them for exports that must not carry them.

mod doc;
mod export;
mod names;

use std::collections::{BTreeMap, HashSet};
use std::time::Duration;

use crate::mcp::client::oauth_client;
use crate::vocab::error::ConfigError;
use crate::vocab::server::{Approval, OAuthClient, ServerConfig};
use crate::vocab::server::{ServerSpec, Transport};
use doc::Entries;
pub(crate) use names::risky_env;

/// The longest server name accepted, in characters.
pub(crate) const MAX_NAME_CHARS: usize = 64;

/// Validation of a config built outside a document (e.g. in a form).
impl ServerConfig {
    /// Checks the config as a parsed entry would be checked (e.g. one built in a form).
    pub fn validate(&self) -> Result<(), ConfigError> {
        let value = serde_json::to_value(Entry::from(self)).unwrap_or_default();
        let mut errors = Vec::new();
        check_name(&self.name, &mut errors);
        if errors.is_empty() {
            parse_entry(&self.name, &value, &mut errors);
        }
        ConfigError::from_list(errors).map_or(Ok(()), Err)
    }
}

/// Parses an `mcpServers` document: the whole `claude_desktop_config.json`, a bare
/// `{ "name": {...} }` map, or one pasted `"name": {...}` entry (braces optional).
pub fn parse(text: &str) -> Result<Vec<ServerConfig>, ConfigError> {
    let entries = doc::read(text).map_err(|e| ConfigError { errors: vec![e] })?;
    let mut errors = Vec::new();
    let configs = parse_entries(&entries, &mut errors);
    match ConfigError::from_list(errors) {
        Some(e) => Err(e),
        None => Ok(configs),
    }
}

fn parse_entries(entries: &Entries, errors: &mut Vec<String>) -> Vec<ServerConfig> {
    let mut seen = HashSet::new();
    let mut reported = HashSet::new();
    let mut configs = Vec::new();
    for (name, value) in entries {
        if !seen.insert(name.as_str()) {
            if reported.insert(name.as_str()) {
                errors.push(format!("{}: the name appears more than once", server(name)));
            }
            continue;
        }
        let before = errors.len();
        check_name(name, errors);
        let config = parse_entry(name, value, errors);
        if errors.len() == before
            && let Some(c) = config
        {
            configs.push(c);
        }
    }
    configs
}

/// `server "name"`, the prefix of every message about one entry.
fn server(name: &str) -> String {
    format!("server {name:?}")
}

fn check_name(name: &str, errors: &mut Vec<String>) {
    if name.trim().is_empty() {
        errors.push(format!("{}: the name cannot be empty", server(name)));
    } else if name.chars().count() > MAX_NAME_CHARS {
        let short: String = name.chars().take(20).collect();
        errors.push(format!(
            "server \"{short}…\": the name is longer than {MAX_NAME_CHARS} characters"
        ));
    } else if let Some(c) = names::hidden_char(name) {
        errors.push(format!(
            "{}: the name has the hidden character {}",
            server(name),
            names::describe(c)
        ));
    }
}

/// The end of a message about a hidden character in `what`.
fn hidden(what: &str, c: char) -> String {
    format!(
        "{what} the hidden character {}, which can make it look like something else",
        names::describe(c)
    )
}

/// Collects the problems of one entry into `errors` as it goes.
struct Checker<'a> {
    name: &'a str,
    obj: &'a serde_json::Map<String, serde_json::Value>,
    errors: &'a mut Vec<String>,
}

impl Checker<'_> {
    fn fail(&mut self, field: &str, what: &str) {
        let msg = format!("{}: \"{field}\" {what}", server(self.name));
        self.errors.push(msg);
    }

    fn string(&mut self, field: &str) -> Option<String> {
        match self.obj.get(field)? {
            serde_json::Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
            _ => {
                self.fail(field, "must be a non-empty string");
                None
            }
        }
    }

    /// [`Self::string`] without hidden characters (a command, a folder).
    fn visible_string(&mut self, field: &str) -> Option<String> {
        let text = self.string(field)?;
        match names::hidden_char(&text) {
            None => Some(text),
            Some(c) => {
                self.fail(field, &hidden("has", c));
                None
            }
        }
    }

    /// [`Self::string_list`] without hidden characters in any item (arguments, folders).
    fn visible_list(&mut self, field: &str) -> Vec<String> {
        let items = self.string_list(field);
        for (i, item) in items.iter().enumerate() {
            if let Some(c) = names::hidden_char(item) {
                self.fail(field, &hidden(&format!("item {} has", i + 1), c));
            }
        }
        items
    }

    /// `env` (`header: false`) or `headers`: a [`Self::string_map`] whose names are plain
    /// variable names or header names.
    fn named_map(&mut self, field: &str, header: bool) -> BTreeMap<String, String> {
        let map = self.string_map(field);
        for name in map.keys() {
            if let Some(c) = names::hidden_char(name) {
                self.fail(field, &hidden(&format!("name {name:?} has"), c));
            } else if header && !names::is_header_name(name) {
                self.fail(
                    field,
                    &format!(
                        "name {name:?} is not a header name (letters, digits and !#$%&'*+-.^_`|~)"
                    ),
                );
            } else if !header && !names::is_env_name(name) {
                self.fail(
                    field,
                    &format!(
                        "name {name:?} is not a variable name (letters, digits and _, not starting with a digit)"
                    ),
                );
            }
        }
        map
    }

    fn flag(&mut self, field: &str, default: bool) -> bool {
        match self.obj.get(field) {
            None => default,
            Some(serde_json::Value::Bool(b)) => *b,
            Some(_) => {
                self.fail(field, "must be true or false");
                default
            }
        }
    }

    fn string_list(&mut self, field: &str) -> Vec<String> {
        let Some(value) = self.obj.get(field) else {
            return Vec::new();
        };
        let items = value.as_array().map(|a| {
            a.iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
        });
        items.flatten().unwrap_or_else(|| {
            self.fail(field, "must be an array of strings");
            Vec::new()
        })
    }

    fn string_map(&mut self, field: &str) -> BTreeMap<String, String> {
        let Some(value) = self.obj.get(field) else {
            return BTreeMap::new();
        };
        let Some(map) = value.as_object() else {
            self.fail(field, "must be an object of strings");
            return BTreeMap::new();
        };
        let mut out = BTreeMap::new();
        for (k, v) in map {
            match v.as_str() {
                Some(s) => drop(out.insert(k.clone(), s.to_owned())),
                None => self.fail(field, &format!("value of {k:?} must be a string")),
            }
        }
        out
    }

    fn millis(&mut self, field: &str, default: Duration) -> Duration {
        match self.obj.get(field) {
            None => default,
            Some(v) => match v.as_u64().filter(|n| *n > 0) {
                Some(n) => Duration::from_millis(n),
                None => {
                    self.fail(field, "must be a positive whole number of milliseconds");
                    default
                }
            },
        }
    }

    /// The `oauth` object, for remote servers only.
    fn oauth(&mut self, transport: Option<&Transport>) -> OAuthClient {
        let Some(value) = self.obj.get("oauth") else {
            return OAuthClient::default();
        };
        if matches!(
            transport,
            Some(Transport::Stdio { .. } | Transport::Builtin { .. })
        ) {
            self.fail("oauth", "applies only to remote (http or sse) servers");
            return OAuthClient::default();
        }
        oauth_client::parse(value).unwrap_or_else(|problems| {
            for (field, what) in problems {
                self.fail(&field, &what);
            }
            OAuthClient::default()
        })
    }

    /// `inheritEnv`: names of the app's variables a stdio server also gets.
    fn inherit_env(&mut self) -> Vec<String> {
        let names = self.visible_list("inheritEnv");
        for problem in crate::mcp::client::child_env::check_names(&names) {
            self.fail("inheritEnv", &problem);
        }
        names
    }

    fn approval(&mut self) -> Approval {
        match self.obj.get("approval") {
            None => Approval::Ask,
            Some(v) => serde_json::from_value(v.clone()).unwrap_or_else(|_| {
                self.fail("approval", "must be \"ask\", \"allow\" or \"deny\"");
                Approval::Ask
            }),
        }
    }
}

/// The declared kind of transport: `type`, or Cursor's and Cherry Studio's `transport`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Stdio,
    Http,
    Sse,
    Builtin,
}

const KINDS: &str =
    "\"stdio\", \"http\", \"streamable-http\", \"streamableHttp\", \"sse\" or \"builtin\"";

/// The declared kind and the field declaring it; `Some((field, None))` when it is invalid.
fn declared_kind(c: &mut Checker<'_>) -> Option<(&'static str, Option<Kind>)> {
    let field = ["type", "transport"]
        .into_iter()
        .find(|f| c.obj.contains_key(*f))?;
    let kind = match c.obj.get(field).and_then(|v| v.as_str()) {
        Some("stdio") => Some(Kind::Stdio),
        Some("http" | "streamable-http" | "streamableHttp" | "streamable_http") => Some(Kind::Http),
        Some("sse") => Some(Kind::Sse),
        Some("builtin") => Some(Kind::Builtin),
        Some(other) => {
            c.fail(
                field,
                &format!("{other:?} is not a known transport; use {KINDS}"),
            );
            None
        }
        None => {
            c.fail(field, &format!("must be one of {KINDS}"));
            None
        }
    };
    Some((field, kind))
}

/// The URL field: `url`, or Windsurf's `serverUrl` / Cherry Studio's `baseUrl`.
fn url_field(obj: &serde_json::Map<String, serde_json::Value>) -> Option<&'static str> {
    ["url", "serverUrl", "baseUrl"]
        .into_iter()
        .find(|f| obj.contains_key(*f))
}

fn parse_entry(
    name: &str,
    value: &serde_json::Value,
    errors: &mut Vec<String>,
) -> Option<ServerConfig> {
    let Some(obj) = value.as_object() else {
        errors.push(format!("{}: the entry must be an object", server(name)));
        return None;
    };
    let mut c = Checker { name, obj, errors };
    let kind = declared_kind(&mut c);
    let transport = transport(&mut c, kind);
    Some(ServerConfig {
        name: name.to_owned(),
        enabled: !c.flag("disabled", false),
        startup_timeout: c.millis("startupTimeoutMs", ServerSpec::STARTUP_TIMEOUT),
        call_timeout: c.millis("callTimeoutMs", ServerSpec::CALL_TIMEOUT),
        auto_start: c.flag("autoStart", true),
        approval: c.approval(),
        oauth: c.oauth(transport.as_ref()),
        inherit_env: c.inherit_env(),
        // A built-in server's `allowPrivate` is read with its transport.
        allow_private: !c.obj.contains_key("builtin") && c.flag("allowPrivate", false),
        transport: transport?,
        id: None,
        source: None,
    })
}

fn transport(c: &mut Checker<'_>, declared: Option<(&str, Option<Kind>)>) -> Option<Transport> {
    let kind = declared.map(|(_, k)| k);
    if kind == Some(Some(Kind::Builtin)) || c.obj.contains_key("builtin") {
        return builtin(c, kind);
    }
    let kind_field = declared.map_or("type", |(f, _)| f);
    let url = url_field(c.obj);
    let has_command = c.obj.contains_key("command");
    match (has_command, url, kind) {
        (true, Some(_), _) => {
            let msg = format!(
                "{}: give either \"command\" or \"url\", not both",
                server(c.name)
            );
            c.errors.push(msg);
            None
        }
        (false, None, _) => {
            let msg = format!(
                "{}: needs a \"command\" (a local server) or a \"url\" (a remote one)",
                server(c.name)
            );
            c.errors.push(msg);
            None
        }
        (true, None, Some(Some(Kind::Http | Kind::Sse))) => {
            c.fail(
                kind_field,
                "is a remote transport but the entry has a \"command\"",
            );
            None
        }
        (false, Some(_), Some(Some(Kind::Stdio))) => {
            c.fail(kind_field, "is \"stdio\" but the entry has a \"url\"");
            None
        }
        (true, None, kind) => stdio(c, kind.is_some_and(|k| k.is_none())),
        (false, Some(field), kind) => remote(c, field, kind),
    }
}

/// The names of the built-in servers, for messages.
const BUILTINS: &str = "\"time\", \"fetch\", \"filesystem\", \"web\" or \"knowledge\"";

/// A built-in server: `"builtin": "time" | "fetch" | "filesystem" | "web" | "knowledge"`,
/// `allowPrivate` (fetch, web), `folders` (filesystem), `env` and `settings` (web: its keys and
/// other settings, by the names it knows; knowledge: `BASE`, the knowledge base it searches).
fn builtin(c: &mut Checker<'_>, kind: Option<Option<Kind>>) -> Option<Transport> {
    if matches!(kind, Some(Some(k)) if k != Kind::Builtin) {
        c.fail(
            "builtin",
            "names a built-in server but the entry declares another transport",
        );
        return None;
    }
    for field in ["command", "url"] {
        if c.obj.contains_key(field) {
            c.fail(field, "cannot be given for a built-in server");
        }
    }
    let server = c.string("builtin");
    let allow_private = c.flag("allowPrivate", false);
    let folders = c.visible_list("folders");
    let env = c.named_map("env", false);
    let settings = c.named_map("settings", false);
    let server = server?;
    if !crate::mcp::builtin::BuiltinServer::NAMES.contains(&server.as_str()) {
        c.fail(
            "builtin",
            &format!("{server:?} is not a built-in server; use {BUILTINS}"),
        );
        return None;
    }
    for (field, values) in [("env", &env), ("settings", &settings)] {
        check_web_settings(c, &server, field, values);
    }
    let base = settings.get(crate::mcp::builtin::knowledge::BASE);
    if server == "knowledge" && base.is_none_or(|b| b.trim().is_empty()) {
        c.fail(
            "settings",
            "needs BASE, the knowledge base the server searches",
        );
    }
    // Keys are kept as env (in the keychain), the rest as settings, whichever field named them.
    let (env, settings) = (env.into_iter().chain(settings))
        .partition(|(name, _)| crate::mcp::builtin::web::is_secret(name));
    Some(Transport::Builtin {
        server,
        allow_private,
        folders: folders.into_iter().map(Into::into).collect(),
        env,
        settings,
    })
}

/// Refuses env or settings (`field`) for a built-in server other than `web`, and names `web`
/// does not know.
fn check_web_settings(
    c: &mut Checker<'_>,
    server: &str,
    field: &str,
    values: &BTreeMap<String, String>,
) {
    use crate::mcp::builtin::web;
    if values.is_empty() {
        return;
    }
    if server == "knowledge" {
        check_knowledge_settings(c, field, values);
        return;
    }
    if server != "web" {
        c.fail(
            field,
            "is only for the \"web\" and \"knowledge\" built-in servers",
        );
        return;
    }
    let known = web::SETTINGS;
    for name in values.keys().filter(|n| !known.contains(&n.as_str())) {
        c.fail(
            field,
            &format!(
                "{name:?} is not a setting of the web server; use {}",
                known.join(", ")
            ),
        );
    }
    let provider = values
        .get(web::PROVIDER)
        .map(|p| p.trim().to_ascii_lowercase());
    if let Some(p) = provider.filter(|p| !p.is_empty() && !web::PROVIDERS.contains(&p.as_str())) {
        c.fail(
            field,
            &format!(
                "{} {p:?} is not a search provider; use searxng, brave, tavily or google",
                web::PROVIDER
            ),
        );
    }
}

/// A knowledge server's settings: `BASE` alone, in `settings`.
fn check_knowledge_settings(c: &mut Checker<'_>, field: &str, values: &BTreeMap<String, String>) {
    use crate::mcp::builtin::knowledge::BASE;
    if field != "settings" {
        c.fail(field, "is not used by the \"knowledge\" built-in server");
        return;
    }
    for name in values.keys().filter(|n| n.as_str() != BASE) {
        c.fail(
            field,
            &format!("{name:?} is not a setting of the knowledge server; use {BASE}"),
        );
    }
}

fn stdio(c: &mut Checker<'_>, bad_kind: bool) -> Option<Transport> {
    let command = c.visible_string("command");
    let args = c.visible_list("args");
    let env = c.named_map("env", false);
    let cwd = match c.obj.contains_key("cwd") {
        false => Some(None),
        true => c.visible_string("cwd").map(|s| Some(s.into())),
    };
    if bad_kind {
        return None;
    }
    Some(Transport::Stdio {
        command: command?,
        args,
        env,
        cwd: cwd?,
    })
}

fn remote(c: &mut Checker<'_>, field: &str, kind: Option<Option<Kind>>) -> Option<Transport> {
    let url = c.visible_string(field);
    let headers = c.named_map("headers", true);
    let url = url?;
    if !is_http_url(&url) {
        c.fail(field, "is not an http(s) URL");
        return None;
    }
    let kind = match kind {
        Some(k) => k?,
        None if url_path_is_sse(&url) => Kind::Sse,
        None => Kind::Http,
    };
    Some(match kind {
        Kind::Sse => Transport::Sse { url, headers },
        Kind::Http | Kind::Stdio | Kind::Builtin => Transport::Http { url, headers },
    })
}

fn is_http_url(url: &str) -> bool {
    reqwest::Url::parse(url)
        .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
}

fn url_path_is_sse(url: &str) -> bool {
    reqwest::Url::parse(url).is_ok_and(|u| u.path().trim_end_matches('/').ends_with("/sse"))
}

use export::Entry;
pub use export::export;

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
