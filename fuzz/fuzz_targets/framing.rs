//! Fuzzes response framing with every wire format's parser: any body, decoded with the format's
//! own framing and with the other one (SSE and NDJSON), must decode without panicking, and
//! splitting it into two chunks (where the first input byte says) must not change the events.
//! The second input byte picks the wire format.

#![no_main]

use futures::executor::block_on;
use libfuzzer_sys::fuzz_target;
use switchboard_engine::provider::framing::{Framing, decode_all};
use switchboard_engine::provider::{ProviderKind, wire_format};

const KINDS: [ProviderKind; 5] = [
    ProviderKind::Openai,
    ProviderKind::Ollama,
    ProviderKind::Anthropic,
    ProviderKind::Gemini,
    ProviderKind::Dashscope,
];

fuzz_target!(|data: &[u8]| {
    let [split, kind, body @ ..] = data else {
        return;
    };
    let format = wire_format(KINDS[usize::from(*kind) % KINDS.len()]);
    let at = body.len() * usize::from(*split) / 255;
    for framing in [Framing::Sse, Framing::Ndjson] {
        let whole = block_on(decode_all(vec![body.to_vec()], framing, format.parser()));
        let parts = vec![body[..at].to_vec(), body[at..].to_vec()];
        let split = block_on(decode_all(parts, framing, format.parser()));
        assert_eq!(whole, split, "{framing:?} split at {at}");
    }
});
