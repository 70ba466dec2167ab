//! Reading the text of an `mcpServers` document into its named entries, in document order and
//! with repeated names kept (a plain JSON map would silently keep only the last one). Accepts
//! the whole `claude_desktop_config.json`, a bare map of servers, and one pasted
//! `"name": {...}` entry with or without its braces. Problems are one line each, with the line
//! and column for broken JSON.

use std::fmt;

use serde::Deserialize as _;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_json::Value;

/// The named entries of a document, in order, names possibly repeated.
pub(crate) type Entries = Vec<(String, Value)>;

/// The key holding the servers in Claude Desktop's file.
const SERVERS_KEY: &str = "mcpServers";

/// The fields that mark an object as one server entry rather than a map of them.
const ENTRY_FIELDS: &[&str] = &["command", "url", "args", "serverUrl", "baseUrl"];

/// Reads `text` into its entries, or one message saying why it cannot.
pub(crate) fn read(text: &str) -> Result<Entries, String> {
    match parse_doc(text) {
        Ok(doc) => entries(doc),
        Err(first) => match pasted_entry(text) {
            Some(doc) => entries(doc),
            None => Err(describe(&first)),
        },
    }
}

/// `"name": {...}` (perhaps with a trailing comma) pasted without braces.
fn pasted_entry(text: &str) -> Option<Doc> {
    let body = text.trim();
    if !body.starts_with('"') {
        return None;
    }
    let body = body.strip_suffix(',').unwrap_or(body);
    parse_doc(&format!("{{{body}\n}}")).ok()
}

fn parse_doc(text: &str) -> Result<Doc, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let doc = de::Deserialize::deserialize(&mut de)?;
    de.end()?;
    Ok(doc)
}

fn entries(doc: Doc) -> Result<Entries, String> {
    let Doc(top) = doc;
    let servers = top.iter().position(|(k, _)| k == SERVERS_KEY);
    if let Some(i) = servers {
        return match top.into_iter().nth(i).map(|(_, v)| v) {
            Some(Slot::Map(servers)) => Ok(servers),
            _ => Err(format!("\"{SERVERS_KEY}\" must be an object of servers")),
        };
    }
    let looks_like_entry = top.iter().any(|(k, _)| ENTRY_FIELDS.contains(&k.as_str()));
    if looks_like_entry {
        return Err(
            "this is one server entry without a name; paste it as {\"name\": {...}}".to_owned(),
        );
    }
    Ok(top.into_iter().map(|(k, v)| (k, v.into_value())).collect())
}

/// A serde_json error as one line: where it is, and what is wrong.
fn describe(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let what = full.strip_suffix(&suffix).unwrap_or(&full);
    match e.classify() {
        serde_json::error::Category::Data => {
            "the document must be a JSON object of MCP servers, e.g. {\"mcpServers\": {...}}"
                .to_owned()
        }
        _ => format!(
            "invalid JSON at line {}, column {}: {what}",
            e.line(),
            e.column()
        ),
    }
}

/// The top level of a document: its keys in order, each value kept as ordered pairs when
/// it is an object.
struct Doc(Vec<(String, Slot)>);

/// A top-level value: an object (as ordered pairs) or anything else.
enum Slot {
    Map(Entries),
    Other(Value),
}

impl Slot {
    fn into_value(self) -> Value {
        match self {
            Self::Map(pairs) => Value::Object(pairs.into_iter().collect()),
            Self::Other(v) => v,
        }
    }
}

impl<'de> de::Deserialize<'de> for Doc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Doc;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Doc, A::Error> {
                let mut pairs = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    pairs.push((key, map.next_value::<Slot>()?));
                }
                Ok(Doc(pairs))
            }
        }
        d.deserialize_map(V)
    }
}

impl<'de> de::Deserialize<'de> for Slot {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Buffer as a Value unless it is an object, whose pairs keep their order and repeats.
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Slot;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Slot, A::Error> {
                let mut pairs = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    pairs.push((key, map.next_value::<Value>()?));
                }
                Ok(Slot::Map(pairs))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Slot, A::Error> {
                let v = Value::deserialize(de::value::SeqAccessDeserializer::new(seq))?;
                Ok(Slot::Other(v))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Slot, E> {
                Ok(Slot::Other(Value::Bool(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Slot, E> {
                Ok(Slot::Other(v.into()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Slot, E> {
                Ok(Slot::Other(v.into()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Slot, E> {
                Ok(Slot::Other(v.into()))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Slot, E> {
                Ok(Slot::Other(v.into()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Slot, E> {
                Ok(Slot::Other(Value::Null))
            }
        }
        d.deserialize_any(V)
    }
}
