//! Google Gemini `streamGenerateContent?alt=sse`: `user`/`model` contents of parts, function
//! calls and responses matched by name, tool schemas cut down to Gemini's OpenAPI subset
//! ([`gemini_schema`]), and an SSE stream of whole `GenerateContentResponse`s whose function
//! calls arrive complete and without ids.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::openai::{PendingCall, finish_reason};
use super::{
    ChatMessage, ChatRequest, ContextRequest, FinishReason, Frame, Framing, ModelInfo,
    ProviderError, ProviderEvent, StreamParser, ToolCall, ToolSpec, Usage, UserPart, WireFormat,
    WireRequest, tokens,
};

/// The documented stand-in for a function call's `thoughtSignature`, which Gemini 3 requires
/// on replayed calls and the neutral history does not keep.
const SKIP_SIGNATURE: &str = "skip_thought_signature_validator";
/// How many `$ref`s deep a schema is inlined before cycles are cut.
const MAX_REF_DEPTH: usize = 8;
/// Schema keywords Gemini accepts that are copied unchanged.
const COPIED: [&str; 8] = [
    "description",
    "nullable",
    "enum",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "propertyOrdering",
];

/// The Gemini wire format.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Gemini;

impl WireFormat for Gemini {
    fn framing(&self) -> Framing {
        Framing::Sse
    }

    fn build(&self, req: &ChatRequest) -> Result<WireRequest, ProviderError> {
        let model = req.model.strip_prefix("models/").unwrap_or(&req.model);
        if model.is_empty() {
            return Err(ProviderError::Config("no model is selected".into()));
        }
        Ok(WireRequest {
            path: format!("/v1beta/models/{model}:streamGenerateContent?alt=sse"),
            headers: Vec::new(),
            body: request_body(req),
        })
    }

    fn auth_headers(&self, key: &str) -> Vec<(String, String)> {
        vec![("x-goog-api-key".into(), key.to_owned())]
    }

    fn parser(&self) -> Box<dyn StreamParser> {
        Box::new(Parser::default())
    }

    fn models_path(&self) -> String {
        "/v1beta/models?pageSize=1000".into()
    }

    /// Models that generate content (embedding models and the like are left out).
    fn parse_models(&self, body: &Value) -> Vec<ModelInfo> {
        let list = body.get("models").and_then(Value::as_array);
        list.into_iter()
            .flatten()
            .filter(|m| generates_content(m))
            .filter_map(|m| {
                let name = m.get("name")?.as_str()?;
                Some(ModelInfo {
                    id: name.strip_prefix("models/").unwrap_or(name).to_owned(),
                    name: m.get("displayName").and_then(Value::as_str).map(Into::into),
                })
            })
            .collect()
    }

    /// The model's own entry, whose `inputTokenLimit` is its context window.
    fn context_request(&self, model: &str) -> Option<ContextRequest> {
        Some(ContextRequest {
            path: Self::model_path(model),
            body: None,
        })
    }

    fn parse_context_window(&self, _model: &str, body: &Value) -> Option<u32> {
        tokens(body.get("inputTokenLimit")?)
    }
}

impl Gemini {
    fn model_path(model: &str) -> String {
        let model = model.strip_prefix("models/").unwrap_or(model);
        format!("/v1beta/models/{model}")
    }
}

fn generates_content(model: &Value) -> bool {
    let methods = model
        .get("supportedGenerationMethods")
        .and_then(Value::as_array);
    methods.is_none_or(|ms| ms.iter().any(|m| m == "generateContent"))
}

/// The JSON body of a `streamGenerateContent` request.
pub(crate) fn request_body(req: &ChatRequest) -> Value {
    let mut body = json!({ "contents": contents(&req.messages) });
    if let Some(system) = req.system.as_deref().filter(|s| !s.is_empty()) {
        body["systemInstruction"] = json!({ "parts": [{ "text": system }] });
    }
    if !req.tools.is_empty() {
        let declarations: Vec<Value> = req.tools.iter().map(declaration).collect();
        body["tools"] = json!([{ "functionDeclarations": declarations }]);
    }
    let config = config::generation_config(req);
    if !config.is_empty() {
        body["generationConfig"] = Value::Object(config);
    }
    req.merge_extra(&mut body);
    body
}

/// A function declaration; a function without parameters gets none (Gemini rejects an
/// object schema with no properties).
fn declaration(tool: &ToolSpec) -> Value {
    let mut d = json!({ "name": tool.name, "description": tool.description });
    let parameters = gemini_schema(&tool.parameters);
    let empty = parameters["properties"]
        .as_object()
        .is_none_or(Map::is_empty);
    if !(empty && parameters["type"] == "object") {
        d["parameters"] = parameters;
    }
    d
}

/// Which kind of content a message becomes: function responses stay apart from user text
/// (Gemini wants a function-response turn to hold only the responses).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Turn {
    User,
    Model,
    Responses,
}

/// Contents, consecutive messages of the same kind merged, empty ones dropped.
fn contents(history: &[ChatMessage]) -> Vec<Value> {
    let mut turns: Vec<(Turn, Vec<Value>)> = Vec::new();
    for m in history {
        let (turn, parts) = parts(m);
        if parts.is_empty() {
            continue;
        }
        match turns.last_mut() {
            Some((last, existing)) if *last == turn => existing.extend(parts),
            _ => turns.push((turn, parts)),
        }
    }
    let content = |(turn, parts)| {
        let role = if turn == Turn::Model { "model" } else { "user" };
        json!({ "role": role, "parts": parts })
    };
    turns.into_iter().map(content).collect()
}

fn parts(m: &ChatMessage) -> (Turn, Vec<Value>) {
    match m {
        ChatMessage::User { parts } => (Turn::User, parts.iter().filter_map(user_part).collect()),
        ChatMessage::Assistant { text, tool_calls } => {
            let text = (!text.is_empty()).then(|| json!({ "text": text }));
            let calls = tool_calls.iter().map(function_call);
            (Turn::Model, text.into_iter().chain(calls).collect())
        }
        ChatMessage::Tool {
            name,
            content,
            is_error,
            ..
        } => {
            let response = function_response(content, *is_error);
            let part = json!({ "functionResponse": { "name": name, "response": response } });
            (Turn::Responses, vec![part])
        }
    }
}

fn user_part(part: &UserPart) -> Option<Value> {
    match part {
        UserPart::Text { text } if text.is_empty() => None,
        UserPart::Text { text } => Some(json!({ "text": text })),
        UserPart::Image { mime_type, data } => {
            Some(json!({ "inlineData": { "mimeType": mime_type, "data": data } }))
        }
    }
}

fn function_call(c: &ToolCall) -> Value {
    let args = if c.arguments.is_object() {
        c.arguments.clone()
    } else {
        json!({})
    };
    json!({ "functionCall": { "name": c.name, "args": args }, "thoughtSignature": SKIP_SIGNATURE })
}

/// A tool result as the object Gemini wants: a JSON object as is, anything else under
/// `content`; a failure under `error` (the key Gemini documents for errors).
fn function_response(content: &str, is_error: bool) -> Value {
    let parsed = serde_json::from_str::<Value>(content);
    let value = parsed.unwrap_or_else(|_| Value::String(content.to_owned()));
    match value {
        v if is_error => json!({ "error": v }),
        Value::Object(o) => Value::Object(o),
        v => json!({ "content": v }),
    }
}

/// `schema` cut down to the OpenAPI subset Gemini accepts: local `$ref`s inlined (up to
/// [`MAX_REF_DEPTH`] deep), `type` unions turned into `nullable`, `const` into a one-value
/// `enum`, `oneOf` into `anyOf`, null branches of `anyOf` into `nullable`, single-branch
/// `allOf` merged, and every other keyword dropped.
pub(crate) fn gemini_schema(schema: &Value) -> Value {
    convert(schema, schema, 0)
}

fn convert(node: &Value, root: &Value, depth: usize) -> Value {
    let Some(obj) = node.as_object() else {
        return json!({});
    };
    if let Some(reference) = obj.get("$ref").and_then(Value::as_str) {
        return resolve(reference, obj, root, depth);
    }
    let mut out = Map::new();
    for key in COPIED {
        if let Some(v) = obj.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    if let Some(c) = obj.get("const") {
        out.insert("enum".into(), json!([c]));
    }
    set_type(obj.get("type"), &mut out);
    convert_children(obj, root, depth, &mut out);
    merge_branches(obj, root, depth, &mut out);
    finalize(obj, &mut out);
    Value::Object(out)
}

/// Inlines a local reference; one that cannot be followed becomes a plain object.
fn resolve(reference: &str, obj: &Map<String, Value>, root: &Value, depth: usize) -> Value {
    let target = reference.strip_prefix('#').and_then(|p| root.pointer(p));
    let mut out = match target {
        Some(t) if depth < MAX_REF_DEPTH => convert(t, root, depth + 1),
        _ => json!({ "type": "object" }),
    };
    if let Some(d) = obj.get("description") {
        out["description"] = d.clone();
    }
    out
}

/// `type`, a union with `null` becoming `nullable` (the first other type is kept).
fn set_type(ty: Option<&Value>, out: &mut Map<String, Value>) {
    let types: Vec<&str> = match ty {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if types.contains(&"null") {
        out.insert("nullable".into(), json!(true));
    }
    if let Some(t) = types.iter().find(|t| **t != "null") {
        out.insert("type".into(), json!(t));
    }
}

fn convert_children(
    obj: &Map<String, Value>,
    root: &Value,
    depth: usize,
    out: &mut Map<String, Value>,
) {
    if let Some(props) = obj.get("properties").and_then(Value::as_object) {
        let props: Map<String, Value> = props
            .iter()
            .map(|(k, v)| (k.clone(), convert(v, root, depth)))
            .collect();
        let required = obj
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten();
        let known = |r: &&Value| r.as_str().is_some_and(|r| props.contains_key(r));
        let required: Vec<Value> = required.filter(known).cloned().collect();
        if !required.is_empty() {
            out.insert("required".into(), Value::Array(required));
        }
        out.insert("properties".into(), Value::Object(props));
    }
    if let Some(items) = obj.get("items") {
        let first = items.as_array().and_then(|a| a.first()).unwrap_or(items);
        out.insert("items".into(), convert(first, root, depth));
    }
}

/// `anyOf`/`oneOf` without their null branches (which make the node `nullable`), a single
/// remaining branch merged into the node; `allOf` branches merged.
fn merge_branches(
    obj: &Map<String, Value>,
    root: &Value,
    depth: usize,
    out: &mut Map<String, Value>,
) {
    let branches = |key| obj.get(key).and_then(Value::as_array).into_iter().flatten();
    let any = branches("anyOf").chain(branches("oneOf"));
    let (nulls, rest): (Vec<&Value>, Vec<&Value>) = any.partition(|b| b["type"] == "null");
    if !nulls.is_empty() {
        out.insert("nullable".into(), json!(true));
    }
    let mut any: Vec<Value> = rest.into_iter().map(|b| convert(b, root, depth)).collect();
    if any.len() > 1 {
        out.insert("anyOf".into(), Value::Array(any));
    } else {
        any.extend(branches("allOf").map(|b| convert(b, root, depth)));
        for (k, v) in any
            .into_iter()
            .filter_map(|b| b.as_object().cloned())
            .flatten()
        {
            out.entry(k).or_insert(v);
        }
    }
}

/// Infers a missing `type`, drops the keywords Gemini rejects on the node's type and keeps
/// `format` only where Gemini supports it.
fn finalize(obj: &Map<String, Value>, out: &mut Map<String, Value>) {
    if let Some(t) = infer_type(out) {
        out.insert("type".into(), json!(t));
    }
    let ty = out
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    for key in misplaced(&ty) {
        out.remove(*key);
    }
    let format = obj.get("format").and_then(Value::as_str).unwrap_or("");
    if format_allowed(&ty, format) {
        out.insert("format".into(), json!(format));
    }
}

/// Keywords Gemini rejects on a type: `enum` is for strings only, `properties` and
/// `required` for objects, `items` for arrays.
fn misplaced(ty: &str) -> &'static [&'static str] {
    match ty {
        "object" => &["enum", "items"],
        "array" => &["enum", "properties", "required"],
        "string" => &["properties", "required", "items"],
        _ => &["enum", "properties", "required", "items"],
    }
}

/// The type a node without one evidently has.
fn infer_type(out: &Map<String, Value>) -> Option<&'static str> {
    if out.contains_key("type") || out.contains_key("anyOf") {
        return None;
    }
    if out.contains_key("properties") {
        return Some("object");
    }
    if out.contains_key("items") {
        return Some("array");
    }
    let strings = out.get("enum")?.as_array()?.iter().all(Value::is_string);
    strings.then_some("string")
}

fn format_allowed(ty: &str, format: &str) -> bool {
    matches!(
        (ty, format),
        ("string", "enum" | "date-time")
            | ("integer", "int32" | "int64")
            | ("number", "float" | "double")
    )
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Chunk {
    #[serde(default)]
    candidates: Vec<Candidate>,
    usage_metadata: Option<WireUsage>,
    prompt_feedback: Option<PromptFeedback>,
    error: Option<WireError>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Candidate {
    content: Option<Content>,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct Content {
    #[serde(default)]
    parts: Vec<Part>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Part {
    text: Option<String>,
    #[serde(default)]
    thought: bool,
    function_call: Option<FunctionCall>,
}

#[derive(Deserialize)]
struct FunctionCall {
    id: Option<String>,
    name: String,
    args: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireUsage {
    #[serde(default)]
    prompt_token_count: u64,
    #[serde(default)]
    candidates_token_count: u64,
    #[serde(default)]
    thoughts_token_count: u64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PromptFeedback {
    block_reason: Option<String>,
}

#[derive(Deserialize)]
struct WireError {
    #[serde(default)]
    code: u16,
    #[serde(default)]
    message: String,
    #[serde(default)]
    status: String,
}

/// Decodes one `streamGenerateContent` stream. Gemini has no end marker, so `Usage` and
/// `Finish` are emitted when the body ends after a finish reason was seen.
#[derive(Default)]
pub(crate) struct Parser {
    calls: usize,
    usage: Option<Usage>,
    finish: Option<String>,
    blocked: bool,
}

impl Parser {
    fn chunk(&mut self, chunk: Chunk, out: &mut Vec<ProviderEvent>) {
        if let Some(candidate) = chunk.candidates.into_iter().next() {
            for part in candidate.content.map(|c| c.parts).into_iter().flatten() {
                self.part(part, out);
            }
            if let Some(reason) = candidate.finish_reason.filter(|r| !r.is_empty()) {
                self.finish = Some(reason);
            }
        }
        if let Some(u) = chunk.usage_metadata {
            self.usage = Some(Usage {
                input_tokens: u.prompt_token_count,
                output_tokens: u.candidates_token_count + u.thoughts_token_count,
            });
        }
        let blocked = chunk.prompt_feedback.and_then(|f| f.block_reason);
        self.blocked |= blocked.is_some();
    }

    fn part(&mut self, part: Part, out: &mut Vec<ProviderEvent>) {
        match (part.text.filter(|t| !t.is_empty()), part.function_call) {
            (_, Some(call)) => out.push(self.call(call)),
            (Some(text), None) if part.thought => out.push(ProviderEvent::ReasoningDelta { text }),
            (Some(text), None) => out.push(ProviderEvent::text(text)),
            (None, None) => {}
        }
    }

    /// A complete call; a synthetic stable id when Gemini sends none.
    fn call(&mut self, call: FunctionCall) -> ProviderEvent {
        let args = call.args.clone().unwrap_or_default();
        let fallback = super::names::synthetic_call_id(self.calls, &call.name, &args);
        self.calls += 1;
        let pending = PendingCall {
            id: call.id.unwrap_or_default(),
            name: call.name,
            arguments: call.args.map(|a| a.to_string()).unwrap_or_default(),
        };
        pending.into_event(fallback)
    }

    fn reason(&self) -> Option<FinishReason> {
        if self.blocked && self.finish.is_none() {
            return Some(FinishReason::ContentFilter);
        }
        let reason = match self.finish.as_deref()? {
            "STOP" if self.calls > 0 => FinishReason::ToolCalls,
            "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" | "IMAGE_SAFETY" => {
                FinishReason::ContentFilter
            }
            other => finish_reason(other),
        };
        Some(reason)
    }
}

fn server_error(error: WireError) -> ProviderError {
    let status = if (100..600).contains(&error.code) {
        error.code
    } else {
        500
    };
    let message = if error.message.is_empty() {
        error.status
    } else {
        error.message
    };
    ProviderError::Server { status, message }
}

impl StreamParser for Parser {
    fn frame(
        &mut self,
        frame: Frame<'_>,
        out: &mut Vec<ProviderEvent>,
    ) -> Result<(), ProviderError> {
        let data = frame.data.trim();
        if data.is_empty() {
            return Ok(());
        }
        let chunk: Chunk = serde_json::from_str(data).map_err(|e| {
            ProviderError::MalformedStream(format!("a chunk is not valid JSON ({e}): {data:.200}"))
        })?;
        if let Some(error) = chunk.error {
            return Err(server_error(error));
        }
        self.chunk(chunk, out);
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<ProviderEvent>) -> Result<(), ProviderError> {
        let reason = self.reason().ok_or_else(|| {
            ProviderError::MalformedStream("the stream ended without a finish reason".into())
        })?;
        out.extend(
            self.usage
                .take()
                .map(|usage| ProviderEvent::Usage { usage }),
        );
        out.push(ProviderEvent::Finish { reason });
        Ok(())
    }
}

mod config;
#[cfg(test)]
mod tests;
