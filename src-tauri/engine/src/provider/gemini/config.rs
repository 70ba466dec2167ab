//! Gemini's `generationConfig`: temperature, `topP`, `maxOutputTokens`, stop sequences, the
//! seed, and `thinkingConfig` (`thinkingBudget`, `includeThoughts`).

use serde_json::{Map, Value, json};

use crate::provider::{ChatRequest, Thinking};

/// `generationConfig`: sampling, stop sequences, seed and thinking.
pub(super) fn generation_config(req: &ChatRequest) -> Map<String, Value> {
    let p = &req.params;
    let fields = [
        ("temperature", p.temperature.map(Value::from)),
        ("topP", p.top_p.map(Value::from)),
        ("maxOutputTokens", p.max_tokens.map(Value::from)),
        ("stopSequences", (!p.stop.is_empty()).then(|| json!(p.stop))),
        // Gemini's seed is an int32.
        ("seed", p.seed.map(|s| Value::from(s & 0x7fff_ffff))),
        ("thinkingConfig", req.thinking.as_ref().map(thinking_config)),
    ];
    let set = |(k, v): (&str, Option<Value>)| Some((k.to_owned(), v?));
    fields.into_iter().filter_map(set).collect()
}

/// `thinkingConfig`: thoughts included and the budget given (absent: the model's dynamic
/// one); switched off, a budget of 0 (models that always think refuse it, in words).
fn thinking_config(thinking: &Thinking) -> Value {
    if !thinking.enabled {
        return json!({ "thinkingBudget": 0 });
    }
    let mut config = json!({ "includeThoughts": true });
    if let Some(budget) = thinking.budget() {
        config["thinkingBudget"] = json!(budget);
    }
    config
}
