//! OpenAI's rules for its reasoning models (o1, o3, o4-mini, gpt-5 and their dated or
//! provider-prefixed names): they refuse `max_tokens` (it is `max_completion_tokens`), any
//! `temperature` or `top_p` other than the default 1, and `stop`. A request for one of them is
//! reshaped here before sending, and what was changed is said in words, rather than sending a
//! request OpenAI answers with a 400.

use serde_json::Value;

/// Whether `model` names one of OpenAI's reasoning models. The name may carry a router's
/// prefix (`openai/o3-mini` on OpenRouter); `gpt-5-chat` models are not reasoning models.
pub(crate) fn is_reasoning_model(model: &str) -> bool {
    let name = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    let o_series = ["o1", "o3", "o4"].iter().any(|p| {
        name.strip_prefix(p)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('-'))
    });
    let gpt5 = name.strip_prefix("gpt-5").is_some_and(|rest| {
        (rest.is_empty() || rest.starts_with(['-', '.'])) && !rest.contains("-chat")
    });
    o_series || gpt5
}

/// Applies the reasoning-model rules to a Chat Completions `body` for `model`: `max_tokens`
/// becomes `max_completion_tokens`; `temperature` and `top_p` other than 1 and `stop` are left
/// out. Returns what was changed, in words (empty for other models or nothing to change).
pub(crate) fn apply(model: &str, body: &mut Value) -> Vec<String> {
    let mut changed = Vec::new();
    if !is_reasoning_model(model) {
        return changed;
    }
    let Some(obj) = body.as_object_mut() else {
        return changed;
    };
    if let Some(max) = obj.remove("max_tokens") {
        changed.push(format!("max_tokens {max} sent as max_completion_tokens"));
        obj.insert("max_completion_tokens".into(), max);
    }
    for key in ["temperature", "top_p"] {
        if let Some(v) = obj.get(key).cloned()
            && v.as_f64() != Some(1.0)
        {
            obj.remove(key);
            changed.push(format!(
                "{key} {v} left out (reasoning models allow only the default 1)"
            ));
        }
    }
    if obj.remove("stop").is_some() {
        changed.push("stop sequences left out (reasoning models do not take them)".into());
    }
    changed
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn o_series_and_gpt5_models_are_reasoning_models_with_or_without_a_prefix() {
        for m in [
            "o1",
            "o1-2024-12-17",
            "o3-mini",
            "o4-mini",
            "openai/o3",
            "gpt-5",
            "gpt-5-mini",
            "gpt-5-nano-2025-08-07",
            "gpt-5.1",
            "openai/gpt-5.2",
            "O3-MINI",
        ] {
            assert!(is_reasoning_model(m), "{m}");
        }
    }

    #[test]
    fn chat_models_and_lookalike_names_are_not_reasoning_models() {
        for m in [
            "gpt-4o",
            "gpt-4.1-mini",
            "gpt-5-chat-latest",
            "gpt-5.1-chat-latest",
            "o1x",
            "qwen3:4b",
            "ollama/o3x",
            "deepseek-r1",
            "llama3.2",
        ] {
            assert!(!is_reasoning_model(m), "{m}");
        }
    }

    #[test]
    fn a_reasoning_model_gets_max_completion_tokens_and_no_sampling_fields() {
        let mut body = json!({
            "model": "o3-mini", "max_tokens": 500, "temperature": 0.3, "top_p": 1.0,
            "stop": ["END"], "reasoning_effort": "high",
        });
        let changed = apply("o3-mini", &mut body);
        assert_eq!(
            body,
            json!({ "model": "o3-mini", "max_completion_tokens": 500, "top_p": 1.0,
                    "reasoning_effort": "high" })
        );
        assert_eq!(changed.len(), 3, "{changed:?}");
        assert!(changed[1].contains("temperature 0.3"), "{changed:?}");
    }

    #[test]
    fn other_models_keep_the_request_as_it_is() {
        let mut body = json!({ "model": "gpt-4o", "max_tokens": 500, "temperature": 0.3 });
        let before = body.clone();
        assert!(apply("gpt-4o", &mut body).is_empty());
        assert_eq!(body, before);
    }
}
