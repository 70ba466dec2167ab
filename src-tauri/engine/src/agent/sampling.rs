//! The agent answers an MCP server's sampling requests ([`Sampler`] for [`Agent`]): an approved
//! request runs on the user's chosen model: the request as a
//! provider-neutral [`ChatRequest`], the model's events back as a [`SamplingResult`]. The
//! provider and model are the settings [`SAMPLING_PROVIDER`] and [`SAMPLING_MODEL`].

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use futures::future::BoxFuture;
use serde_json::Value;

use super::Agent;
use crate::EngineError;
use crate::mcp::Sampler;
use crate::mcp::{SamplingContent, SamplingRequest, SamplingResult, SamplingRole, StopReason};
use crate::provider::Provider;
use crate::provider::{
    ChatMessage, ChatRequest, FinishReason, ProviderEvent, SamplingParams, UserPart,
};
use crate::vocab::error::InteractionError;

/// The setting naming the provider (id or name) that answers sampling requests.
pub(crate) const SAMPLING_PROVIDER: &str = "mcp.sampling_provider";
/// The setting naming the model that answers sampling requests.
pub(crate) const SAMPLING_MODEL: &str = "mcp.sampling_model";

/// The provider and model that answer sampling requests.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SamplingModel {
    /// The provider's id or name.
    pub provider: String,
    /// The model id as the provider knows it.
    pub model: String,
}

/// `request` as a chat request to `model`: user parts become user messages (text and
/// images), assistant parts assistant text; audio and tool parts are left out.
pub(crate) fn chat_request(model: &str, request: SamplingRequest) -> ChatRequest {
    let messages = request.messages.into_iter().filter_map(|m| {
        let parts: Vec<UserPart> = m.content.into_iter().filter_map(user_part).collect();
        match m.role {
            SamplingRole::User if !parts.is_empty() => Some(ChatMessage::User { parts }),
            SamplingRole::Assistant => Some(ChatMessage::Assistant {
                text: UserPart::text_of(&parts),
                tool_calls: Vec::new(),
            }),
            SamplingRole::User => None,
        }
    });
    ChatRequest {
        model: model.to_owned(),
        system: request.system_prompt,
        messages: messages.collect(),
        params: SamplingParams {
            temperature: request.temperature,
            max_tokens: Some(request.max_tokens),
            stop: request.stop_sequences,
            ..SamplingParams::default()
        },
        ..ChatRequest::default()
    }
}

fn user_part(content: SamplingContent) -> Option<UserPart> {
    match content {
        SamplingContent::Text { text } => Some(UserPart::Text { text }),
        SamplingContent::Image { mime, data } => Some(UserPart::Image {
            mime_type: mime,
            data,
        }),
        SamplingContent::Audio { .. } | SamplingContent::Unsupported { .. } => None,
    }
}

/// The model's answer from its events: the text (reasoning left out) and why it stopped.
pub(crate) fn result(model: &str, events: &[ProviderEvent]) -> SamplingResult {
    let mut text = String::new();
    let mut stop_reason = StopReason::EndTurn;
    for event in events {
        match event {
            ProviderEvent::TextDelta { text: delta } => text.push_str(delta),
            ProviderEvent::Finish { reason } => stop_reason = stop(reason),
            _ => {}
        }
    }
    SamplingResult {
        model: model.to_owned(),
        text,
        stop_reason,
    }
}

fn stop(reason: &FinishReason) -> StopReason {
    match reason {
        FinishReason::Stop => StopReason::EndTurn,
        FinishReason::Length => StopReason::MaxTokens,
        FinishReason::ToolCalls => StopReason::Other("toolUse".to_owned()),
        FinishReason::ContentFilter => StopReason::Other("contentFilter".to_owned()),
        FinishReason::Other(other) => StopReason::Other(other.clone()),
    }
}

/// The model that answers sampling requests.
impl Agent {
    /// The provider and model that answer sampling requests, if chosen.
    pub async fn sampling_model(&self) -> Result<Option<SamplingModel>, EngineError> {
        let provider = self.store().setting(SAMPLING_PROVIDER).await?;
        let model = self.store().setting(SAMPLING_MODEL).await?;
        let text = |v: Option<Value>| v.and_then(|v| v.as_str().map(str::to_owned));
        Ok(match (text(provider), text(model)) {
            (Some(provider), Some(model)) => Some(SamplingModel { provider, model }),
            _ => None,
        })
    }
    /// Chooses (or with `None` clears) the model that answers sampling requests; the
    /// provider must exist.
    pub async fn set_sampling_model(
        &self,
        choice: Option<SamplingModel>,
    ) -> Result<(), EngineError> {
        let (provider, model) = match choice {
            Some(c) => {
                let record = self.store().find_provider(&c.provider).await?;
                if c.model.trim().is_empty() {
                    let problems = vec!["the sampling model cannot be empty".to_owned()];
                    return Err(InteractionError::BadSetting { problems }.into());
                }
                (Value::String(record.id), Value::String(c.model))
            }
            None => (Value::Null, Value::Null),
        };
        self.store()
            .set_setting(SAMPLING_PROVIDER, &provider)
            .await?;
        Ok(self.store().set_setting(SAMPLING_MODEL, &model).await?)
    }
    /// Runs `request` on the sampling model.
    async fn run_sampling(&self, request: SamplingRequest) -> Result<SamplingResult, EngineError> {
        let Some(choice) = self.sampling_model().await? else {
            return Err(InteractionError::NoSamplingModel.into());
        };
        let client = self.providers().provider_client(&choice.provider).await?;
        let events = client
            .complete(chat_request(&choice.model, request))
            .await?;
        Ok(result(&choice.model, &events))
    }
}

impl Sampler for Agent {
    fn sample(
        &self,
        request: SamplingRequest,
    ) -> BoxFuture<'static, Result<SamplingResult, String>> {
        let agent = self.clone();
        Box::pin(async move {
            let result = agent.run_sampling(request).await;
            result.map_err(|e| {
                tracing::warn!(error = %e, "sampling failed");
                e.to_string()
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::SamplingMessage;

    fn text(t: &str) -> SamplingContent {
        SamplingContent::Text { text: t.to_owned() }
    }

    #[test]
    fn a_sampling_request_becomes_a_chat_request_with_its_system_prompt_and_limits() {
        let request = SamplingRequest {
            messages: vec![
                SamplingMessage {
                    role: SamplingRole::User,
                    content: vec![
                        text("hi"),
                        SamplingContent::Audio {
                            mime: "audio/wav".into(),
                            data: "AA==".into(),
                        },
                    ],
                },
                SamplingMessage {
                    role: SamplingRole::Assistant,
                    content: vec![text("hello")],
                },
                SamplingMessage {
                    role: SamplingRole::User,
                    content: vec![SamplingContent::Unsupported {
                        kind: "tool_result".into(),
                    }],
                },
            ],
            system_prompt: Some("be brief".into()),
            max_tokens: 50,
            temperature: Some(0.5),
            stop_sequences: vec!["END".into()],
            model_hints: vec!["claude".into()],
        };
        let chat = chat_request("m1", request);
        assert_eq!(
            chat,
            ChatRequest {
                model: "m1".into(),
                system: Some("be brief".into()),
                messages: vec![
                    ChatMessage::user("hi"),
                    ChatMessage::Assistant {
                        text: "hello".into(),
                        tool_calls: vec![],
                    },
                ],
                params: SamplingParams {
                    temperature: Some(0.5),
                    max_tokens: Some(50),
                    stop: vec!["END".into()],
                    ..SamplingParams::default()
                },
                ..ChatRequest::default()
            }
        );
    }

    #[test]
    fn the_result_joins_the_text_and_maps_the_finish_reason() {
        let events = [
            ProviderEvent::ReasoningDelta { text: "hmm".into() },
            ProviderEvent::text("Hel"),
            ProviderEvent::text("lo"),
            ProviderEvent::Finish {
                reason: FinishReason::Length,
            },
        ];
        assert_eq!(
            result("m1", &events),
            SamplingResult {
                model: "m1".into(),
                text: "Hello".into(),
                stop_reason: StopReason::MaxTokens,
            }
        );
    }
}
