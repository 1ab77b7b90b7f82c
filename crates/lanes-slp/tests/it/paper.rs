//! The paper's examples in Predicated SSA: the printed form is checked line by line
//! against what §3.1 says it must be, and the round trip runs against the original.

use lanes_interp::differential::{compare_runs, small_arguments};
use lanes_interp::{Memory, WorkItemContext};
use lanes_ir::verifier::verify_function;
use lanes_ir::Module;
use lanes_slp::{lower, pssa_to_string, to_pssa, verify_pssa};

fn module() -> Module {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/two_searches.lir");
    let text = std::fs::read_to_string(&path).expect("test data");
    lanes_ir::parse_module(&text).expect("parses")
}

/// The printed Predicated SSA of function `name`, whitespace-normalized lines.
fn printed(name: &str) -> Vec<String> {
    let m = module();
    let id = m.func_by_name(name).expect("defined");
    let pssa = to_pssa(m.function(id).expect("body")).expect("converts");
    verify_pssa(&pssa).expect("verifies");
    pssa_to_string(&m, &pssa)
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

fn has(lines: &[String], want: &str) {
    assert!(
        lines.iter().any(|l| l == want),
        "no line `{want}` in\n{}",
        lines.join("\n")
    );
}

#[test]
fn the_join_of_an_if_then_else_runs_under_true() {
    let lines = printed("diamond");
    has(&lines, "v3: i32 = sub v1, v0 : v2");
    has(&lines, "v4: i32 = sub v0, v1 : !v2");
    has(&lines, "v5: i32 = phi [v3 : v2], [v4 : !v2] : true");
    has(&lines, "v6: i32 = mul v5, v5 : true");
}

#[test]
fn two_searches_become_two_loops_with_exit_predicates() {
    let lines = printed("two_searches");
    // The guard, the loop under it with its μ-node and continue predicate (Fig. 5).
    has(&lines, "loop L0 : v8");
    // Starting from zero (one of the function's zero constants) and recurring from v14.
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("with v10: i64 = mu(v") && l.ends_with(", v14)")),
        "{}",
        lines.join("\n")
    );
    has(&lines, "v15: i1 = icmp eq v13, v7 : true");
    has(&lines, "v14: i64 = add v10, v5 : !v15");
    has(&lines, "while (!v15 & v16)");
    // The store after the loop: the loop ran, and left through the `break`.
    has(&lines, "store v17, v2 align 4 : (v15 & v8)");
    // The second loop, independent of the first, under the same guard.
    has(&lines, "loop L1 : v8");
    has(&lines, "store v37, v22 align 4 : (v35 & v8)");
    has(&lines, "ret : true");
}

#[test]
fn the_examples_keep_their_meaning() {
    let m = module();
    for (id, f) in m.functions() {
        let pssa = to_pssa(f).expect("converts");
        let lowered = lower(&pssa);
        verify_function(&m, &lowered).expect("lowered function verifies");
        let mut t = m.clone();
        *t.function_mut(id).expect("defined") = lowered;
        for seed in 0..20 {
            let alloc = |mem: &mut Memory| small_arguments(f, 64, seed, mem);
            let item = WorkItemContext::one_dim(0, 0, 1, 1);
            let what = format!("@{} seed {seed}", f.name);
            assert!(
                compare_runs(&m, &t, id, &alloc, &item, 1_000_000, &what),
                "{what}: original failed"
            );
        }
    }
}
