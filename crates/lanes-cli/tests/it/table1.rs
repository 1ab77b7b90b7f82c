//! `lanes vectorize --stats` and `--stats-json`: PLDI'18 Table 1 for the vector functions
//! made, on `tests/data/table1_kernel.c`, whose counts are known (see the file). Partial
//! linearization loses no uniform branch (Theorem 4.5); full if-conversion folds every
//! uniform branch outside loop control. Branch fusion's column on `tests/data/twin_sides.c`.

use crate::common;

use std::process::Command;

use common::{data, run, s, scratch_dir};

/// The JSON rows of `lanes vectorize --stats-json` for `table1_kernel.c` with `extra`
/// arguments.
fn rows(extra: &[&str]) -> (Vec<serde_json::Value>, String) {
    rows_of("table1_kernel.c", "kern", "c,u,u,u,u,u", extra)
}

/// The JSON rows of `lanes vectorize --stats-json` for function `function` of the test
/// data file `file`, with `shapes` and `extra` arguments.
fn rows_of(
    file: &str,
    function: &str,
    shapes: &str,
    extra: &[&str],
) -> (Vec<serde_json::Value>, String) {
    let d = scratch_dir("table1");
    let json = d.join("stats.json");
    let out = run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .arg("vectorize")
        .arg(data(file))
        .args(["--function", function, "--shapes", shapes, "--stats"])
        .args(["--stats-json", s(&json), "-o"])
        .arg(d.join("k.o"))
        .args(extra));
    let text = std::fs::read_to_string(&json).expect("stats json");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&text).expect("json");
    (rows, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn table1_counts_branches_loops_and_memory() {
    let (rows, table) = rows(&["--boscc", "off"]);
    assert_eq!(rows.len(), 2, "the variant and the masked body: {rows:?}");
    let v = &rows[0];
    assert!(
        v["function"]
            .as_str()
            .is_some_and(|f| f.starts_with("_ZGV")),
        "{v}"
    );
    let get = |path: &[&str]| {
        path.iter()
            .fold(v, |x, k| &x[*k])
            .as_u64()
            .unwrap_or_else(|| panic!("{path:?} in {v}"))
    };
    assert_eq!(get(&["branches", "divergent"]), 3, "{v}");
    assert_eq!(get(&["branches", "lost"]), 0, "{v}");
    assert_eq!(get(&["branches", "preserved"]), 4, "{v}");
    assert_eq!(get(&["loops", "uniform"]), 1);
    assert_eq!(get(&["loops", "divergent"]), 1);
    assert_eq!(get(&["loop_exits", "uniform"]), 1);
    assert_eq!(get(&["loop_exits", "divergent"]), 1);
    assert_eq!(get(&["boscc_gadgets"]), 0);
    assert_eq!(get(&["fused_instructions"]), 0);
    assert_eq!(get(&["load_store_masks", "true"]), 1, "{v}");
    assert_eq!(get(&["load_store_masks", "uniform"]), 2, "{v}");
    assert_eq!(get(&["load_store_masks", "varying"]), 3, "{v}");
    assert_eq!(get(&["loads", "uniform"]), 2);
    assert_eq!(get(&["loads", "contiguous"]), 1);
    assert_eq!(get(&["loads", "gather_scatter"]), 1);
    assert_eq!(get(&["stores", "contiguous"]), 1);
    assert_eq!(get(&["stores", "strided"]), 1);
    // The masked body: every predicate depends on the entry mask.
    assert_eq!(rows[1]["load_store_masks"]["varying"], 6, "{}", rows[1]);
    assert!(
        table.contains("div lost pres") && table.contains(v["function"].as_str().unwrap_or("?")),
        "{table}"
    );
}

#[test]
fn full_if_conversion_loses_the_uniform_branches() {
    let (rows, _) = rows(&["--linearize", "full"]);
    let b = &rows[0]["branches"];
    assert_eq!(b["divergent"], 3, "{b}");
    assert!(b["lost"].as_u64().is_some_and(|n| n >= 1), "{b}");
    let total = b["lost"].as_u64().unwrap_or(0) + b["preserved"].as_u64().unwrap_or(0);
    assert_eq!(total, 5, "uniform branches are lost or preserved: {b}");
}

/// `--boscc all` puts a gadget before each of the three divergent branches here; their
/// `any` branches are uniform and stay, adding to the preserved ones (as in the paper's
/// `nab/bsc` rows).
#[test]
fn boscc_gadgets_are_counted_and_preserved() {
    let (rows, _) = rows(&["--boscc", "all"]);
    let v = &rows[0];
    assert_eq!(v["boscc_gadgets"], 3, "{v}");
    assert_eq!(v["branches"]["lost"], 0, "{v}");
    assert_eq!(v["branches"]["preserved"], 7, "{v}");
}

/// The default, `--boscc auto`, guards only the side heavy enough to repay the test:
/// here the `while` loop's region.
#[test]
fn boscc_auto_is_the_default_and_guards_heavy_sides_only() {
    let (rows, _) = rows(&[]);
    let v = &rows[0];
    let n = v["boscc_gadgets"].as_u64().unwrap_or(0);
    assert!((1..3).contains(&n), "{v}");
    assert_eq!(v["branches"]["preserved"], 4 + n, "{v}");
}

/// `--branch-fusion auto` (the default) merges the two sides of `twin_sides.c`'s divergent
/// if-then-else but for their last operations (a sum and a difference), which keep one
/// divergent branch; `off` merges nothing.
#[test]
fn fused_instructions_are_counted() {
    let (rows, table) = rows_of("twin_sides.c", "twin", "c,u,u,u", &[]);
    let v = &rows[0];
    let fused = v["fused_instructions"].as_u64().unwrap_or(0);
    assert!(fused >= 5, "{v}");
    assert_eq!(v["branches"]["divergent"], 1, "{v}");
    assert!(table.contains("fused"), "{table}");
    let (rows, _) = rows_of(
        "twin_sides.c",
        "twin",
        "c,u,u,u",
        &["--branch-fusion", "off"],
    );
    assert_eq!(rows[0]["fused_instructions"], 0, "{}", rows[0]);
    assert_eq!(rows[0]["branches"]["divergent"], 1, "{}", rows[0]);
}

/// `lanes vectorize` has clang keep the SPMD function's loops: a retry loop with eight
/// trips and a varying early exit is one divergent loop, not unrolled into a cascade of
/// eight divergent exits; a `-funroll-loops` of the user's still wins.
#[test]
fn short_loops_with_early_exits_stay_loops() {
    let divergent_loops = |extra: &[&str]| {
        let (rows, table) = rows_of("retry_loop.c", "retry", "c,u", extra);
        (rows[0]["loops"]["divergent"].as_u64(), table)
    };
    let (kept, table) = divergent_loops(&[]);
    assert_eq!(kept, Some(1), "{table}");
    let (unrolled, table) = divergent_loops(&["--clang-arg=-funroll-loops"]);
    assert_eq!(unrolled, Some(0), "{table}");
}
