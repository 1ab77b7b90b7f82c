//! Fuzz target `parse`: the `.lir` parser never panics, and whatever it accepts prints to
//! text that parses back to the same text (`print(parse(print(parse(s)))) ==
//! print(parse(s))`).
//!
//! Run: `cargo +nightly fuzz run parse fuzz/seeds -- -max_total_time=600 -jobs=1`
//! (see fuzz/README.md).

#![no_main]

use lanes_ir::parse_module;
use lanes_ir::write::module_to_string;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(module) = parse_module(src) else {
        return;
    };
    let printed = module_to_string(&module);
    let again = match parse_module(&printed) {
        Ok(m) => m,
        Err(e) => panic!("printed text does not parse: {e}\n{printed}"),
    };
    assert_eq!(module_to_string(&again), printed, "reprinted text differs");
});
