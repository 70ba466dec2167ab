//! The models commands over IPC (mock runtime, real profile folder): a tiny GGUF made here
//! (a header only, which is all the facts need) is imported, listed with its facts, made the
//! built-in provider's default and removed; a corrupt file is refused naming it; a download
//! from a server on 127.0.0.1 lands in the list, a wrong SHA-256 is refused and a cancel ends
//! a slow one.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::suite::ipc::{Harness, harness, invoke, invoke_on};

fn string(out: &mut Vec<u8>, s: &str) {
    out.extend((s.len() as u64).to_le_bytes());
    out.extend(s.as_bytes());
}

fn kv_string(out: &mut Vec<u8>, key: &str, value: &str) {
    string(out, key);
    out.extend(8u32.to_le_bytes());
    string(out, value);
}

fn kv_u32(out: &mut Vec<u8>, key: &str, value: u32) {
    string(out, key);
    out.extend(4u32.to_le_bytes());
    out.extend(value.to_le_bytes());
}

/// A GGUF header: a llama-architecture 135M model, Q4_1, 8192-token context, a template with
/// tools.
fn tiny_gguf() -> Vec<u8> {
    let mut out = b"GGUF".to_vec();
    out.extend(3u32.to_le_bytes());
    out.extend(0u64.to_le_bytes());
    out.extend(5u64.to_le_bytes());
    kv_string(&mut out, "general.architecture", "llama");
    kv_string(&mut out, "general.size_label", "135M");
    kv_u32(&mut out, "general.file_type", 3);
    kv_u32(&mut out, "llama.context_length", 8192);
    kv_string(
        &mut out,
        "tokenizer.chat_template",
        "{% if tools %}{% for tool in tools %}{{ tool | tojson }}{% endfor %}{% endif %}\
         {% for m in messages %}{{ m.content }}{% endfor %}",
    );
    out
}

fn write_tiny(dir: &Path, name: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, tiny_gguf()).unwrap();
    path.to_string_lossy().into_owned()
}

fn names(h: &Harness) -> Vec<String> {
    invoke(h, "list_models", json!({}))
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn an_imported_model_is_listed_with_its_facts_made_the_default_and_removed() {
    let h = harness();
    let src = tempfile::tempdir().unwrap();
    assert_eq!(names(&h), Vec::<String>::new());
    let imported = invoke(
        &h,
        "import_model",
        json!({ "path": write_tiny(src.path(), "Tiny-135M.gguf") }),
    )
    .unwrap();
    assert_eq!(imported["name"], "Tiny-135M.gguf");

    let list = invoke(&h, "list_models", json!({})).unwrap();
    let model = &list[0];
    assert_eq!(model["size"], tiny_gguf().len() as u64);
    assert_eq!(model["info"]["architecture"], "llama");
    assert_eq!(model["info"]["sizeLabel"], "135M");
    assert_eq!(model["info"]["quantization"], "Q4_1");
    assert_eq!(model["info"]["contextLength"], 8192);
    assert_eq!(model["info"]["supportsTools"], true);

    let view = invoke(
        &h,
        "set_default_local_model",
        json!({ "name": "Tiny-135M.gguf" }),
    )
    .unwrap();
    assert_eq!(view["provider"]["kind"], "local");
    assert_eq!(
        view["provider"]["settings"]["defaultModel"],
        "Tiny-135M.gguf"
    );
    let providers = invoke(&h, "list_providers", json!({})).unwrap();
    assert_eq!(providers.as_array().unwrap().len(), 1, "{providers}");

    assert_eq!(
        invoke(&h, "remove_model", json!({ "name": "Tiny-135M.gguf" })),
        Ok(Value::Null)
    );
    assert_eq!(names(&h), Vec::<String>::new());
    let err = invoke(
        &h,
        "set_default_local_model",
        json!({ "name": "Tiny-135M" }),
    )
    .unwrap_err();
    assert!(
        err["message"].as_str().unwrap().contains("no model named"),
        "{err}"
    );
}

#[test]
fn a_corrupt_gguf_is_refused_with_an_error_naming_the_file() {
    let h = harness();
    let src = tempfile::tempdir().unwrap();
    let broken = src.path().join("broken.gguf");
    std::fs::write(&broken, b"GGUF\x03\0\0\0\x01").unwrap();
    let err = invoke(
        &h,
        "import_model",
        json!({ "path": broken.to_string_lossy() }),
    )
    .unwrap_err();
    let message = err["message"].as_str().unwrap();
    assert!(message.contains("broken.gguf"), "{message}");
    assert!(message.contains("not a usable GGUF model"), "{message}");
    assert_eq!(names(&h), Vec::<String>::new());
}

/// Serves `body` as every answer on 127.0.0.1, in chunks `delay` apart; returns the base URL.
fn serve(body: Vec<u8>, delay: Duration) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let body = body.clone();
            std::thread::spawn(move || {
                let mut request = [0u8; 4096];
                let _ = stream.read(&mut request);
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                if stream.write_all(head.as_bytes()).is_err() {
                    return;
                }
                for chunk in body.chunks(16 * 1024) {
                    std::thread::sleep(delay);
                    if stream.write_all(chunk).is_err() {
                        return;
                    }
                }
            });
        }
    });
    url
}

fn padded_gguf() -> Vec<u8> {
    let mut body = tiny_gguf();
    body.resize(512 * 1024, 0);
    body
}

#[test]
fn a_downloaded_model_appears_in_the_list_and_a_wrong_checksum_is_refused() {
    let h = harness();
    let base = serve(padded_gguf(), Duration::ZERO);
    let err = invoke(
        &h,
        "download_model",
        json!({ "url": format!("{base}/Tiny.gguf"), "sha256": "ab".repeat(32), "onProgress": "__CHANNEL__:3" }),
    )
    .unwrap_err();
    assert!(
        err["message"].as_str().unwrap().contains("SHA-256"),
        "{err}"
    );
    assert_eq!(names(&h), Vec::<String>::new());

    let model = invoke(
        &h,
        "download_model",
        json!({ "url": format!("{base}/Tiny.gguf"), "onProgress": "__CHANNEL__:4" }),
    )
    .unwrap();
    assert_eq!(model["name"], "Tiny.gguf");
    assert_eq!(model["info"]["quantization"], "Q4_1");
    assert_eq!(names(&h), ["Tiny.gguf"]);
}

#[test]
fn a_cancelled_download_ends_with_an_error_and_leaves_no_model() {
    let h = harness();
    let base = serve(padded_gguf(), Duration::from_millis(100));
    let window = h.window.clone();
    std::thread::scope(|s| {
        let running = s.spawn(move || {
            invoke_on(
                &window,
                "download_model",
                json!({ "url": format!("{base}/Slow.gguf"), "onProgress": "__CHANNEL__:5" }),
            )
        });
        std::thread::sleep(Duration::from_millis(500));
        assert_eq!(
            invoke(&h, "cancel_model_download", json!({})),
            Ok(Value::Null)
        );
        let err = running.join().unwrap().unwrap_err();
        assert!(
            err["message"].as_str().unwrap().contains("cancelled"),
            "{err}"
        );
    });
    assert_eq!(names(&h), Vec::<String>::new());
}
