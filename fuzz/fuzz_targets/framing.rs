//! Fuzzes response framing with the OpenAI parser: any body, as SSE and as NDJSON, must decode
//! without panicking, and splitting it into two chunks (where the first input byte says) must
//! not change the events.

#![no_main]

use futures::executor::block_on;
use libfuzzer_sys::fuzz_target;
use switchboard_engine::provider::framing::{Framing, decode_all};
use switchboard_engine::provider::openai::Parser;

fuzz_target!(|data: &[u8]| {
    let Some((&split, body)) = data.split_first() else {
        return;
    };
    let at = body.len() * usize::from(split) / 255;
    for framing in [Framing::Sse, Framing::Ndjson] {
        let whole = block_on(decode_all(
            vec![body.to_vec()],
            framing,
            Box::new(Parser::default()),
        ));
        let parts = vec![body[..at].to_vec(), body[at..].to_vec()];
        let split = block_on(decode_all(parts, framing, Box::new(Parser::default())));
        assert_eq!(whole, split, "{framing:?} split at {at}");
    }
});
