//! Google Gemini `streamGenerateContent?alt=sse`: `user`/`model` contents of parts, function
//! calls and responses matched by name, tool schemas cut down to Gemini's OpenAPI subset
//! ([`gemini_schema`]), and an SSE stream of whole `GenerateContentResponse`s whose function
//! calls arrive complete and without ids.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::openai::{PendingCall, finish_reason};
use super::{
    ChatMessage, ChatRequest, FinishReason, Frame, Framing, ModelInfo, ProviderError,
    ProviderEvent, StreamParser, ToolCall, ToolSpec, Usage, UserPart, WireFormat, WireRequest,
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
pub struct Gemini;

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
}

fn generates_content(model: &Value) -> bool {
    let methods = model
        .get("supportedGenerationMethods")
        .and_then(Value::as_array);
    methods.is_none_or(|ms| ms.iter().any(|m| m == "generateContent"))
}

/// The JSON body of a `streamGenerateContent` request.
pub fn request_body(req: &ChatRequest) -> Value {
    let mut body = json!({ "contents": contents(&req.messages) });
    if let Some(system) = req.system.as_deref().filter(|s| !s.is_empty()) {
        body["systemInstruction"] = json!({ "parts": [{ "text": system }] });
    }
    if !req.tools.is_empty() {
        let declarations: Vec<Value> = req.tools.iter().map(declaration).collect();
        body["tools"] = json!([{ "functionDeclarations": declarations }]);
    }
    let config = generation_config(req);
    if !config.is_empty() {
        body["generationConfig"] = Value::Object(config);
    }
    req.merge_extra(&mut body);
    body
}

fn generation_config(req: &ChatRequest) -> Map<String, Value> {
    let p = &req.params;
    let thinking = (req.reasoning == Some(true)).then(|| json!({ "includeThoughts": true }));
    let fields = [
        ("temperature", p.temperature.map(Value::from)),
        ("topP", p.top_p.map(Value::from)),
        ("maxOutputTokens", p.max_tokens.map(Value::from)),
        ("stopSequences", (!p.stop.is_empty()).then(|| json!(p.stop))),
        // Gemini's seed is an int32.
        ("seed", p.seed.map(|s| Value::from(s & 0x7fff_ffff))),
        ("thinkingConfig", thinking),
    ];
    let set = |(k, v): (&str, Option<Value>)| Some((k.to_owned(), v?));
    fields.into_iter().filter_map(set).collect()
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
pub fn gemini_schema(schema: &Value) -> Value {
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
pub struct Parser {
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

    /// A complete call; `call_{n}` when Gemini sends no id.
    fn call(&mut self, call: FunctionCall) -> ProviderEvent {
        let fallback = format!("call_{}", self.calls);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::framing::decode_at_every_split;
    use crate::provider::{ProviderKind, SamplingParams, wire_format};

    type Decoded = Vec<Result<ProviderEvent, ProviderError>>;

    async fn decode(body: &str) -> Decoded {
        decode_at_every_split(
            body.as_bytes(),
            Framing::Sse,
            || Box::new(Parser::default()),
        )
        .await
        .unwrap()
    }

    /// SSE from data lines, separated the way Gemini does (`\r\n\r\n`).
    fn sse(chunks: &[&str]) -> String {
        chunks
            .iter()
            .map(|c| format!("data: {c}\r\n\r\n"))
            .collect()
    }

    /// The text streaming example of the Gemini API documentation.
    const DOCS_TEXT: &str = "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"The\"}],\"role\": \"model\"},\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 8,\"totalTokenCount\": 8},\"modelVersion\": \"gemini-2.5-flash\"}\r\n\r\ndata: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \" opposite of hot is cold.\"}],\"role\": \"model\"},\"finishReason\": \"STOP\",\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 8,\"candidatesTokenCount\": 7,\"totalTokenCount\": 15},\"modelVersion\": \"gemini-2.5-flash\"}\r\n\r\n";

    /// Thought summaries, text and two parallel function calls, shaped like the
    /// documentation's thinking and function-calling responses.
    const DOCS_THOUGHTS_AND_CALLS: &str = r#"data: {"candidates": [{"content": {"parts": [{"text": "**Planning the lookup**\n\nThe user asks about Boston and Tōkyō; I'll call the weather tool twice.","thought": true}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 52,"totalTokenCount": 101,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 52}],"thoughtsTokenCount": 49},"modelVersion": "gemini-2.5-flash","responseId": "8bQ5aJ6dLqCYz7IPlq6y4Ag"}

data: {"candidates": [{"content": {"parts": [{"text": "Let me check both cities"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 52,"candidatesTokenCount": 5,"totalTokenCount": 106,"thoughtsTokenCount": 49},"modelVersion": "gemini-2.5-flash","responseId": "8bQ5aJ6dLqCYz7IPlq6y4Ag"}

data: {"candidates": [{"content": {"parts": [{"text": " — one moment."},{"functionCall": {"name": "get_current_weather","args": {"location": "Boston, MA"}},"thoughtSignature": "CiQB0e2Kb2Z0Y0hGZ1lxTkd3"},{"functionCall": {"name": "get_current_weather","args": {"location": "Tōkyō"}}}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 52,"candidatesTokenCount": 31,"totalTokenCount": 132,"thoughtsTokenCount": 49},"modelVersion": "gemini-2.5-flash","responseId": "8bQ5aJ6dLqCYz7IPlq6y4Ag"}

"#;

    const HELLO: &str =
        r#"{"candidates":[{"content":{"parts":[{"text":"Hello"}],"role":"model"},"index":0}]}"#;

    fn usage(input_tokens: u64, output_tokens: u64) -> ProviderEvent {
        ProviderEvent::Usage {
            usage: Usage {
                input_tokens,
                output_tokens,
            },
        }
    }

    fn finish(reason: FinishReason) -> ProviderEvent {
        ProviderEvent::Finish { reason }
    }

    fn weather(id: &str, location: &str) -> ProviderEvent {
        let call = ToolCall {
            id: id.into(),
            name: "get_current_weather".into(),
            arguments: json!({ "location": location }),
        };
        ProviderEvent::ToolCall { call }
    }

    #[tokio::test]
    async fn the_documented_text_stream_ends_with_the_last_usage_then_stop() {
        let expected = vec![
            Ok(ProviderEvent::text("The")),
            Ok(ProviderEvent::text(" opposite of hot is cold.")),
            Ok(usage(8, 7)),
            Ok(finish(FinishReason::Stop)),
        ];
        assert_eq!(decode(DOCS_TEXT).await, expected);
    }

    #[tokio::test]
    async fn function_calls_get_stable_ids_and_stop_becomes_tool_calls() {
        let thought = "**Planning the lookup**\n\nThe user asks about Boston and Tōkyō; I'll call the weather tool twice.";
        let expected = vec![
            Ok(ProviderEvent::ReasoningDelta {
                text: thought.into(),
            }),
            Ok(ProviderEvent::text("Let me check both cities")),
            Ok(ProviderEvent::text(" — one moment.")),
            Ok(weather("call_0", "Boston, MA")),
            Ok(weather("call_1", "Tōkyō")),
            Ok(usage(52, 80)),
            Ok(finish(FinishReason::ToolCalls)),
        ];
        assert_eq!(decode(DOCS_THOUGHTS_AND_CALLS).await, expected);
    }

    #[tokio::test]
    async fn a_garbage_data_line_fails_after_the_events_before_it() {
        let got = decode(&sse(&[HELLO, "<html>502 Bad Gateway</html>"])).await;
        assert_eq!(got[..1], [Ok(ProviderEvent::text("Hello"))]);
        assert!(
            matches!(got[1], Err(ProviderError::MalformedStream(_))),
            "{got:?}"
        );
        assert_eq!(got.len(), 2);
    }

    #[tokio::test]
    async fn a_stream_cut_before_any_finish_reason_is_malformed_after_its_events() {
        let expected = vec![
            Ok(ProviderEvent::text("Hello")),
            Err(ProviderError::MalformedStream(
                "the stream ended without a finish reason".into(),
            )),
        ];
        assert_eq!(decode(&sse(&[HELLO])).await, expected);
    }

    #[tokio::test]
    async fn an_error_object_in_the_stream_is_a_server_error() {
        let error = r#"{"error": {"code": 503, "message": "The model is overloaded. Please try again later.", "status": "UNAVAILABLE"}}"#;
        let expected = vec![
            Ok(ProviderEvent::text("Hello")),
            Err(ProviderError::Server {
                status: 503,
                message: "The model is overloaded. Please try again later.".into(),
            }),
        ];
        assert_eq!(decode(&sse(&[HELLO, error])).await, expected);
    }

    #[tokio::test]
    async fn arguments_that_are_not_an_object_become_a_tool_call_invalid() {
        let chunk = r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"get_current_weather","args":"Boston"}}],"role":"model"},"finishReason":"STOP"}]}"#;
        let invalid = ProviderEvent::ToolCallInvalid {
            id: "call_0".into(),
            name: "get_current_weather".into(),
            raw: r#""Boston""#.into(),
            error: r#"the arguments are "Boston", not a JSON object"#.into(),
        };
        let expected = vec![Ok(invalid), Ok(finish(FinishReason::ToolCalls))];
        assert_eq!(decode(&sse(&[chunk])).await, expected);
    }

    #[tokio::test]
    async fn a_blocked_prompt_finishes_as_content_filtered() {
        let chunk = r#"{"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 7, "totalTokenCount": 7}}"#;
        let expected = vec![Ok(usage(7, 0)), Ok(finish(FinishReason::ContentFilter))];
        assert_eq!(decode(&sse(&[chunk])).await, expected);
    }

    #[test]
    fn finish_reasons_map_to_neutral_ones() {
        let cases = [
            ("MAX_TOKENS", FinishReason::Length),
            ("SAFETY", FinishReason::ContentFilter),
            ("RECITATION", FinishReason::ContentFilter),
            ("PROHIBITED_CONTENT", FinishReason::ContentFilter),
            (
                "MALFORMED_FUNCTION_CALL",
                FinishReason::Other("MALFORMED_FUNCTION_CALL".into()),
            ),
        ];
        for (wire, reason) in cases {
            let parser = Parser {
                finish: Some(wire.into()),
                ..Parser::default()
            };
            assert_eq!(parser.reason(), Some(reason), "{wire}");
        }
    }

    fn call(id: &str, city: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: "get_weather".into(),
            arguments: json!({ "city": city }),
        }
    }

    fn tool_result(content: &str, is_error: bool) -> ChatMessage {
        ChatMessage::Tool {
            call_id: "ignored".into(),
            name: "get_weather".into(),
            content: content.into(),
            is_error,
        }
    }

    /// A conversation with every kind of message: two parallel calls, their results and a
    /// follow-up; tools with a JSON-Schema-only keyword and without parameters.
    fn request() -> ChatRequest {
        let question = vec![
            UserPart::Text {
                text: "What's the weather here and in Rome?".into(),
            },
            UserPart::Image {
                mime_type: "image/png".into(),
                data: "iVBORw0KGgo=".into(),
            },
        ];
        let schema = json!({ "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object", "additionalProperties": false,
            "properties": { "city": { "type": "string" } }, "required": ["city"] });
        ChatRequest {
            model: "gemini-2.5-flash".into(),
            system: Some("Be brief.".into()),
            messages: vec![
                ChatMessage::User { parts: question },
                ChatMessage::Assistant {
                    text: "Checking both.".into(),
                    tool_calls: vec![call("call_0", "Paris"), call("call_1", "Rome")],
                },
                tool_result(r#"{"temp_c": 18, "sky": "sunny"}"#, false),
                tool_result("service unavailable", true),
                ChatMessage::user("And tomorrow?"),
            ],
            tools: vec![
                ToolSpec {
                    name: "get_weather".into(),
                    description: "Current weather for a city".into(),
                    parameters: schema,
                },
                ToolSpec {
                    name: "now".into(),
                    description: "The current time".into(),
                    parameters: json!({ "type": "object", "properties": {} }),
                },
            ],
            params: SamplingParams {
                temperature: Some(0.5),
                top_p: Some(0.9),
                max_tokens: Some(1024),
                stop: vec!["END".into()],
                seed: Some(7),
            },
            reasoning: Some(true),
            ..ChatRequest::default()
        }
    }

    #[test]
    fn results_merge_into_one_user_content_and_the_follow_up_gets_its_own() {
        let body = Gemini.build(&request()).unwrap().body;
        let signed_call = |city: &str| {
            json!({ "functionCall": { "name": "get_weather", "args": { "city": city } },
                "thoughtSignature": "skip_thought_signature_validator" })
        };
        let expected = json!({
            "contents": [
                { "role": "user", "parts": [
                    { "text": "What's the weather here and in Rome?" },
                    { "inlineData": { "mimeType": "image/png", "data": "iVBORw0KGgo=" } },
                ] },
                { "role": "model", "parts": [
                    { "text": "Checking both." }, signed_call("Paris"), signed_call("Rome"),
                ] },
                { "role": "user", "parts": [
                    { "functionResponse": { "name": "get_weather",
                        "response": { "temp_c": 18, "sky": "sunny" } } },
                    { "functionResponse": { "name": "get_weather",
                        "response": { "error": "service unavailable" } } },
                ] },
                { "role": "user", "parts": [{ "text": "And tomorrow?" }] },
            ],
            "systemInstruction": { "parts": [{ "text": "Be brief." }] },
            "tools": [{ "functionDeclarations": [
                { "name": "get_weather", "description": "Current weather for a city",
                    "parameters": { "type": "object",
                        "properties": { "city": { "type": "string" } }, "required": ["city"] } },
                { "name": "now", "description": "The current time" },
            ] }],
            "generationConfig": {
                "temperature": 0.5, "topP": 0.9, "maxOutputTokens": 1024,
                "stopSequences": ["END"], "seed": 7,
                "thinkingConfig": { "includeThoughts": true },
            },
        });
        assert_eq!(body, expected);
    }

    #[test]
    fn tool_results_that_are_not_objects_are_wrapped() {
        assert_eq!(function_response("42", false), json!({ "content": 42 }));
        assert_eq!(
            function_response("done.", false),
            json!({ "content": "done." })
        );
        assert_eq!(
            function_response("[1, 2]", false),
            json!({ "content": [1, 2] })
        );
        assert_eq!(
            function_response(r#"{"a": 1}"#, true),
            json!({ "error": { "a": 1 } })
        );
    }

    #[test]
    fn gemini_schema_inlines_refs_and_keeps_only_the_accepted_subset() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Args",
            "type": "object",
            "additionalProperties": false,
            "$defs": { "Address": { "type": "object", "title": "Address",
                "properties": {
                    "street": { "type": "string" },
                    "zip": { "type": ["string", "null"], "default": null },
                },
                "required": ["street", "country"], "additionalProperties": false } },
            "properties": {
                "home": { "$ref": "#/$defs/Address", "description": "Where they live" },
                "site": { "type": "string", "format": "uri", "examples": ["https://example.com"] },
                "when": { "type": "string", "format": "date-time" },
                "kind": { "const": "person" },
                "age": { "anyOf": [{ "type": "integer", "minimum": 0 }, { "type": "null" }],
                    "default": null, "title": "Age" },
                "tags": { "type": "array", "items": { "type": "string", "enum": ["a", "b"] },
                    "minItems": 1 },
            },
            "required": ["home", "kind", "missing"],
        });
        let expected = json!({
            "type": "object",
            "properties": {
                "home": { "type": "object", "description": "Where they live",
                    "properties": {
                        "street": { "type": "string" },
                        "zip": { "type": "string", "nullable": true },
                    },
                    "required": ["street"] },
                "site": { "type": "string" },
                "when": { "type": "string", "format": "date-time" },
                "kind": { "type": "string", "enum": ["person"] },
                "age": { "type": "integer", "minimum": 0, "nullable": true },
                "tags": { "type": "array", "items": { "type": "string", "enum": ["a", "b"] },
                    "minItems": 1 },
            },
            "required": ["home", "kind"],
        });
        assert_eq!(gemini_schema(&schema), expected);
    }

    #[test]
    fn gemini_schema_cuts_recursive_refs_at_the_depth_limit() {
        let schema = json!({
            "$ref": "#/$defs/Node",
            "$defs": { "Node": { "type": "object",
                "properties": { "child": { "$ref": "#/$defs/Node" } } } },
        });
        let converted = gemini_schema(&schema);
        let deepest = "/properties/child".repeat(MAX_REF_DEPTH);
        assert_eq!(
            converted.pointer(&deepest),
            Some(&json!({ "type": "object" }))
        );
        let above = &deepest[..deepest.len() - "/properties/child".len()];
        assert!(converted.pointer(above).unwrap()["properties"].is_object());
    }

    #[test]
    fn gemini_schema_keeps_several_branches_as_any_of_and_drops_keywords_foreign_to_the_type() {
        let schema =
            json!({ "oneOf": [{ "type": "string" }, { "type": "number" }, { "type": "null" }] });
        let expected = json!({ "nullable": true,
            "anyOf": [{ "type": "string" }, { "type": "number" }] });
        assert_eq!(gemini_schema(&schema), expected);
        let text = json!({ "type": "string", "properties": { "a": {} }, "required": ["a"] });
        assert_eq!(gemini_schema(&text), json!({ "type": "string" }));
        let level = json!({ "type": "integer", "enum": [1, 2, 3], "format": "int32" });
        assert_eq!(
            gemini_schema(&level),
            json!({ "type": "integer", "format": "int32" })
        );
    }

    #[test]
    fn the_format_is_registered_with_its_path_header_and_model_list() {
        let format = wire_format(ProviderKind::Gemini);
        let req = ChatRequest {
            model: "models/gemini-2.5-flash".into(),
            ..ChatRequest::default()
        };
        let path = format.build(&req).unwrap().path;
        assert_eq!(
            path,
            "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
        );
        let key = ("x-goog-api-key".to_owned(), "AIza-1".to_owned());
        assert_eq!(format.auth_headers("AIza-1"), [key]);
        assert_eq!(format.models_path(), "/v1beta/models?pageSize=1000");
        let body = json!({ "models": [
            { "name": "models/gemini-2.5-flash", "displayName": "Gemini 2.5 Flash",
                "supportedGenerationMethods": ["generateContent", "countTokens"] },
            { "name": "models/text-embedding-004", "displayName": "Text Embedding 004",
                "supportedGenerationMethods": ["embedContent"] },
            { "name": "models/gemini-2.5-pro" },
        ], "nextPageToken": "" });
        let expected = vec![
            ModelInfo {
                id: "gemini-2.5-flash".into(),
                name: Some("Gemini 2.5 Flash".into()),
            },
            ModelInfo {
                id: "gemini-2.5-pro".into(),
                name: None,
            },
        ];
        assert_eq!(format.parse_models(&body), expected);
    }
}
