//! Provider-safe tool names: `server__tool` sanitized to `^[a-zA-Z0-9_-]{1,64}$`, readable when
//! it fits and is unique, else shortened with a stable hash suffix. The reverse map travels
//! with the request so every call is routed to the right server and tool.

use std::collections::{BTreeMap, HashMap};

use sha2::{Digest, Sha256};

/// The longest name every provider accepts.
pub(crate) const MAX_LEN: usize = 64;
const HASH_LEN: usize = 8;

/// The names of one request's tools, both ways.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolNames {
    forward: BTreeMap<(String, String), String>,
    reverse: HashMap<String, (String, String)>,
}

impl ToolNames {
    /// Names every `(server, tool)` pair. Readable names that collide after sanitizing are all
    /// hashed, so a name never depends on which other tools are present in the same order.
    pub fn build<'a>(tools: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut wanted: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
        for (server, tool) in tools {
            let readable = sanitize(&format!("{server}__{tool}"));
            wanted
                .entry(readable)
                .or_default()
                .push((server.to_owned(), tool.to_owned()));
        }
        let mut names = Self::default();
        for (readable, owners) in wanted {
            let collides = owners.len() > 1;
            for (server, tool) in owners {
                let name = if collides || readable.len() > MAX_LEN || readable.is_empty() {
                    hashed(&readable, &server, &tool)
                } else {
                    readable.clone()
                };
                names
                    .reverse
                    .insert(name.clone(), (server.clone(), tool.clone()));
                names.forward.insert((server, tool), name);
            }
        }
        names
    }

    /// Names every `(server, tool)` pair by the tool's own name, as one server serves it (the
    /// local endpoint passing one server through); the first of a repeated name keeps it.
    pub fn own<'a>(tools: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut names = Self {
            forward: BTreeMap::new(),
            reverse: HashMap::new(),
        };
        for (server, tool) in tools {
            if names.reverse.contains_key(tool) {
                continue;
            }
            let pair = (server.to_owned(), tool.to_owned());
            names.forward.insert(pair.clone(), tool.to_owned());
            names.reverse.insert(tool.to_owned(), pair);
        }
        names
    }

    /// The provider-safe name of a tool.
    pub fn safe_name(&self, server: &str, tool: &str) -> Option<&str> {
        self.forward
            .get(&(server.to_owned(), tool.to_owned()))
            .map(String::as_str)
    }

    /// The `(server, tool)` a provider-safe name stands for.
    pub fn resolve(&self, safe: &str) -> Option<(&str, &str)> {
        self.reverse
            .get(safe)
            .map(|(s, t)| (s.as_str(), t.as_str()))
    }

    /// How many tools are named.
    pub fn len(&self) -> usize {
        self.forward.len()
    }

    /// Whether no tool is named.
    pub fn is_empty(&self) -> bool {
        self.forward.is_empty()
    }
}

/// A stable id for a call a provider sent without one (Ollama, Gemini): its position in the
/// answer and a hash of its content, so re-decoding the same answer gives the same ids and
/// calls of different content get different ones.
pub(crate) fn synthetic_call_id(n: usize, name: &str, arguments: &serde_json::Value) -> String {
    let digest = Sha256::digest(format!("{name}\u{0}{arguments}").as_bytes());
    let hex: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    format!("call_{n}_{hex}")
}

/// Replaces every character outside `[a-zA-Z0-9_-]` with `_`.
pub(crate) fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A prefix of the readable name and a hash of the exact identity, within 64 characters.
fn hashed(readable: &str, server: &str, tool: &str) -> String {
    let digest = Sha256::digest(format!("{server}\u{0}{tool}").as_bytes());
    let hex: String = digest
        .iter()
        .take(HASH_LEN / 2)
        .map(|b| format!("{b:02x}"))
        .collect();
    let keep = MAX_LEN - HASH_LEN - 1;
    let prefix: String = readable.chars().take(keep).collect();
    let prefix = if prefix.is_empty() {
        "tool".to_owned()
    } else {
        prefix
    };
    format!("{prefix}_{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid(name: &str) -> bool {
        !name.is_empty()
            && name.len() <= MAX_LEN
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    }

    #[test]
    fn a_short_name_stays_readable_and_resolves_back() {
        let names = ToolNames::build([("weather", "get_weather"), ("time", "now")]);
        assert_eq!(
            names.safe_name("weather", "get_weather"),
            Some("weather__get_weather")
        );
        assert_eq!(names.resolve("time__now"), Some(("time", "now")));
    }

    #[test]
    fn unsafe_characters_are_replaced() {
        let names = ToolNames::build([("my server", "fetch.url/v2"), ("天气", "查询")]);
        assert_eq!(
            names.safe_name("my server", "fetch.url/v2"),
            Some("my_server__fetch_url_v2")
        );
        let cn = names.safe_name("天气", "查询").unwrap();
        assert!(valid(cn), "{cn}");
        assert_eq!(names.resolve(cn), Some(("天气", "查询")));
    }

    #[test]
    fn colliding_names_are_all_hashed_and_still_route_correctly() {
        let names = ToolNames::build([("a.b", "t"), ("a_b", "t")]);
        let one = names.safe_name("a.b", "t").unwrap().to_owned();
        let two = names.safe_name("a_b", "t").unwrap().to_owned();
        assert_ne!(one, two);
        assert!(one.starts_with("a_b__t_") && two.starts_with("a_b__t_"));
        assert_eq!(names.resolve(&one), Some(("a.b", "t")));
        assert_eq!(names.resolve(&two), Some(("a_b", "t")));
    }

    #[test]
    fn a_long_name_is_cut_to_64_with_a_stable_hash() {
        let tool = "x".repeat(100);
        let first = ToolNames::build([("server", tool.as_str())]);
        let again = ToolNames::build([("other", "y"), ("server", tool.as_str())]);
        let name = first.safe_name("server", &tool).unwrap();
        assert_eq!(name.len(), 64);
        assert!(valid(name));
        assert_eq!(again.safe_name("server", &tool), Some(name));
    }

    #[test]
    fn an_unknown_name_resolves_to_nothing() {
        assert_eq!(
            ToolNames::build([("a", "b")]).resolve("fed6b7adab25d4693b3eaf4f6c8f02035"),
            None
        );
    }
}
