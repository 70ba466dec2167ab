//! The MCPB `manifest.json` as read here, and its checks: required fields, a name and a
//! version usable as folder names, a known server type, an entry point and a command, and
//! `user_config` fields of known types. The values a user gives are checked against it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::vocab::error::InstallError;

/// The manifest fields this app uses (unknown fields are ignored).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub(crate) struct Manifest {
    /// The manifest format's version (`dxt_version` in older bundles).
    #[serde(alias = "dxt_version")]
    pub manifest_version: String,
    /// Machine-readable name.
    pub name: String,
    /// Human name.
    #[serde(default)]
    pub display_name: Option<String>,
    /// Semantic version.
    pub version: String,
    /// What it does.
    #[serde(default)]
    pub description: String,
    /// Who made it.
    pub author: Author,
    /// How to run it.
    pub server: Server,
    /// Tools it declares.
    #[serde(default)]
    pub tools: Vec<NamedItem>,
    /// Prompts it declares.
    #[serde(default)]
    pub prompts: Vec<NamedItem>,
    /// What it asks the user for.
    #[serde(default)]
    pub user_config: BTreeMap<String, UserConfigField>,
    /// Platforms and runtimes.
    #[serde(default)]
    pub compatibility: Compatibility,
}

/// The author.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub(crate) struct Author {
    /// Name.
    pub name: String,
}

/// The server section.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub(crate) struct Server {
    /// `node`, `python`, `binary` or `uv`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The file it starts from, relative to the bundle.
    pub entry_point: String,
    /// The command, arguments and environment.
    pub mcp_config: McpConfig,
}

/// How to start it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub(crate) struct McpConfig {
    /// The program.
    pub command: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Its environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

/// A declared tool or prompt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct NamedItem {
    /// Its name.
    pub name: String,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub description: Option<String>,
}

/// A value the bundle asks the user for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct UserConfigField {
    /// `string`, `number`, `boolean`, `directory` or `file`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Its label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub title: Option<String>,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub description: Option<String>,
    /// It must be given.
    #[serde(default)]
    pub required: bool,
    /// A secret: masked, kept in the keychain when it goes to the environment.
    #[serde(default)]
    pub sensitive: bool,
    /// Several values may be given.
    #[serde(default)]
    pub multiple: bool,
    /// The default (a string, number, boolean or list).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "unknown")]
    pub default: Option<Value>,
}

/// Compatibility requirements.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub(crate) struct Compatibility {
    /// `darwin`, `win32`, `linux`.
    #[serde(default)]
    pub platforms: Vec<String>,
    /// Runtime → version range.
    #[serde(default)]
    pub runtimes: BTreeMap<String, String>,
}

const SERVER_TYPES: [&str; 4] = ["node", "python", "binary", "uv"];
const FIELD_TYPES: [&str; 5] = ["string", "number", "boolean", "directory", "file"];

/// A name or version fit for a folder name.
fn folder_safe(s: &str) -> bool {
    let ok = |c: char| c.is_ascii_alphanumeric() || "._-+@".contains(c);
    !s.is_empty() && s.len() <= 128 && s.chars().all(ok) && !s.starts_with('.')
}

impl Manifest {
    /// Parses and checks `json`; the message lists every problem.
    pub(crate) fn parse(json: &[u8]) -> Result<Self, String> {
        let m: Self = serde_json::from_slice(json)
            .map_err(|e| format!("its manifest.json does not validate: {e}"))?;
        let mut problems = Vec::new();
        if !folder_safe(&m.name) {
            problems.push(format!(
                "name {:?} must be letters, digits, '.', '_', '-'",
                m.name
            ));
        }
        if semver::Version::parse(&m.version).is_err() || !folder_safe(&m.version) {
            problems.push(format!("version {:?} is not a semantic version", m.version));
        }
        if !SERVER_TYPES.contains(&m.server.kind.as_str()) {
            problems.push(format!(
                "server.type {:?} is not one of {}",
                m.server.kind,
                SERVER_TYPES.join(", ")
            ));
        }
        if m.server.mcp_config.command.trim().is_empty() {
            problems.push("server.mcp_config.command is empty".into());
        }
        for (key, field) in &m.user_config {
            if !FIELD_TYPES.contains(&field.kind.as_str()) {
                problems.push(format!(
                    "user_config.{key} has unknown type {:?}",
                    field.kind
                ));
            }
        }
        match problems.is_empty() {
            true => Ok(m),
            false => Err(format!(
                "its manifest.json does not validate: {}",
                problems.join("; ")
            )),
        }
    }

    /// The value(s) of each `user_config` key: given, else the default; a required key
    /// without either, a wrong type or an unknown key is an error.
    pub(crate) fn user_values(
        &self,
        given: &BTreeMap<String, String>,
    ) -> Result<BTreeMap<String, Vec<String>>, InstallError> {
        let mut problems = Vec::new();
        for key in given.keys().filter(|k| !self.user_config.contains_key(*k)) {
            let known: Vec<_> = self.user_config.keys().cloned().collect();
            problems.push(format!(
                "{} asks for no {key:?} (it asks for: {})",
                self.name,
                known.join(", ")
            ));
        }
        let mut values = BTreeMap::new();
        for (key, field) in &self.user_config {
            let value = match given.get(key).filter(|v| !v.is_empty()) {
                Some(v) => vec![v.clone()],
                None => default_values(field.default.as_ref()),
            };
            if value.is_empty() && field.required {
                problems.push(format!(
                    "{key} is required ({})",
                    field.title.as_deref().unwrap_or(&field.kind)
                ));
            }
            for v in &value {
                if let Some(why) = wrong_type(&field.kind, v) {
                    problems.push(format!("{key}: {why}"));
                }
            }
            values.insert(key.clone(), value);
        }
        match problems.is_empty() {
            true => Ok(values),
            false => Err(InstallError::Plan(problems.join("; "))),
        }
    }
}

fn default_values(default: Option<&Value>) -> Vec<String> {
    match default {
        None | Some(Value::Null) => vec![],
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => items.iter().flat_map(|v| default_values(Some(v))).collect(),
        Some(other) => vec![other.to_string()],
    }
}

fn wrong_type(kind: &str, value: &str) -> Option<String> {
    match kind {
        "number" if value.parse::<f64>().is_err() => Some(format!("{value:?} is not a number")),
        "boolean" if !matches!(value, "true" | "false") => {
            Some(format!("{value:?} is not true or false"))
        }
        _ => None,
    }
}
