//! JSON Schema to llama.cpp GBNF, for the subset tool schemas use: objects (`properties`,
//! `required`; no other keys), strings, numbers, integers, booleans, null, `enum`, `const`,
//! arrays (`items`, `maxItems`), type lists and `anyOf`/`oneOf`. Anything else (`$ref`, patterns, …) is
//! left open as any JSON value. Properties come in the schema's order, required ones first.

use std::fmt::Write;

use serde_json::{Map, Value};

/// The largest `maxItems` spelled out (beyond it an array is unbounded).
const MAX_BOUNDED_ITEMS: u64 = 32;
/// Keywords the grammar does not hold; what they constrain is left open and checked after
/// the call (the host validates every call's arguments against the tool's schema).
const OPEN_KEYS: [&str; 6] = ["$ref", "patternProperties", "pattern", "allOf", "not", "if"];
/// The most `enum` values spelled out; a longer list is left open (any JSON value) and the
/// arguments are checked after the call, since thousands of alternatives slow every token.
const MAX_ENUM: usize = 256;

/// How deep containers of a value left open (any JSON) nest: past it only strings, numbers,
/// booleans and null. A small model filling a free-form object otherwise nests it deeper and
/// deeper (`{"items": [{"items": [{…`) until the output cap, and the call never closes.
const OPEN_DEPTH: usize = 4;

/// The shared rules every grammar may use (without the open value's, [`open_rules`]).
const PRIMITIVES: &str = r#"ws ::= [ ]?
string ::= "\"" ( [^"\\\x7F\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] ) )* "\""
integer ::= "-"? ( [0-9] | [1-9] [0-9] [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? )
number ::= integer ( "." [0-9] [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? )? ( [eE] [-+]? [0-9] [0-9]? [0-9]? )?
boolean ::= "true" | "false"
null ::= "null"
scalar ::= string | number | boolean | null
"#;

/// The rules of a value left open, made once ([`open_rules`]).
static OPEN_RULES: std::sync::LazyLock<String> = std::sync::LazyLock::new(open_rules);

/// The rules of a value left open: `value`, `object` and `array` hold containers
/// [`OPEN_DEPTH`] deep at most (`value-d2`, `object-d2`, … the levels below).
fn open_rules() -> String {
    let level = |depth: usize| {
        if depth == 1 {
            String::new()
        } else {
            format!("-d{depth}")
        }
    };
    let mut out = String::new();
    for depth in 1..=OPEN_DEPTH {
        let (this, inner) = (level(depth), level(depth + 1));
        let item = if depth == OPEN_DEPTH {
            "scalar".to_owned()
        } else {
            format!("value{inner}")
        };
        let _ = writeln!(out, "value{this} ::= object{this} | array{this} | scalar");
        let _ = writeln!(
            out,
            r#"object{this} ::= "{{" ws ( string ws ":" ws {item} ( "," ws string ws ":" ws {item} )* )? ws "}}""#
        );
        let _ = writeln!(
            out,
            r#"array{this} ::= "[" ws ( {item} ( "," ws {item} )* )? ws "]""#
        );
    }
    out
}

/// A grammar being built: the rules made so far ([`Grammar::finish`] adds the root).
#[derive(Debug, Default)]
pub struct Grammar {
    rules: Vec<(String, String)>,
}

impl Grammar {
    /// An empty grammar.
    pub fn new() -> Self {
        Self::default()
    }

    /// The expression for a value following `schema`; `hint` names any rule made for it.
    pub fn value(&mut self, schema: &Value, hint: &str) -> String {
        let Value::Object(s) = schema else {
            return "value".into();
        };
        if let Some(key) = OPEN_KEYS.iter().find(|k| s.contains_key(**k)) {
            tracing::info!(key, "a schema keyword the grammar cannot hold; left open");
        }
        if let Some(c) = s.get("const") {
            return literal(c);
        }
        if let Some(Value::Array(options)) = s.get("enum") {
            if options.len() > MAX_ENUM {
                tracing::info!(
                    values = options.len(),
                    "an enum too long for the grammar is left open"
                );
                return "value".into();
            }
            let alts: Vec<String> = options.iter().map(literal).collect();
            return group(&alts);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(options)) = s.get(key) {
                let alts: Vec<String> = options
                    .iter()
                    .enumerate()
                    .map(|(i, o)| self.value(o, &format!("{hint}-{i}")))
                    .collect();
                return group(&alts);
            }
        }
        match s.get("type") {
            Some(Value::String(t)) => self.typed(t, s, hint),
            Some(Value::Array(types)) => {
                let alts: Vec<String> = types
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|t| self.typed(t, s, hint))
                    .collect();
                group(&alts)
            }
            _ if s.contains_key("properties") => self.typed("object", s, hint),
            _ => "value".into(),
        }
    }

    fn typed(&mut self, t: &str, s: &Map<String, Value>, hint: &str) -> String {
        match t {
            "string" | "integer" | "number" | "boolean" | "null" => t.into(),
            "array" => {
                let max = s.get("maxItems").and_then(Value::as_u64);
                let item = match s.get("items") {
                    Some(items) => self.value(items, &format!("{hint}-item")),
                    None if max.is_none() => return "array".into(),
                    None => "value".into(),
                };
                let more = match max {
                    Some(0) => return "\"[\" ws \"]\"".into(),
                    Some(n) if n <= MAX_BOUNDED_ITEMS => {
                        format!(" ( \",\" ws {item} )?").repeat((n - 1) as usize)
                    }
                    _ => format!(" ( \",\" ws {item} )*"),
                };
                let body = format!("\"[\" ws ( {item}{more} )? ws \"]\"");
                self.rule(hint, body)
            }
            "object" => match s.get("properties") {
                Some(Value::Object(props)) if !props.is_empty() => {
                    let body = self.object(props, s, hint);
                    self.rule(hint, body)
                }
                _ => "object".into(),
            },
            _ => "value".into(),
        }
    }

    /// An object with exactly its properties: the required ones in order, then each optional
    /// one or not.
    fn object(&mut self, props: &Map<String, Value>, s: &Map<String, Value>, hint: &str) -> String {
        let required: Vec<&str> = match s.get("required") {
            Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let mut kv = |name: &str, schema: &Value| {
            let value = self.value(schema, &format!("{hint}-{}", rule_name(name)));
            format!(
                "{} ws \":\" ws {value}",
                literal(&Value::String(name.to_owned()))
            )
        };
        let req: Vec<String> = required
            .iter()
            .filter_map(|r| props.get(*r).map(|schema| kv(r, schema)))
            .collect();
        let opt: Vec<String> = props
            .iter()
            .filter(|(k, _)| !required.contains(&k.as_str()))
            .map(|(k, schema)| kv(k, schema))
            .collect();
        let mut body = String::from("\"{\" ws ");
        body.push_str(&req.join(" \",\" ws "));
        if req.is_empty() {
            body.push_str(&optional_first(&opt));
        } else {
            for o in &opt {
                let _ = write!(body, " ( \",\" ws {o} )?");
            }
        }
        body.push_str(" ws \"}\"");
        body
    }

    /// A named rule (a fresh name when taken); returns its name.
    fn rule(&mut self, hint: &str, body: String) -> String {
        let base = rule_name(hint);
        let mut name = base.clone();
        let mut n = 1;
        while self.rules.iter().any(|(r, _)| *r == name) {
            n += 1;
            name = format!("{base}{n}");
        }
        self.rules.push((name.clone(), body));
        name
    }

    /// The grammar text with `root ::= root_expr`.
    pub fn finish(self, root_expr: &str) -> String {
        let mut out = format!("root ::= {root_expr}\n");
        for (name, body) in &self.rules {
            let _ = writeln!(out, "{name} ::= {body}");
        }
        out.push_str(PRIMITIVES);
        out.push_str(&OPEN_RULES);
        out
    }
}

/// Optional properties with none required before them: any subset, in order, comma-separated.
fn optional_first(opt: &[String]) -> String {
    if opt.is_empty() {
        return String::new();
    }
    let alts: Vec<String> = (0..opt.len())
        .map(|i| {
            let mut alt = opt[i].clone();
            for o in &opt[i + 1..] {
                let _ = write!(alt, " ( \",\" ws {o} )?");
            }
            alt
        })
        .collect();
    format!("( {} )?", alts.join(" | "))
}

/// `( a | b )`, or `a` alone.
fn group(alts: &[String]) -> String {
    match alts {
        [] => "value".into(),
        [one] => one.clone(),
        many => format!("( {} )", many.join(" | ")),
    }
}

/// A JSON value written exactly, as a GBNF string literal.
pub fn literal(value: &Value) -> String {
    let json = value.to_string();
    let mut out = String::from("\"");
    for c in json.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A rule name from any text: lowercase letters, digits and dashes.
fn rule_name(hint: &str) -> String {
    let name: String = hint
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let name = name.trim_matches('-').to_owned();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("r-{name}")
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn grammar(schema: Value) -> String {
        let mut g = Grammar::new();
        let root = g.value(&schema, "args");
        g.finish(&root)
    }

    #[test]
    fn required_properties_come_first_in_order_and_optional_ones_may_follow() {
        let text = grammar(json!({ "type": "object",
            "properties": { "a": { "type": "string" }, "b": { "type": "integer" } },
            "required": ["b"] }));
        let args = text
            .lines()
            .find(|l| l.starts_with("args ::="))
            .unwrap_or_default();
        assert_eq!(
            args,
            r#"args ::= "{" ws "\"b\"" ws ":" ws integer ( "," ws "\"a\"" ws ":" ws string )? ws "}""#
        );
        assert!(text.starts_with("root ::= args\n"), "{text}");
    }

    #[test]
    fn enums_consts_type_lists_and_arrays_become_alternatives_and_repeats() {
        let text = grammar(json!({ "type": "object", "properties": {
            "unit": { "enum": ["c", "f"] },
            "tags": { "type": "array", "items": { "type": ["string", "null"] } },
            "v": { "const": 2 } } }));
        assert!(text.contains(r#"( "\"c\"" | "\"f\"" )"#), "{text}");
        assert!(text.contains(r#"args-tags ::= "[" ws ( ( string | null ) ( "," ws ( string | null ) )* )? ws "]""#), "{text}");
        assert!(text.contains(r#""\"v\"" ws ":" ws "2""#), "{text}");
        // None required: any subset in order, so the body opens with a group of choices.
        assert!(text.contains(r#"args ::= "{" ws ( "\"tags\""#), "{text}");
    }

    #[test]
    fn max_items_bounds_an_array() {
        let text =
            grammar(json!({ "type": "array", "items": { "type": "integer" }, "maxItems": 3 }));
        assert!(
            text.contains(
                r#"args ::= "[" ws ( integer ( "," ws integer )? ( "," ws integer )? )? ws "]""#
            ),
            "{text}"
        );
    }

    #[test]
    fn what_the_subset_does_not_cover_is_left_open_as_any_value() {
        assert_eq!(
            grammar(json!({ "$ref": "#/defs/x" })).lines().next(),
            Some("root ::= value")
        );
        assert_eq!(grammar(json!(true)).lines().next(), Some("root ::= value"));
    }

    #[test]
    fn an_open_value_nests_four_containers_deep_at_most() {
        let text = grammar(json!({ "type": "object", "properties": { "data": {} } }));
        let rule = |name: &str| {
            let prefix = format!("{name} ::= ");
            text.lines()
                .find_map(|l| l.strip_prefix(prefix.as_str()))
                .unwrap_or_else(|| panic!("no {name} in {text}"))
                .to_owned()
        };
        assert_eq!(rule("value"), "object | array | scalar");
        assert!(rule("object").contains("ws value-d2 "), "{text}");
        assert!(rule("array-d3").contains("( value-d4 ( "), "{text}");
        assert_eq!(
            rule("array-d4"),
            r#""[" ws ( scalar ( "," ws scalar )* )? ws "]""#
        );
        assert!(
            rule("object-d4").contains(r#"ws ":" ws scalar ( "#),
            "{text}"
        );
        assert!(!text.contains("value-d5"), "{text}");
    }
}
