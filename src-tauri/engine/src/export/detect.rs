//! Recognizes an import file — our export, ChatGPT's or Claude's `conversations.json` — from
//! its shape, reading the whole text once without building it in memory: only the top-level
//! `format` field of an object, or the keys of a list's first element, are kept. A file that
//! is not valid JSON is refused here, with the line and column.

use std::fmt;

use serde::Deserializer as _;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{ExportError, json};

/// Where an imported file came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ImportSource {
    /// Switchboard's JSON export.
    Switchboard,
    /// ChatGPT's data export (`conversations.json`).
    Chatgpt,
    /// Claude's data export (`conversations.json`).
    Claude,
}

/// What recognition needs to know of a file.
#[derive(Debug, PartialEq)]
enum Shape {
    /// A JSON object, with its `format` field when that is a string.
    Object { format: Option<String> },
    /// A JSON array, with the keys of its first element (`None` when empty).
    List { first: Option<Keys> },
    /// Anything else.
    Other,
}

/// Which of the keys that tell ChatGPT and Claude exports apart an element has.
#[derive(Debug, Default, PartialEq)]
struct Keys {
    mapping: bool,
    chat_messages: bool,
}

/// Which kind of file `text` is.
pub(crate) fn detect(text: &str) -> Result<ImportSource, ExportError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let shape = de
        .deserialize_any(ShapeVisitor)
        .map_err(ExportError::from_json)?;
    de.end().map_err(ExportError::from_json)?;
    classify(shape)
}

/// Which kind of file `reader` holds, read only as far as needed: the `format` field of an
/// object, or the first element of a list (the rest is checked as the import reads it).
pub(crate) fn detect_reader(reader: impl std::io::Read) -> Result<ImportSource, ExportError> {
    let reader = std::io::BufReader::with_capacity(64 * 1024, reader);
    let mut de = serde_json::Deserializer::from_reader(reader);
    let mut found = None;
    let read = de.deserialize_any(EarlyShape { found: &mut found });
    match (read, found) {
        (_, Some(shape)) | (Ok(shape), None) => classify(shape),
        (Err(e), None) => Err(ExportError::from_json(e)),
    }
}

/// What a file's shape says it is.
fn classify(shape: Shape) -> Result<ImportSource, ExportError> {
    match shape {
        Shape::Object { format } => match format.as_deref() {
            Some(json::FORMAT) => Ok(ImportSource::Switchboard),
            Some(other) => Err(ExportError::Format(format!(
                "the file's format is {other:?}, not a Switchboard conversation export"
            ))),
            None => Err(ExportError::Format(
                "the file is a JSON object without a \"format\" field: not a Switchboard, ChatGPT or Claude export".into(),
            )),
        },
        Shape::List { first: None } => Err(ExportError::Format(
            "the file holds an empty list: no conversations".into(),
        )),
        Shape::List { first: Some(keys) } if keys.mapping => Ok(ImportSource::Chatgpt),
        Shape::List { first: Some(keys) } if keys.chat_messages => Ok(ImportSource::Claude),
        Shape::List { .. } => Err(ExportError::Format(
            "the first conversation has neither \"mapping\" (ChatGPT) nor \"chat_messages\" (Claude)".into(),
        )),
        Shape::Other => Err(ExportError::Format(
            "the file is neither a Switchboard export nor a ChatGPT or Claude conversations.json".into(),
        )),
    }
}

/// Accepts any JSON value; `visit_map` and `visit_seq` are given, the rest default to
/// `other()`.
macro_rules! any_scalar {
    ($t:ty) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<$t, E> {
            Ok(Self::other())
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<$t, E> {
            Ok(Self::other())
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<$t, E> {
            Ok(Self::other())
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<$t, E> {
            Ok(Self::other())
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<$t, E> {
            Ok(Self::other())
        }
        fn visit_unit<E: de::Error>(self) -> Result<$t, E> {
            Ok(Self::other())
        }
    };
}

struct ShapeVisitor;

impl ShapeVisitor {
    fn other() -> Shape {
        Shape::Other
    }
}

impl<'de> Visitor<'de> for ShapeVisitor {
    type Value = Shape;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    any_scalar!(Shape);

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
        let mut format = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "format" {
                format = map
                    .next_value::<serde_json::Value>()?
                    .as_str()
                    .map(str::to_owned);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(Shape::Object { format })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape, A::Error> {
        let first = seq.next_element_seed(KeysSeed)?;
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Shape::List { first })
    }
}

/// [`ShapeVisitor`] that stops as soon as the shape is known (through an error the caller
/// ignores once `found` is set).
struct EarlyShape<'a> {
    found: &'a mut Option<Shape>,
}

impl EarlyShape<'_> {
    fn other() -> Shape {
        Shape::Other
    }

    fn stop<E: de::Error>(self, shape: Shape) -> Result<Shape, E> {
        *self.found = Some(shape);
        Err(E::custom("recognized"))
    }
}

impl<'de> Visitor<'de> for EarlyShape<'_> {
    type Value = Shape;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    any_scalar!(Shape);

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key == "format" {
                let value = map.next_value::<serde_json::Value>()?;
                let format = value.as_str().map(str::to_owned);
                return self.stop(Shape::Object { format });
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(Shape::Object { format: None })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape, A::Error> {
        match seq.next_element_seed(KeysSeed)? {
            None => Ok(Shape::List { first: None }),
            Some(keys) => self.stop(Shape::List { first: Some(keys) }),
        }
    }
}

/// Reads one element, keeping only which of the telling keys it has.
struct KeysSeed;

impl<'de> de::DeserializeSeed<'de> for KeysSeed {
    type Value = Keys;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Keys, D::Error> {
        d.deserialize_any(KeysVisitor)
    }
}

struct KeysVisitor;

impl KeysVisitor {
    fn other() -> Keys {
        Keys::default()
    }
}

impl<'de> Visitor<'de> for KeysVisitor {
    type Value = Keys;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    any_scalar!(Keys);

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
        let mut keys = Keys::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "mapping" => keys.mapping = true,
                "chat_messages" => keys.chat_messages = true,
                _ => {}
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(keys)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Keys, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Keys::default())
    }
}

#[cfg(test)]
mod tests {
    use super::{ImportSource, detect};
    use crate::export::ExportError;

    fn refused(text: &str) -> String {
        match detect(text) {
            Err(ExportError::Format(m)) => m,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn each_kind_of_file_is_told_by_its_shape_whatever_else_it_holds() {
        let ours = r#"{"x": [1, {"format": 2}], "format": "switchboard.conversations", "c": []}"#;
        assert_eq!(detect(ours).unwrap(), ImportSource::Switchboard);
        let chatgpt = r#"[{"title": "a", "mapping": null}, {"chat_messages": []}, 3]"#;
        assert_eq!(detect(chatgpt).unwrap(), ImportSource::Chatgpt);
        let claude = r#"[{"uuid": "u", "chat_messages": [{"mapping": 1}]}, "x"]"#;
        assert_eq!(detect(claude).unwrap(), ImportSource::Claude);
    }

    #[test]
    fn files_of_another_shape_are_refused_saying_what_they_are() {
        assert!(refused(r#"{"format": "other"}"#).contains("\"other\""));
        assert!(refused(r#"{"format": 7, "conversations": []}"#).contains("without a \"format\""));
        assert!(refused("[]").contains("empty list"));
        assert!(refused(r#"[["mapping"], {"mapping": 1}]"#).contains("neither \"mapping\""));
        assert!(refused(r#""text""#).contains("neither a Switchboard"));
        assert!(refused("null").contains("neither a Switchboard"));
    }

    #[test]
    fn invalid_json_anywhere_is_refused_with_its_position_before_the_shape_is_judged() {
        let err = detect("{\"format\": \"other\",\n \"x\": [1, 2,]}").unwrap_err();
        assert!(matches!(err, ExportError::Parse { line: 2, .. }), "{err:?}");
        let err = detect("[{\"mapping\": {}}, {\"a\": \"\\q\"}]").unwrap_err();
        assert!(matches!(err, ExportError::Parse { line: 1, .. }), "{err:?}");
        let err = detect("{\"format\": \"switchboard.conversations\"} x").unwrap_err();
        assert!(matches!(err, ExportError::Parse { .. }), "{err:?}");
    }
}
