//! Fuzzes the GGUF header reader: any bytes must be read or refused with an error, never
//! panic, overflow the stack or allocate beyond the input (lengths and counts are checked
//! against what is left of the file), and a refusal names the file.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use switchboard_engine::local::gguf::read_info_from;

fuzz_target!(|data: &[u8]| {
    let name = Path::new("fuzz.gguf");
    if let Err(e) = read_info_from(name, data) {
        let text = e.to_string();
        assert!(text.contains("fuzz.gguf"), "{text}");
        assert!(!text.contains('\n'), "{text}");
    }
});
