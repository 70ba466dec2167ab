//! The embedding endpoints of the wire formats that have one, with no I/O: OpenAI-compatible
//! `/embeddings`, Ollama's `/api/embed`, Gemini's `batchEmbedContents` and DashScope's native
//! `text-embedding` service. Each builds the request for a group of texts and reads the vectors
//! back in the order asked, refusing an answer that does not hold one vector per text of one
//! width. Anthropic has no embedding endpoint.

use serde_json::{Value, json};

use super::{ProviderError, ProviderKind, WireRequest};

/// Whether the texts are questions or the passages that may answer them (Gemini and
/// DashScope embed the two differently; the others ignore it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmbedPurpose {
    /// A search question.
    Query,
    /// A chunk of a document.
    Document,
}

/// The most texts `kind` takes in one request (DashScope's text-embedding-v3/v4 take 10,
/// Gemini's batch 100); `None` when it has no embedding endpoint.
pub fn batch_limit(kind: ProviderKind) -> Option<usize> {
    match kind {
        ProviderKind::Openai => Some(64),
        ProviderKind::Ollama => Some(32),
        ProviderKind::Gemini => Some(100),
        ProviderKind::Dashscope => Some(10),
        ProviderKind::Anthropic | ProviderKind::Local => None,
    }
}

/// The request that embeds `texts` with `model`, or why `kind` cannot.
pub fn request(
    kind: ProviderKind,
    model: &str,
    texts: &[String],
    purpose: EmbedPurpose,
) -> Result<WireRequest, ProviderError> {
    let body = match kind {
        ProviderKind::Openai => json!({"model": model, "input": texts, "encoding_format": "float"}),
        ProviderKind::Ollama => json!({"model": model, "input": texts, "truncate": true}),
        ProviderKind::Gemini => {
            let name = gemini_model(model);
            let task = match purpose {
                EmbedPurpose::Query => "RETRIEVAL_QUERY",
                EmbedPurpose::Document => "RETRIEVAL_DOCUMENT",
            };
            let requests: Vec<Value> = texts
                .iter()
                .map(|t| json!({"model": name, "content": {"parts": [{"text": t}]}, "taskType": task}))
                .collect();
            json!({ "requests": requests })
        }
        ProviderKind::Dashscope => {
            let kind = match purpose {
                EmbedPurpose::Query => "query",
                EmbedPurpose::Document => "document",
            };
            json!({"model": model, "input": {"texts": texts}, "parameters": {"text_type": kind}})
        }
        ProviderKind::Anthropic | ProviderKind::Local => {
            return Err(ProviderError::Config(
                "this provider has no embedding endpoint; choose an OpenAI-compatible, Ollama, \
                 Gemini or DashScope provider, or the built-in embedder"
                    .into(),
            ));
        }
    };
    let path = match kind {
        ProviderKind::Ollama => "/api/embed".to_owned(),
        ProviderKind::Gemini => format!("/v1beta/{}:batchEmbedContents", gemini_model(model)),
        ProviderKind::Dashscope => {
            "/api/v1/services/embeddings/text-embedding/text-embedding".to_owned()
        }
        _ => "/embeddings".to_owned(),
    };
    Ok(WireRequest {
        path,
        headers: Vec::new(),
        body,
    })
}

/// `models/<model>` (Gemini names models by resource name).
fn gemini_model(model: &str) -> String {
    if model.starts_with("models/") {
        model.to_owned()
    } else {
        format!("models/{model}")
    }
}

/// The `count` vectors in `body`, in the order they were asked for.
pub fn parse(
    kind: ProviderKind,
    body: &Value,
    count: usize,
) -> Result<Vec<Vec<f32>>, ProviderError> {
    let rows: Vec<(usize, &Value)> = match kind {
        ProviderKind::Openai => indexed(body.get("data"), "index", "embedding")?,
        ProviderKind::Dashscope => indexed(
            body.pointer("/output/embeddings"),
            "text_index",
            "embedding",
        )?,
        ProviderKind::Ollama => listed(body.get("embeddings"), None)?,
        ProviderKind::Gemini => listed(body.get("embeddings"), Some("values"))?,
        ProviderKind::Anthropic | ProviderKind::Local => Vec::new(),
    };
    let mut vectors: Vec<Option<Vec<f32>>> = vec![None; count];
    for (at, value) in rows {
        let slot = vectors
            .get_mut(at)
            .ok_or_else(|| garbled(&format!("a vector for text {at} of {count}")))?;
        *slot = Some(numbers(value)?);
    }
    let vectors: Vec<Vec<f32>> = vectors
        .into_iter()
        .enumerate()
        .map(|(i, v)| v.ok_or_else(|| garbled(&format!("no vector for text {i} of {count}"))))
        .collect::<Result<_, _>>()?;
    let width = vectors.first().map_or(0, Vec::len);
    if width == 0 || vectors.iter().any(|v| v.len() != width) {
        return Err(garbled("vectors of different or zero lengths"));
    }
    Ok(vectors)
}

/// Rows that say their own position (`position` field) and hold their vector in `field`.
fn indexed<'a>(
    rows: Option<&'a Value>,
    position: &str,
    field: &str,
) -> Result<Vec<(usize, &'a Value)>, ProviderError> {
    list(rows)?
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let at = match row.get(position) {
                Some(v) => v
                    .as_u64()
                    .and_then(|n| usize::try_from(n).ok())
                    .ok_or_else(|| garbled(&format!("a bad {position}")))?,
                None => i,
            };
            let vector = row
                .get(field)
                .ok_or_else(|| garbled(&format!("a row without {field}")))?;
            Ok((at, vector))
        })
        .collect()
}

/// Rows in the order asked, each the vector itself or holding it in `field`.
fn listed<'a>(
    rows: Option<&'a Value>,
    field: Option<&str>,
) -> Result<Vec<(usize, &'a Value)>, ProviderError> {
    list(rows)?
        .iter()
        .enumerate()
        .map(|(i, row)| match field {
            Some(field) => row
                .get(field)
                .map(|v| (i, v))
                .ok_or_else(|| garbled(&format!("a row without {field}"))),
            None => Ok((i, row)),
        })
        .collect()
}

/// The answer's list of rows.
fn list(rows: Option<&Value>) -> Result<&Vec<Value>, ProviderError> {
    rows.and_then(Value::as_array)
        .ok_or_else(|| garbled("no list of embeddings"))
}

/// A JSON array of finite numbers as a vector.
fn numbers(value: &Value) -> Result<Vec<f32>, ProviderError> {
    let values = value
        .as_array()
        .ok_or_else(|| garbled("a vector that is not a list of numbers"))?;
    values
        .iter()
        .map(|n| {
            n.as_f64()
                .map(|x| x as f32)
                .filter(|x| x.is_finite())
                .ok_or_else(|| garbled("a vector that is not a list of numbers"))
        })
        .collect()
}

fn garbled(what: &str) -> ProviderError {
    ProviderError::MalformedStream(format!("the embedding answer is not understood: {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts() -> Vec<String> {
        vec!["first".into(), "第二".into()]
    }

    #[test]
    fn each_format_asks_at_its_own_path_with_its_own_body() {
        let openai = request(
            ProviderKind::Openai,
            "text-embedding-3-small",
            &texts(),
            EmbedPurpose::Document,
        )
        .unwrap();
        assert_eq!(openai.path, "/embeddings");
        assert_eq!(openai.body["input"][1], "第二");
        let ollama = request(
            ProviderKind::Ollama,
            "nomic-embed-text",
            &texts(),
            EmbedPurpose::Query,
        )
        .unwrap();
        assert_eq!(ollama.path, "/api/embed");
        assert_eq!(ollama.body["model"], "nomic-embed-text");
        let gemini = request(
            ProviderKind::Gemini,
            "gemini-embedding-001",
            &texts(),
            EmbedPurpose::Query,
        )
        .unwrap();
        assert_eq!(
            gemini.path,
            "/v1beta/models/gemini-embedding-001:batchEmbedContents"
        );
        assert_eq!(gemini.body["requests"][1]["taskType"], "RETRIEVAL_QUERY");
        assert_eq!(
            gemini.body["requests"][1]["content"]["parts"][0]["text"],
            "第二"
        );
        let dashscope = request(
            ProviderKind::Dashscope,
            "text-embedding-v4",
            &texts(),
            EmbedPurpose::Document,
        )
        .unwrap();
        assert_eq!(
            dashscope.path,
            "/api/v1/services/embeddings/text-embedding/text-embedding"
        );
        assert_eq!(dashscope.body["input"]["texts"][0], "first");
        assert_eq!(dashscope.body["parameters"]["text_type"], "document");
        assert!(request(ProviderKind::Anthropic, "x", &texts(), EmbedPurpose::Query).is_err());
    }

    #[test]
    fn vectors_come_back_in_the_order_asked_even_when_the_rows_are_not() {
        let body = json!({"object": "list", "data": [
            {"object": "embedding", "index": 1, "embedding": [0.0, 1.0]},
            {"object": "embedding", "index": 0, "embedding": [1.0, 0.0]}
        ]});
        let vectors = parse(ProviderKind::Openai, &body, 2).unwrap();
        assert_eq!(vectors, vec![vec![1.0, 0.0], vec![0.0, 1.0]]);
        let body = json!({"output": {"embeddings": [
            {"text_index": 1, "embedding": [0.5, 0.5]}, {"text_index": 0, "embedding": [0.25, 0.75]}
        ]}, "usage": {"total_tokens": 4}, "request_id": "x"});
        let vectors = parse(ProviderKind::Dashscope, &body, 2).unwrap();
        assert_eq!(vectors[0], vec![0.25, 0.75]);
        let body = json!({"embeddings": [{"values": [0.1, 0.2]}, {"values": [0.3, 0.4]}]});
        assert_eq!(
            parse(ProviderKind::Gemini, &body, 2).unwrap()[1],
            vec![0.3, 0.4]
        );
        let body = json!({"model": "m", "embeddings": [[0.1, 0.2], [0.3, 0.4]]});
        assert_eq!(
            parse(ProviderKind::Ollama, &body, 2).unwrap()[0],
            vec![0.1, 0.2]
        );
    }

    #[test]
    fn an_answer_missing_a_vector_or_mixing_widths_or_holding_text_is_refused() {
        let short = json!({"embeddings": [[0.1, 0.2]]});
        let e = parse(ProviderKind::Ollama, &short, 2)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no vector for text 1 of 2"), "{e}");
        let mixed = json!({"embeddings": [[0.1, 0.2], [0.3]]});
        assert!(parse(ProviderKind::Ollama, &mixed, 2).is_err());
        let words = json!({"data": [{"index": 0, "embedding": "AAAA"}]});
        assert!(parse(ProviderKind::Openai, &words, 1).is_err());
        let beyond = json!({"data": [{"index": 7, "embedding": [1.0]}]});
        assert!(parse(ProviderKind::Openai, &beyond, 1).is_err());
        assert!(parse(ProviderKind::Gemini, &json!({"error": "x"}), 1).is_err());
        assert!(parse(ProviderKind::Ollama, &json!({"embeddings": []}), 0).is_err());
    }
}
