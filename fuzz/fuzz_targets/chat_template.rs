//! Fuzzes the chat-template renderer with hostile templates: any text as a template, rendered
//! with a small conversation and a tool, must render or fail with an error on one line — never
//! panic, loop past the fuel or write past the output cap.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use switchboard_engine::local::template::{MAX_OUTPUT, TemplateInput, render};

fuzz_target!(|data: &[u8]| {
    let Ok(template) = std::str::from_utf8(data) else {
        return;
    };
    let input = TemplateInput {
        messages: vec![
            json!({"role": "system", "content": "Be brief."}),
            json!({"role": "user", "content": "What is the weather in Paris?"}),
            json!({"role": "assistant", "content": "", "tool_calls": [{"id": "call_0",
                "type": "function", "function": {"name": "get_weather",
                "arguments": {"city": "Paris"}}}]}),
            json!({"role": "tool", "tool_call_id": "call_0", "name": "get_weather",
                "content": "sunny"}),
        ],
        tools: Some(vec![json!({"type": "function", "function": {"name": "get_weather",
            "description": "The weather", "parameters": {"type": "object",
            "properties": {"city": {"type": "string"}}}}})]),
        add_generation_prompt: true,
        enable_thinking: Some(false),
        bos_token: "<s>".into(),
        eos_token: "</s>".into(),
    };
    match render(template, &input) {
        Ok(out) => assert!(out.len() <= MAX_OUTPUT),
        Err(e) => {
            let text = e.to_string();
            assert!(!text.is_empty());
        }
    }
});
