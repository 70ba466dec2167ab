//! `POST /v1/embeddings`: texts made vectors by the built-in embedder (multilingual-e5-small on
//! llama.cpp, offline: the model id `local`, or any `local/…`) or by a configured provider's
//! embedding endpoint (`PROVIDER/MODEL`: OpenAI-compatible, Ollama, Gemini, DashScope) — the
//! same embedders knowledge bases use, with their cache. Vectors come as floats or, as the
//! `openai` package asks by default, base64 of little-endian `f32`. `input_type` (`query` or
//! `passage`, the default) is passed to embedders that tell the two apart (e5's prefixes,
//! Gemini's task types). A text longer than the embedder takes is refused, naming it.

use std::sync::Arc;

use base64::Engine as _;
use serde::Deserialize;
use serde_json::{Value, json};

use super::request::BadRequest;
use crate::knowledge::embedder::{Embedder, Purpose};

/// The most texts one request may embed.
pub(crate) const MAX_INPUTS: usize = 2048;

#[derive(Debug, Deserialize)]
struct Body {
    model: String,
    input: Input,
    #[serde(default)]
    encoding_format: Option<String>,
    #[serde(default)]
    input_type: Option<String>,
    #[serde(default)]
    dimensions: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Input {
    One(String),
    Many(Vec<String>),
}

/// An embeddings request as Switchboard runs it.
#[derive(Debug, PartialEq)]
pub(crate) struct Embeddings {
    /// The model id asked for.
    pub(crate) model: String,
    /// The texts, in order.
    pub(crate) texts: Vec<String>,
    /// Whether vectors go back as base64.
    pub(crate) base64: bool,
    /// What the texts are for.
    pub(crate) purpose: Purpose,
}

/// Reads an embeddings body.
pub(crate) fn parse(body: &[u8]) -> Result<Embeddings, BadRequest> {
    let body: Body = serde_json::from_slice(body).map_err(|e| BadRequest {
        message: format!(
            "the body is not an embeddings request (input is a string or a list of strings): {e}"
        ),
        param: None,
    })?;
    let texts = match body.input {
        Input::One(text) => vec![text],
        Input::Many(texts) => texts,
    };
    let bad = |param: &str, message: String| BadRequest {
        message,
        param: Some(param.into()),
    };
    if texts.is_empty() || texts.len() > MAX_INPUTS {
        return Err(bad("input", format!("send 1 to {MAX_INPUTS} texts")));
    }
    if let Some(i) = texts.iter().position(|t| t.trim().is_empty()) {
        return Err(bad(
            &format!("input[{i}]"),
            "an empty text has no embedding".into(),
        ));
    }
    if body.dimensions.is_some() {
        return Err(bad(
            "dimensions",
            "the embedders here make vectors of their own length; leave dimensions out".into(),
        ));
    }
    let base64 = match body.encoding_format.as_deref() {
        None | Some("float") => false,
        Some("base64") => true,
        Some(other) => {
            return Err(bad(
                "encoding_format",
                format!("`{other}` is not float or base64"),
            ));
        }
    };
    let purpose = match body.input_type.as_deref() {
        None | Some("passage" | "document" | "search_document") => Purpose::Passage,
        Some("query" | "search_query") => Purpose::Query,
        Some(other) => {
            return Err(bad(
                "input_type",
                format!("`{other}` is not query or passage"),
            ));
        }
    };
    Ok(Embeddings {
        model: body.model,
        texts,
        base64,
        purpose,
    })
}

/// Embeds the request's texts with `embedder`: the response body, or why not (a text too
/// long is a bad request; the embedder's own failure is the `Err(Err)` case).
pub(crate) async fn run(
    embedder: Arc<dyn Embedder>,
    request: Embeddings,
) -> Result<Result<Value, String>, BadRequest> {
    let mut tokens = 0;
    for (i, text) in request.texts.iter().enumerate() {
        let n = embedder.count_tokens(text);
        if n > embedder.max_tokens() {
            return Err(BadRequest {
                message: format!(
                    "this text is {n} tokens and the embedder takes at most {}",
                    embedder.max_tokens()
                ),
                param: Some(format!("input[{i}]")),
            });
        }
        tokens += n;
    }
    let vectors = match embedder.embed(request.texts, request.purpose).await {
        Ok(vectors) => vectors,
        Err(why) => return Ok(Err(why)),
    };
    let data: Vec<Value> = vectors
        .into_iter()
        .enumerate()
        .map(|(index, vector)| {
            let embedding = if request.base64 {
                let bytes: Vec<u8> = vector.iter().flat_map(|x| x.to_le_bytes()).collect();
                json!(base64::engine::general_purpose::STANDARD.encode(bytes))
            } else {
                json!(vector)
            };
            json!({"object": "embedding", "index": index, "embedding": embedding})
        })
        .collect();
    Ok(Ok(json!({
        "object": "list",
        "data": data,
        "model": request.model,
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_embeddings_body_is_read_and_what_cannot_be_honoured_is_refused() {
        let e = parse(br#"{"model":"local","input":"hello","encoding_format":"base64"}"#).unwrap();
        assert_eq!(e.texts, ["hello"]);
        assert!(e.base64);
        assert_eq!(e.purpose, Purpose::Passage);
        let e = parse(br#"{"model":"m","input":["a","b"],"input_type":"query"}"#).unwrap();
        assert_eq!(
            (e.texts.len(), e.base64, e.purpose),
            (2, false, Purpose::Query)
        );
        for (body, param) in [
            (r#"{"model":"m","input":[]}"#, Some("input")),
            (r#"{"model":"m","input":["a",""]}"#, Some("input[1]")),
            (r#"{"model":"m","input":[[1,2,3]]}"#, None),
            (
                r#"{"model":"m","input":"a","dimensions":256}"#,
                Some("dimensions"),
            ),
            (
                r#"{"model":"m","input":"a","encoding_format":"int8"}"#,
                Some("encoding_format"),
            ),
            (
                r#"{"model":"m","input":"a","input_type":"code"}"#,
                Some("input_type"),
            ),
        ] {
            let e = parse(body.as_bytes()).expect_err(body);
            assert_eq!(e.param.as_deref(), param, "{body}: {}", e.message);
        }
    }
}
