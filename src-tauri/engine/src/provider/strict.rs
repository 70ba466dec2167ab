//! OpenAI strict mode ("Structured Outputs" for function calling): a tool's schema must close
//! every object (`additionalProperties: false`), list every property as required (optional
//! ones become nullable) and avoid unsupported keywords. [`strict_schema`] converts a schema
//! when it can and says no when it cannot, so such a tool is sent without `strict`.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

/// Keywords strict mode rejects; a schema using them is sent as is, without `strict`.
const UNSUPPORTED: &[&str] = &[
    "allOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "patternProperties",
    "dependentRequired",
    "dependentSchemas",
    "unevaluatedProperties",
];
/// Keywords dropped because strict mode does not accept them and they change no meaning.
const DROPPED: &[&str] = &["$schema", "default", "examples", "title"];
const MAX_DEPTH: usize = 16;

/// The strict-mode form of a tool's input schema, or `None` when it cannot be expressed.
pub(crate) fn strict_schema(schema: &Value) -> Option<Value> {
    if schema.get("type") != Some(&json!("object")) {
        return None;
    }
    convert(schema, 0)
}

/// Marks every tool of an OpenAI request body strict whose schema converts.
pub(crate) fn apply(body: &mut Value) {
    let Some(tools) = body.get_mut("tools").and_then(Value::as_array_mut) else {
        return;
    };
    for function in tools.iter_mut().filter_map(|t| t.get_mut("function")) {
        if let Some(strict) = function.get("parameters").and_then(strict_schema) {
            function["parameters"] = strict;
            function["strict"] = json!(true);
        }
    }
}

fn convert(schema: &Value, depth: usize) -> Option<Value> {
    let Some(map) = schema.as_object() else {
        return Some(schema.clone());
    };
    if depth > MAX_DEPTH || UNSUPPORTED.iter().any(|k| map.contains_key(*k)) {
        return None;
    }
    let mut out: Map<String, Value> = map
        .iter()
        .filter(|(k, _)| !DROPPED.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if map.get("type") == Some(&json!("object")) || map.contains_key("properties") {
        close_object(map, &mut out, depth)?;
    }
    if let Some(items) = map.get("items") {
        out.insert("items".into(), convert(items, depth + 1)?);
    }
    for key in ["anyOf", "prefixItems"] {
        if let Some(list) = map.get(key).and_then(Value::as_array) {
            let converted: Option<Vec<Value>> =
                list.iter().map(|s| convert(s, depth + 1)).collect();
            out.insert(key.into(), Value::Array(converted?));
        }
    }
    if let Some(defs) = map.get("$defs").and_then(Value::as_object) {
        let converted: Option<Map<String, Value>> = defs
            .iter()
            .map(|(k, s)| convert(s, depth + 1).map(|c| (k.clone(), c)))
            .collect();
        out.insert("$defs".into(), Value::Object(converted?));
    }
    Some(Value::Object(out))
}

/// Closes an object schema: every property required (optional ones nullable), no extras.
fn close_object(
    map: &Map<String, Value>,
    out: &mut Map<String, Value>,
    depth: usize,
) -> Option<()> {
    match map.get("additionalProperties") {
        None | Some(Value::Bool(false)) => {}
        Some(_) => return None,
    }
    let props = map.get("properties").and_then(Value::as_object)?;
    let required: HashSet<&str> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut closed = Map::new();
    for (name, prop) in props {
        let converted = convert(prop, depth + 1)?;
        let converted = if required.contains(name.as_str()) {
            converted
        } else {
            nullable(converted)
        };
        closed.insert(name.clone(), converted);
    }
    out.insert(
        "required".into(),
        Value::Array(props.keys().map(|k| json!(k)).collect()),
    );
    out.insert("properties".into(), Value::Object(closed));
    out.insert("additionalProperties".into(), json!(false));
    Some(())
}

/// `schema` that also accepts `null` (an `enum` gets `null` too, or it would still refuse it).
fn nullable(mut schema: Value) -> Value {
    if let Some(values) = schema.get_mut("enum").and_then(Value::as_array_mut)
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    match schema.get("type").cloned() {
        Some(Value::String(t)) if t != "null" => {
            schema["type"] = json!([t, "null"]);
            schema
        }
        Some(Value::Array(mut types)) => {
            if !types.contains(&json!("null")) {
                types.push(json!("null"));
            }
            schema["type"] = Value::Array(types);
            schema
        }
        _ => json!({ "anyOf": [schema, { "type": "null" }] }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_properties_become_nullable_and_every_object_is_closed() {
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "url": { "type": "string", "description": "URL to fetch" },
                "max_length": { "type": "integer", "default": 5000 },
                "opts": { "type": "object", "properties": { "raw": { "type": "boolean" } } },
                "tags": { "type": "array", "items": { "type": "string" } }
            },
            "required": ["url"]
        });
        assert_eq!(
            strict_schema(&schema),
            Some(json!({
                "type": "object",
                "properties": {
                    "url": { "type": "string", "description": "URL to fetch" },
                    "max_length": { "type": ["integer", "null"] },
                    "opts": {
                        "type": ["object", "null"],
                        "properties": { "raw": { "type": ["boolean", "null"] } },
                        "required": ["raw"],
                        "additionalProperties": false
                    },
                    "tags": { "type": ["array", "null"], "items": { "type": "string" } }
                },
                "required": ["max_length", "opts", "tags", "url"],
                "additionalProperties": false
            }))
        );
    }

    #[test]
    fn schemas_strict_mode_cannot_express_are_left_alone() {
        let open = json!({ "type": "object", "properties": {}, "additionalProperties": true });
        let all_of = json!({ "type": "object", "properties": { "a": { "allOf": [] } } });
        let free_form = json!({ "type": "object" });
        let not_object = json!({ "type": "string" });
        for schema in [open, all_of, free_form, not_object] {
            assert_eq!(strict_schema(&schema), None, "{schema}");
        }
    }

    #[test]
    fn apply_marks_only_the_tools_that_convert() {
        let mut body = json!({ "tools": [
            { "type": "function", "function": { "name": "a", "parameters": { "type": "object", "properties": { "x": { "type": "string" } }, "required": ["x"] } } },
            { "type": "function", "function": { "name": "b", "parameters": { "type": "object" } } }
        ] });
        apply(&mut body);
        assert_eq!(body["tools"][0]["function"]["strict"], json!(true));
        assert_eq!(
            body["tools"][0]["function"]["parameters"]["additionalProperties"],
            json!(false)
        );
        assert_eq!(body["tools"][1]["function"].get("strict"), None);
    }
}
