//! Representative conversations with fixed ids and times: seed 003's weather exchange and a
//! Chinese conversation with branches, reasoning, code, an image result and an error.

use serde_json::json;

use crate::store::{Conversation, ImportItem, Message, MessageStatus, Role, TokenUsage};
use crate::vocab::content::ContentPart;

/// 2025-07-08 00:43:58 UTC, when seed 003 was recorded.
pub(crate) const T0: i64 = 1_751_935_438_000;

/// A 1×1 PNG.
pub(crate) const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/// A conversation with the given messages; the head is the last one.
pub(crate) fn conversation(id: &str, title: &str, messages: Vec<Message>) -> ImportItem {
    ImportItem {
        conversation: Conversation {
            id: id.into(),
            title: title.into(),
            created_at: T0,
            updated_at: T0 + 60_000,
            pinned: false,
            archived: false,
            provider_id: None,
            model: Some("qwen2.5:3b".into()),
            system_prompt: None,
            settings: json!({}),
            head_id: messages.last().map(|m| m.id.clone()),
            project_id: None,
        },
        messages,
    }
}

/// A message of `conversation` following `parent`, `seconds` after T0.
pub(crate) fn message(
    conversation: &str,
    id: &str,
    parent: Option<&str>,
    role: Role,
    seconds: i64,
    content: Vec<ContentPart>,
) -> Message {
    Message {
        id: id.into(),
        conversation_id: conversation.into(),
        parent_id: parent.map(str::to_owned),
        role,
        content,
        status: MessageStatus::Complete,
        model: (role == Role::Assistant).then(|| "qwen2.5:3b".to_owned()),
        usage: None,
        error: None,
        created_at: T0 + seconds * 1000,
        updated_at: T0 + seconds * 1000,
    }
}

/// A tool result of text, as the MCP client stores it.
pub(crate) fn text_result(call_id: &str, text: &str) -> ContentPart {
    ContentPart::ToolResult {
        call_id: call_id.into(),
        content: json!({"content": [{"type": "text", "text": text}], "structured": null, "is_error": false}),
        is_error: false,
    }
}

/// Seed 003: the weather in California through `weather`'s `get_weather`.
pub(crate) fn weather() -> ImportItem {
    let c = "conv-weather";
    let answer = "The weather report indicates that it's always raining in California. This might be due to the frequent occurrences of precipitation events such as fog, drizzle, or even occasional rain throughout the year. If you need more specific details about the current weather conditions, please let me know!";
    let mut call = message(
        c,
        "m1-assistant",
        Some("m0-user"),
        Role::Assistant,
        1,
        vec![ContentPart::ToolCall {
            id: "call_1".into(),
            server: "weather".into(),
            tool: "get_weather".into(),
            arguments: json!({"location": "California"}),
        }],
    );
    call.usage = Some(TokenUsage {
        input_tokens: 210,
        output_tokens: 18,
    });
    let mut final_answer = message(
        c,
        "m3-assistant",
        Some("m2-tool"),
        Role::Assistant,
        3,
        vec![ContentPart::text(answer)],
    );
    final_answer.usage = Some(TokenUsage {
        input_tokens: 245,
        output_tokens: 52,
    });
    conversation(
        c,
        "What is the weather in California?",
        vec![
            message(
                c,
                "m0-user",
                None,
                Role::User,
                0,
                vec![ContentPart::text("what is the weather in California?")],
            ),
            call,
            message(
                c,
                "m2-tool",
                Some("m1-assistant"),
                Role::Tool,
                2,
                vec![text_result("call_1", "It's always raining in California")],
            ),
            final_answer,
        ],
    )
}

/// A Chinese conversation with an edited question (two branches), reasoning, a code block,
/// an image result, and an answer that ended in an error.
pub(crate) fn branchy() -> ImportItem {
    let c = "conv-branchy";
    let image_result = ContentPart::ToolResult {
        call_id: "call_img".into(),
        content: json!({"content": [
            {"type": "text", "text": "渲染完成"},
            {"type": "image", "mime": "image/png", "data": PNG}
        ], "structured": null, "is_error": false}),
        is_error: false,
    };
    let mut failed = message(
        c,
        "b5",
        Some("b1"),
        Role::Assistant,
        40,
        vec![ContentPart::text("部分回答…")],
    );
    failed.status = MessageStatus::Error;
    failed.error = Some("the provider closed the stream".into());
    let mut item = conversation(
        c,
        "画一张图 / Draw a picture",
        vec![
            message(
                c,
                "b0",
                None,
                Role::User,
                0,
                vec![ContentPart::text("帮我画一张加州下雨的图")],
            ),
            message(
                c,
                "b1",
                None,
                Role::User,
                30,
                vec![ContentPart::text("画一张**下雨**的图，并解释代码")],
            ),
            message(
                c,
                "b2",
                Some("b0"),
                Role::Assistant,
                5,
                vec![ContentPart::text("好的。")],
            ),
            message(
                c,
                "b3",
                Some("b1"),
                Role::Assistant,
                31,
                vec![
                    ContentPart::Reasoning {
                        text: "用户想要一张图。先调用绘图工具。".into(),
                    },
                    ContentPart::ToolCall {
                        id: "call_img".into(),
                        server: "everything".into(),
                        tool: "get-tiny-image".into(),
                        arguments: json!({}),
                    },
                ],
            ),
            message(c, "b4", Some("b3"), Role::Tool, 32, vec![image_result]),
            failed,
            message(
                c,
                "b6",
                Some("b4"),
                Role::Assistant,
                33,
                vec![ContentPart::text(
                    "这是图。代码如下：\n\n```python\n# 画图\nprint(\"下雨\", 42)\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |",
                )],
            ),
        ],
    );
    item.conversation.system_prompt = Some("你是一个乐于助人的助手。".into());
    item.conversation.pinned = true;
    item.conversation.head_id = Some("b6".into());
    item
}
