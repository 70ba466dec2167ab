//! Our types (`vocab::mcp`) → rmcp's, for serving: the reverse of `client::convert`. rmcp's
//! model types are non-exhaustive, so each is made from its wire JSON.

use rmcp::model as rm;
use serde_json::{Map, Value, json};

use crate::EngineError;
use crate::vocab::error::ToolError;
use crate::vocab::mcp::{
    McpError, Prompt, PromptInfo, PromptRole, ResourceBody, ResourceContent, ResourceInfo,
    ResourceTemplateInfo, ResultPart, ToolInfo, ToolResult,
};

/// `server`'s tool `info`, served as `name`; `None` if rmcp refuses its shape.
pub(super) fn tool(name: &str, server: &str, info: &ToolInfo) -> Option<rm::Tool> {
    let mut annotations = Map::new();
    let hints = [
        ("readOnlyHint", info.annotations.read_only),
        ("destructiveHint", info.annotations.destructive),
        ("idempotentHint", info.annotations.idempotent),
        ("openWorldHint", info.annotations.open_world),
    ];
    for (key, hint) in hints {
        if let Some(hint) = hint {
            annotations.insert(key.to_owned(), Value::Bool(hint));
        }
    }
    let description = match &info.description {
        Some(d) => format!("{d}\n\n(From the MCP server \"{server}\".)"),
        None => format!("A tool of the MCP server \"{server}\"."),
    };
    let mut wire = json!({
        "name": name,
        "description": description,
        "inputSchema": info.input_schema,
    });
    if let Some(title) = &info.title {
        wire["title"] = json!(title);
    }
    if let Some(schema) = &info.output_schema {
        wire["outputSchema"] = json!(schema);
    }
    if !annotations.is_empty() {
        wire["annotations"] = Value::Object(annotations);
    }
    serde_json::from_value(wire)
        .inspect_err(
            |error| tracing::warn!(%error, %server, tool = %info.name, "a tool is not served"),
        )
        .ok()
}

/// A call's result.
pub(super) fn result(result: &ToolResult) -> rm::CallToolResult {
    let content: Vec<Value> = result.content.iter().map(part).collect();
    let mut wire =
        json!({"content": content, "isError": result.is_error, "resultType": "complete"});
    if let Some(structured) = &result.structured {
        wire["structuredContent"] = structured.clone();
    }
    serde_json::from_value(wire).unwrap_or_else(|error| {
        rm::CallToolResult::error(vec![rm::ContentBlock::text(format!(
            "the tool's result cannot be passed on: {error}"
        ))])
    })
}

fn part(part: &ResultPart) -> Value {
    match part {
        ResultPart::Text { text } => json!({"type": "text", "text": text}),
        ResultPart::Image { mime, data } => {
            json!({"type": "image", "mimeType": mime, "data": data})
        }
        ResultPart::Audio { mime, data } => {
            json!({"type": "audio", "mimeType": mime, "data": data})
        }
        ResultPart::ResourceLink(r) => {
            let mut link = json!({"type": "resource_link", "uri": r.uri, "name": r.name});
            optional(&mut link, "title", r.title.clone().map(Value::from));
            optional(
                &mut link,
                "description",
                r.description.clone().map(Value::from),
            );
            optional(&mut link, "mimeType", r.mime.clone().map(Value::from));
            optional(&mut link, "size", r.size.map(Value::from));
            link
        }
        ResultPart::Resource(r) => json!({"type": "resource", "resource": contents(r)}),
    }
}

fn contents(r: &ResourceContent) -> Value {
    let mut wire = match &r.body {
        ResourceBody::Text(text) => json!({"uri": r.uri, "text": text}),
        ResourceBody::Blob(blob) => json!({"uri": r.uri, "blob": blob}),
    };
    if let Some(mime) = &r.mime {
        wire["mimeType"] = json!(mime);
    }
    wire
}

/// `server`'s resource, listed under its own URI (reads are routed by it).
pub(super) fn resource(server: &str, r: &ResourceInfo) -> Option<rm::Resource> {
    let mut wire = json!({"uri": r.uri, "name": format!("{server}__{}", r.name)});
    optional(&mut wire, "title", r.title.clone().map(Value::from));
    let description = r.description.clone().unwrap_or_default();
    wire["description"] = json!(
        format!("{description} (From the MCP server \"{server}\".)")
            .trim()
            .to_owned()
    );
    optional(&mut wire, "mimeType", r.mime.clone().map(Value::from));
    optional(&mut wire, "size", r.size.map(Value::from));
    serde_json::from_value(wire).ok()
}

/// `server`'s resource template.
pub(super) fn template(server: &str, t: &ResourceTemplateInfo) -> Option<rm::ResourceTemplate> {
    let mut wire = json!({"uriTemplate": t.uri_template, "name": format!("{server}__{}", t.name)});
    optional(&mut wire, "title", t.title.clone().map(Value::from));
    optional(
        &mut wire,
        "description",
        t.description.clone().map(Value::from),
    );
    optional(&mut wire, "mimeType", t.mime.clone().map(Value::from));
    serde_json::from_value(wire).ok()
}

/// A resource's contents, as read.
pub(super) fn read(contents: &[ResourceContent]) -> Option<rm::ReadResourceResult> {
    let contents: Vec<Value> = contents.iter().map(self::contents).collect();
    serde_json::from_value(json!({"contents": contents, "resultType": "complete"})).ok()
}

/// A prompt, listed as `name`.
pub(super) fn prompt_info(name: &str, server: &str, p: &PromptInfo) -> Option<rm::Prompt> {
    let arguments: Vec<Value> = (p.arguments.iter())
        .map(|a| {
            let mut arg = json!({"name": a.name, "required": a.required});
            optional(
                &mut arg,
                "description",
                a.description.clone().map(Value::from),
            );
            arg
        })
        .collect();
    let description = p.description.clone().unwrap_or_default();
    let mut wire = json!({
        "name": name,
        "description": format!("{description} (From the MCP server \"{server}\".)").trim().to_owned(),
        "arguments": arguments,
    });
    optional(&mut wire, "title", p.title.clone().map(Value::from));
    serde_json::from_value(wire).ok()
}

/// An expanded prompt.
pub(super) fn prompt(p: &Prompt) -> Option<rm::GetPromptResult> {
    let messages: Vec<Value> = (p.messages.iter())
        .map(|m| {
            let role = match m.role {
                PromptRole::User => "user",
                PromptRole::Assistant => "assistant",
            };
            json!({"role": role, "content": part(&m.content)})
        })
        .collect();
    let mut wire = json!({"messages": messages, "resultType": "complete"});
    optional(
        &mut wire,
        "description",
        p.description.clone().map(Value::from),
    );
    serde_json::from_value(wire).ok()
}

/// Sets `wire[key]` when there is a value.
fn optional(wire: &mut Value, key: &str, value: Option<Value>) {
    if let Some(value) = value {
        wire[key] = value;
    }
}

/// The server's own JSON-RPC error in `error`, as the server sent it (code, message, data):
/// the app made the request, so the protocol error is its to see.
pub(super) fn server_error(error: &EngineError) -> Option<rmcp::ErrorData> {
    let EngineError::Tool(ToolError::Mcp(McpError::ServerError {
        code,
        message,
        data,
    })) = error
    else {
        return None;
    };
    Some(rmcp::ErrorData::new(
        rm::ErrorCode(*code),
        message.clone(),
        data.clone(),
    ))
}

/// `error` for the app: the server's own JSON-RPC error, else an internal error saying why.
pub(super) fn failure(error: &EngineError) -> rmcp::ErrorData {
    server_error(error).unwrap_or_else(|| rmcp::ErrorData::internal_error(error.to_string(), None))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::mcp::{ResourceInfo, ToolAnnotations};

    #[test]
    fn a_served_tool_keeps_its_schema_hints_and_says_its_server() {
        let info = ToolInfo {
            name: "get_current_time".into(),
            title: Some("Current time".into()),
            description: Some("The time in a zone".into()),
            input_schema: serde_json::from_value(
                json!({"type": "object", "properties": {"timezone": {"type": "string"}}}),
            )
            .unwrap(),
            output_schema: None,
            annotations: ToolAnnotations {
                read_only: Some(true),
                ..ToolAnnotations::default()
            },
            ui: None,
        };
        let served = tool("time__get_current_time", "time", &info).unwrap();
        let wire = serde_json::to_value(&served).unwrap();
        assert_eq!(wire["name"], "time__get_current_time");
        assert_eq!(wire["title"], "Current time");
        assert_eq!(
            wire["inputSchema"]["properties"]["timezone"]["type"],
            "string"
        );
        assert_eq!(wire["annotations"]["readOnlyHint"], true);
        assert!(wire["annotations"].get("destructiveHint").is_none());
        assert!(wire["description"].as_str().unwrap().contains("\"time\""));
    }

    #[test]
    fn a_result_passes_on_every_kind_of_content() {
        let result = ToolResult {
            content: vec![
                ResultPart::Text { text: "hi".into() },
                ResultPart::Image {
                    mime: "image/png".into(),
                    data: "iVBO".into(),
                },
                ResultPart::ResourceLink(ResourceInfo {
                    uri: "file:///a.txt".into(),
                    name: "a.txt".into(),
                    title: None,
                    description: None,
                    mime: Some("text/plain".into()),
                    size: Some(3),
                }),
                ResultPart::Resource(ResourceContent {
                    uri: "mem://x".into(),
                    mime: None,
                    body: ResourceBody::Text("body".into()),
                }),
            ],
            structured: Some(json!({"ok": true})),
            is_error: true,
        };
        let wire = serde_json::to_value(super::result(&result)).unwrap();
        assert_eq!(wire["content"][0], json!({"type": "text", "text": "hi"}));
        assert_eq!(wire["content"][1]["mimeType"], "image/png");
        assert_eq!(wire["content"][2]["size"], 3);
        assert_eq!(wire["content"][3]["resource"]["text"], "body");
        assert_eq!(wire["structuredContent"], json!({"ok": true}));
        assert_eq!(wire["isError"], true);
    }
}
