//! Where a benchmark's results go: `bench/results/NAME.txt` (the printed table) and
//! `bench/results/NAME.json` (one record per kernel and configuration, with the machine).

use std::path::Path;

/// Prints `table`, writes it and `json` under `bench/results/` as `name.txt` and
/// `name.json`, and says so.
pub fn write_results(name: &str, table: &str, json: &serde_json::Value) {
    print!("{table}");
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/results");
    std::fs::write(results.join(format!("{name}.txt")), table).expect("write results");
    std::fs::write(
        results.join(format!("{name}.json")),
        serde_json::to_string_pretty(json).expect("json"),
    )
    .expect("write json");
    println!("written to bench/results/{name}.txt and {name}.json");
}
