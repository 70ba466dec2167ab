//! Streaming reads of import files: the conversations of a JSON list (ChatGPT's and Claude's
//! `conversations.json`) or of our export's `conversations` field are handed over one at a
//! time as they are parsed from a reader, so an import holds one conversation (plus a small
//! queue), never the whole file nor all its conversations. A handler's error stops the read
//! and is the one reported.

use std::fmt;
use std::io::Read;
use std::marker::PhantomData;

use serde::Deserializer as _;
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor,
};

use super::ExportError;
use super::json::Extras;
use crate::store::{Assistant, Project};

/// What a handler's error turns into inside the parser (never shown: the handler's is).
const STOPPED: &str = "the import stopped";

/// The reader's buffer: large enough that parsing is not dominated by reads.
const BUFFER: usize = 256 * 1024;

/// Calls `each` with the index and value of every element of the JSON list `reader` holds.
pub(crate) fn each_in_list<T, R, F>(reader: R, mut each: F) -> Result<(), ExportError>
where
    T: DeserializeOwned,
    R: Read,
    F: FnMut(usize, T) -> Result<(), ExportError>,
{
    let mut de = deserializer(reader);
    let mut failed = None;
    let seed = ListSeed::<T, F> {
        each: &mut each,
        failed: &mut failed,
        item: PhantomData,
    };
    let read = seed.deserialize(&mut de).and_then(|()| de.end());
    settle(read, failed)
}

/// Calls `each` with every element of the `conversations` list of the JSON object `reader`
/// holds, puts its `assistants` and `projects` in `extras`, and returns the object's `schemaVersion`
/// (`None` when it has none). `check` judges the version as soon as it is read (our files
/// have it before the conversations).
pub(crate) fn each_in_export<T, R, F>(
    reader: R,
    check: fn(u64) -> Result<(), ExportError>,
    extras: &mut Extras,
    mut each: F,
) -> Result<Option<u64>, ExportError>
where
    T: DeserializeOwned,
    R: Read,
    F: FnMut(usize, T) -> Result<(), ExportError>,
{
    let mut de = deserializer(reader);
    let mut failed = None;
    let visitor = ExportVisitor::<T, F> {
        check,
        extras,
        each: &mut each,
        failed: &mut failed,
        item: PhantomData,
    };
    let read = (&mut de).deserialize_map(visitor);
    let read = read.and_then(|version| de.end().map(|()| version));
    match (read, failed) {
        (_, Some(error)) => Err(error),
        (Ok(version), None) => Ok(version),
        (Err(e), None) => Err(ExportError::from_json(e)),
    }
}

/// A JSON parser over `reader`, buffered.
fn deserializer<R: Read>(
    reader: R,
) -> serde_json::Deserializer<serde_json::de::IoRead<std::io::BufReader<R>>> {
    let reader = std::io::BufReader::with_capacity(BUFFER, reader);
    serde_json::Deserializer::from_reader(reader)
}

/// The handler's error if it failed, else the parser's.
fn settle(
    read: Result<(), serde_json::Error>,
    failed: Option<ExportError>,
) -> Result<(), ExportError> {
    match failed {
        Some(error) => Err(error),
        None => read.map_err(ExportError::from_json),
    }
}

/// A list read element by element, each handed to `each`.
struct ListSeed<'a, T, F> {
    each: &'a mut F,
    failed: &'a mut Option<ExportError>,
    item: PhantomData<T>,
}

impl<'de, T, F> DeserializeSeed<'de> for ListSeed<'_, T, F>
where
    T: DeserializeOwned,
    F: FnMut(usize, T) -> Result<(), ExportError>,
{
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, T, F> Visitor<'de> for ListSeed<'_, T, F>
where
    T: DeserializeOwned,
    F: FnMut(usize, T) -> Result<(), ExportError>,
{
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of conversations")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0;
        while let Some(item) = seq.next_element::<T>()? {
            if let Err(error) = (self.each)(index, item) {
                *self.failed = Some(error);
                return Err(de::Error::custom(STOPPED));
            }
            index += 1;
        }
        Ok(())
    }
}

/// Our export's top-level object: `schemaVersion`, the `conversations` list, the
/// `assistants` they started from, the `projects` they are in, other fields skipped.
struct ExportVisitor<'a, T, F> {
    check: fn(u64) -> Result<(), ExportError>,
    extras: &'a mut Extras,
    each: &'a mut F,
    failed: &'a mut Option<ExportError>,
    item: PhantomData<T>,
}

impl<'de, T, F> Visitor<'de> for ExportVisitor<'_, T, F>
where
    T: DeserializeOwned,
    F: FnMut(usize, T) -> Result<(), ExportError>,
{
    type Value = Option<u64>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Switchboard conversation export")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<u64>, A::Error> {
        let mut version = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "schemaVersion" => {
                    let v = map.next_value::<u64>()?;
                    if let Err(error) = (self.check)(v) {
                        *self.failed = Some(error);
                        return Err(de::Error::custom(STOPPED));
                    }
                    version = Some(v);
                }
                "assistants" => self.extras.assistants = map.next_value::<Vec<Assistant>>()?,
                "projects" => self.extras.projects = map.next_value::<Vec<Project>>()?,
                "conversations" => map.next_value_seed(ListSeed::<T, F> {
                    each: &mut *self.each,
                    failed: &mut *self.failed,
                    item: PhantomData,
                })?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_element_of_a_list_is_handed_over_in_order() {
        let mut seen = Vec::new();
        each_in_list(&b"[1, 2, 3]"[..], |i, n: u32| {
            seen.push((i, n));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, [(0, 1), (1, 2), (2, 3)]);
    }

    #[test]
    fn a_handlers_error_stops_the_read_and_is_the_one_reported() {
        let mut seen = 0;
        let error = each_in_list(&b"[1, 2, 3]"[..], |_, _: u32| {
            seen += 1;
            Err(ExportError::Format("no more".into()))
        })
        .unwrap_err();
        assert_eq!(seen, 1);
        assert_eq!(error.to_string(), "no more; nothing was imported");
    }

    #[test]
    fn the_exports_conversations_stream_and_its_version_is_returned() {
        let text = br#"{"format": "x", "schemaVersion": 1, "extra": {"a": [1]}, "conversations": ["a", "b"]}"#;
        let mut seen = Vec::new();
        let version = each_in_export(
            &text[..],
            |_| Ok(()),
            &mut Extras::default(),
            |_, s: String| {
                seen.push(s);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(
            (version, seen),
            (Some(1), vec!["a".to_owned(), "b".to_owned()])
        );
    }

    #[test]
    fn a_truncated_list_is_a_parse_error_with_its_position() {
        let error = each_in_list(&b"[1, 2"[..], |_, _: u32| Ok(())).unwrap_err();
        assert!(error.to_string().contains("ends early"), "{error}");
    }
}
