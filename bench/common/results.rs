//! Where a benchmark's results go: `bench/results/NAME.txt` (the printed table) and
//! `bench/results/NAME.json`: the machine, the vector ISA, the problem size, and one
//! record per kernel and configuration.

use std::path::Path;

use crate::machine::{machine, vector_isa};

/// Prints `table`, writes it as `bench/results/name.txt` and `size` (the problem size, a
/// JSON object) with `records` as `name.json`, and says so.
pub fn write_results(
    name: &str,
    table: &str,
    size: serde_json::Value,
    records: Vec<serde_json::Value>,
) {
    print!("{table}");
    let json = serde_json::json!({
        "machine": machine(),
        "isa": vector_isa(),
        "size": size,
        "records": records,
    });
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/results");
    std::fs::write(results.join(format!("{name}.txt")), table).expect("write results");
    std::fs::write(
        results.join(format!("{name}.json")),
        serde_json::to_string_pretty(&json).expect("json"),
    )
    .expect("write json");
    println!("written to bench/results/{name}.txt and {name}.json");
}
