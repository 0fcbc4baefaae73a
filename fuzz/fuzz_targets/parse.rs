//! Arbitrary bytes → the litmus parser: it never panics, and every program it accepts prints as
//! text it parses back to the same program.

#![no_main]

use libfuzzer_sys::fuzz_target;
use scopecheck_model::litmus::{parse, print};

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    match parse(src, "input.litmus") {
        Ok(program) => {
            let text = print(&program);
            match parse(&text, "printed.litmus") {
                Ok(back) => assert!(
                    back == program,
                    "print/parse changed the program\n--- input\n{src}\n--- printed\n{text}\n--- reparsed\n{}",
                    print(&back)
                ),
                Err(e) => panic!("printed program does not parse:\n{e}\n--- input\n{src}\n--- printed\n{text}"),
            }
        }
        // Errors must render (one line, the source line, a caret) without panicking.
        Err(e) => drop(e.to_string()),
    }
});
