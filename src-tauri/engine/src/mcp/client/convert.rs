//! rmcp's types → ours (`vocab::mcp`). Kept apart from the client so the mapping of
//! each wire shape is one small function.

use rmcp::model as rm;
use rmcp::service::{ClientInitializeError, ServiceError};

use crate::vocab::mcp::{
    LogLevel, McpError, Prompt, PromptArgument, PromptInfo, PromptMessage, PromptRole, ProtocolEra,
    ResourceBody, ResourceContent, ResourceInfo, ResourceTemplateInfo, ResultPart, ServerInfo,
    ServerNotification, ToolAnnotations, ToolInfo, ToolResult,
};

/// The server's identity from what the handshake negotiated.
pub(super) fn server_info(info: &rm::ServerPeerInfo) -> ServerInfo {
    let implementation = info.server_info.clone().unwrap_or_default();
    ServerInfo {
        name: implementation.name,
        title: implementation.title,
        version: implementation.version,
        protocol_version: info.protocol_version.as_str().to_owned(),
        era: if info.protocol_version.has_initialize() {
            ProtocolEra::Handshake
        } else {
            ProtocolEra::Stateless
        },
        instructions: info.instructions.clone(),
    }
}

/// One listed tool.
pub(super) fn tool(tool: rm::Tool) -> ToolInfo {
    let annotations = tool.annotations.unwrap_or_default();
    ToolInfo {
        name: tool.name.into_owned(),
        title: tool.title.or(annotations.title),
        description: tool.description.map(|d| d.into_owned()),
        input_schema: (*tool.input_schema).clone(),
        output_schema: tool.output_schema.map(|s| (*s).clone()),
        annotations: ToolAnnotations {
            read_only: annotations.read_only_hint,
            destructive: annotations.destructive_hint,
            idempotent: annotations.idempotent_hint,
            open_world: annotations.open_world_hint,
        },
        ui: crate::vocab::mcp::ToolUi::from_meta(tool.meta.as_deref()),
    }
}

/// A tool call's result.
pub(super) fn tool_result(result: rm::CallToolResult) -> ToolResult {
    ToolResult {
        content: result.content.into_iter().map(part).collect(),
        structured: result.structured_content,
        is_error: result.is_error.unwrap_or(false),
    }
}

/// One content block.
pub(super) fn part(block: rm::ContentBlock) -> ResultPart {
    match block {
        rm::ContentBlock::Text(t) => ResultPart::Text { text: t.text },
        rm::ContentBlock::Image(i) => ResultPart::Image {
            mime: i.mime_type,
            data: i.data,
        },
        rm::ContentBlock::Audio(a) => ResultPart::Audio {
            mime: a.mime_type,
            data: a.data,
        },
        rm::ContentBlock::ResourceLink(r) => ResultPart::ResourceLink(resource(r)),
        rm::ContentBlock::Resource(e) => ResultPart::Resource(contents(e.resource)),
        // A block kind newer than rmcp 3.11 knows: keep it, as its JSON.
        other => ResultPart::Text {
            text: serde_json::to_string(&other).unwrap_or_default(),
        },
    }
}

/// One listed (or linked) resource.
pub(super) fn resource(resource: rm::Resource) -> ResourceInfo {
    ResourceInfo {
        uri: resource.uri,
        name: resource.name,
        title: resource.title,
        description: resource.description,
        mime: resource.mime_type,
        size: resource.size,
    }
}

/// One listed resource template.
pub(super) fn resource_template(t: rm::ResourceTemplate) -> ResourceTemplateInfo {
    ResourceTemplateInfo {
        uri_template: t.uri_template,
        name: t.name,
        title: t.title,
        description: t.description,
        mime: t.mime_type,
    }
}

/// A resource's contents.
pub(super) fn contents(contents: rm::ResourceContents) -> ResourceContent {
    match contents {
        rm::ResourceContents::TextResourceContents {
            uri,
            mime_type,
            text,
            ..
        } => ResourceContent {
            uri,
            mime: mime_type,
            body: ResourceBody::Text(text),
        },
        rm::ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            ..
        } => ResourceContent {
            uri,
            mime: mime_type,
            body: ResourceBody::Blob(blob),
        },
        other => ResourceContent {
            uri: String::new(),
            mime: None,
            body: ResourceBody::Text(serde_json::to_string(&other).unwrap_or_default()),
        },
    }
}

/// One listed prompt.
pub(super) fn prompt_info(prompt: rm::Prompt) -> PromptInfo {
    PromptInfo {
        name: prompt.name,
        title: prompt.title,
        description: prompt.description,
        arguments: prompt
            .arguments
            .unwrap_or_default()
            .into_iter()
            .map(|a| PromptArgument {
                name: a.name,
                description: a.description,
                required: a.required.unwrap_or(false),
            })
            .collect(),
    }
}

/// An expanded prompt.
pub(super) fn prompt(result: rm::GetPromptResult) -> Prompt {
    Prompt {
        description: result.description,
        messages: result
            .messages
            .into_iter()
            .map(|m| PromptMessage {
                role: match m.role {
                    rm::Role::User => PromptRole::User,
                    rm::Role::Assistant => PromptRole::Assistant,
                },
                content: part(m.content),
            })
            .collect(),
    }
}

/// A progress notification.
pub(super) fn progress(p: rm::ProgressNotificationParam) -> ServerNotification {
    ServerNotification::Progress {
        token: p.progress_token.0.to_string(),
        progress: p.progress,
        total: p.total,
        message: p.message,
    }
}

/// A logging notification. (Logging is deprecated by the 2026-07-28 revision; servers of
/// the handshake era still send it.)
#[allow(deprecated)]
pub(super) fn log(p: rm::LoggingMessageNotificationParam) -> ServerNotification {
    ServerNotification::Log {
        level: log_level(p.level),
        logger: p.logger,
        data: p.data,
    }
}

#[allow(deprecated)]
fn log_level(level: rm::LoggingLevel) -> LogLevel {
    match level {
        rm::LoggingLevel::Debug => LogLevel::Debug,
        rm::LoggingLevel::Info => LogLevel::Info,
        rm::LoggingLevel::Notice => LogLevel::Notice,
        rm::LoggingLevel::Warning => LogLevel::Warning,
        rm::LoggingLevel::Error => LogLevel::Error,
        rm::LoggingLevel::Critical => LogLevel::Critical,
        rm::LoggingLevel::Alert => LogLevel::Alert,
        rm::LoggingLevel::Emergency => LogLevel::Emergency,
    }
}

/// A failed request.
pub(super) fn service_error(error: ServiceError) -> McpError {
    match error {
        ServiceError::McpError(e) => McpError::ServerError {
            code: e.code.0,
            message: e.message.into_owned(),
            data: e.data,
        },
        ServiceError::TransportSend(e) => McpError::Connect(e.to_string()),
        ServiceError::TransportClosed => McpError::Closed,
        ServiceError::Cancelled { .. } => McpError::Cancelled,
        ServiceError::Timeout { timeout } => McpError::Timeout { after: timeout },
        other => McpError::Protocol(other.to_string()),
    }
}

/// A failed handshake; `stderr_tail` is the server's last stderr lines, if it has any.
pub(super) fn init_error(error: ClientInitializeError, stderr_tail: &str) -> McpError {
    let with_tail = |message: String| {
        if stderr_tail.is_empty() {
            message
        } else {
            format!("{message}; the server's stderr ends with:\n{stderr_tail}")
        }
    };
    match error {
        ClientInitializeError::TransportError { .. } if stderr_tail.is_empty() => {
            McpError::Connect(error.to_string())
        }
        ClientInitializeError::JsonRpcError(e) => McpError::Handshake(format!(
            "the server refused `initialize` ({}: {})",
            e.code.0, e.message
        )),
        ClientInitializeError::Cancelled => McpError::Cancelled,
        ClientInitializeError::ExpectedInitResult(Some(answer)) => {
            let json = serde_json::to_string(&answer).unwrap_or_default();
            McpError::NotDiscover(json.chars().take(200).collect())
        }
        other => McpError::Handshake(with_tail(other.to_string())),
    }
}
