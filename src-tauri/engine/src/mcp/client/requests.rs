//! The server's requests to us, between rmcp's wire types and ours ([`super::interact_types`],
//! [`crate::mcp::client::roots`]): sampling, roots, elicitation, and the capabilities we advertise.
#![allow(deprecated)] // sampling and roots are deprecated by 2026-07-28; handshake-era servers use them

use rmcp::model as rm;

use super::HostCapabilities;
use crate::mcp::client::interact_types::{
    ElicitationReply, ElicitationRequest, SamplingContent, SamplingMessage, SamplingRefused,
    SamplingRequest, SamplingResult, SamplingRole,
};
use crate::mcp::client::roots::RootInfo;

/// The error code of a sampling request the user rejected (the spec's example uses -1).
const USER_REJECTED: i32 = -1;

/// The `capabilities` of our `initialize` request: exactly what `host` implements.
pub(super) fn capabilities(host: HostCapabilities) -> rm::ClientCapabilities {
    let mut caps = rm::ClientCapabilities::default();
    if host.sampling {
        caps.sampling = Some(rm::SamplingCapability::default());
    }
    if host.roots {
        let mut roots = rm::RootsCapabilities::default();
        roots.list_changed = Some(true);
        caps.roots = Some(roots);
    }
    if host.elicitation_form || host.elicitation_url {
        let mut elicitation = rm::ElicitationCapability::new();
        if host.elicitation_form {
            let form = rm::FormElicitationCapability::new().with_schema_validation(true);
            elicitation = elicitation.with_form(form);
        }
        if host.elicitation_url {
            elicitation = elicitation.with_url(rm::UrlElicitationCapability::new());
        }
        caps.elicitation = Some(elicitation);
    }
    if host.apps {
        caps.extensions = Some(crate::mcp::client::app_documents::extension_capabilities());
    }
    if host.tasks {
        let extensions = caps.extensions.get_or_insert_with(Default::default);
        extensions.insert(rm::TASKS_EXTENSION_ID.to_owned(), Default::default());
    }
    caps
}

/// A `sampling/createMessage` request in our terms; tool use in sampling is refused.
pub(super) fn sampling_request(
    params: rm::CreateMessageRequestParams,
) -> Result<SamplingRequest, rm::ErrorData> {
    if params.tools.as_ref().is_some_and(|t| !t.is_empty()) {
        let msg = "tool use in sampling requests is not supported by this client";
        return Err(rm::ErrorData::invalid_params(msg, None));
    }
    let hints = (params.model_preferences.and_then(|p| p.hints)).unwrap_or_default();
    Ok(SamplingRequest {
        messages: params.messages.into_iter().map(message).collect(),
        system_prompt: params.system_prompt,
        max_tokens: params.max_tokens,
        temperature: params.temperature.map(f64::from),
        stop_sequences: params.stop_sequences.unwrap_or_default(),
        model_hints: hints.into_iter().filter_map(|h| h.name).collect(),
    })
}

fn message(message: rm::SamplingMessage) -> SamplingMessage {
    let role = match message.role {
        rm::Role::User => SamplingRole::User,
        rm::Role::Assistant => SamplingRole::Assistant,
    };
    let content = message
        .content
        .into_vec()
        .into_iter()
        .map(content)
        .collect();
    SamplingMessage { role, content }
}

fn content(block: rm::SamplingMessageContentBlock) -> SamplingContent {
    match block {
        rm::SamplingMessageContentBlock::Text(t) => SamplingContent::Text { text: t.text },
        rm::SamplingMessageContentBlock::Image(i) => SamplingContent::Image {
            mime: i.mime_type,
            data: i.data,
        },
        rm::SamplingMessageContentBlock::Audio(a) => SamplingContent::Audio {
            mime: a.mime_type,
            data: a.data,
        },
        rm::SamplingMessageContentBlock::ToolUse(_) => SamplingContent::Unsupported {
            kind: "tool_use".to_owned(),
        },
        rm::SamplingMessageContentBlock::ToolResult(_) => SamplingContent::Unsupported {
            kind: "tool_result".to_owned(),
        },
        _ => SamplingContent::Unsupported {
            kind: "unknown".to_owned(),
        },
    }
}

/// Our sampling outcome as the answer to `sampling/createMessage`.
pub(super) fn sampling_result(
    result: Result<SamplingResult, SamplingRefused>,
) -> Result<rm::CreateMessageResult, rm::ErrorData> {
    match result {
        Ok(r) => {
            let message = rm::SamplingMessage::new(
                rm::Role::Assistant,
                rm::SamplingMessageContentBlock::text(r.text),
            );
            Ok(rm::CreateMessageResult::new(message, r.model)
                .with_stop_reason(r.stop_reason.as_wire()))
        }
        Err(SamplingRefused::Unsupported) => Err(rm::ErrorData::method_not_found::<
            rm::CreateMessageRequestMethod,
        >()),
        Err(SamplingRefused::Failed(reason)) => Err(rm::ErrorData::internal_error(
            format!("sampling failed: {reason}"),
            None,
        )),
        Err(refused) => Err(rm::ErrorData::new(
            rm::ErrorCode(USER_REJECTED),
            refused.to_string(),
            None,
        )),
    }
}

/// The answer to `roots/list`.
pub(super) fn roots(roots: Vec<RootInfo>) -> rm::ListRootsResult {
    let roots = roots
        .into_iter()
        .map(|r| rm::Root::new(r.uri).with_name(r.name));
    rm::ListRootsResult::new(roots.collect())
}

/// An `elicitation/create` request in our terms; `None` for a mode we do not know.
pub(super) fn elicitation_request(params: rm::ElicitRequestParams) -> Option<ElicitationRequest> {
    Some(match params {
        rm::ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } => ElicitationRequest::Form {
            message,
            requested_schema: serde_json::to_value(requested_schema).unwrap_or_default(),
        },
        rm::ElicitRequestParams::UrlElicitationParams { message, url, .. } => {
            ElicitationRequest::Url { message, url }
        }
        _ => return None,
    })
}

/// The user's reply as the answer to `elicitation/create`.
pub(super) fn elicit_result(reply: ElicitationReply) -> rm::ElicitResult {
    match reply {
        ElicitationReply::Accept(content) => {
            let result = rm::ElicitResult::new(rm::ElicitationAction::Accept);
            match content {
                Some(content) => result.with_content(content),
                None => result,
            }
        }
        ElicitationReply::Decline => rm::ElicitResult::new(rm::ElicitationAction::Decline),
        ElicitationReply::Cancel => rm::ElicitResult::new(rm::ElicitationAction::Cancel),
    }
}
