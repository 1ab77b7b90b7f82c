//! SLP packing across blocks on hand-written C (`tests/data/slp_kernels.c`, imported
//! with clang-19 -O2, whose own vectorizers are off for import): each kernel gets the
//! packs its comment promises, and the vectorized function computes what the scalar one
//! computes (result, memory and the sequence of memory accesses that are not masked).

use lanes_interp::differential::{run_traced, small_arguments};
use lanes_interp::{Memory, WorkItemContext};
use lanes_ir::verifier::verify_function;
use lanes_ir::write::function_to_string;
use lanes_ir::Module;
use lanes_slp::cost::{CostModel, RegisterCost};
use lanes_slp::packing::Rejection;
use lanes_slp::{supervectorize_with, SlpReport};

pub(crate) fn module() -> Module {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/slp_kernels.c");
    lanes_llvm::driver::import_file(&path, &Default::default()).expect("imports")
}

/// Vectorizes `name` for 256-bit registers, checks it against the scalar function on
/// many inputs, and returns the report and the vector function's text.
fn check(name: &str) -> (SlpReport, String) {
    check_with(name, &RegisterCost { register_bits: 256 })
}

/// [`check`] with the prices of `cost`.
pub(crate) fn check_with(name: &str, cost: &dyn CostModel) -> (SlpReport, String) {
    let m = module();
    let id = m.func_by_name(name).expect("defined");
    let f = m.function(id).expect("body");
    let (v, report) = supervectorize_with(f, cost).expect("vectorizes");
    let text = function_to_string(&m, &v);
    if let Err(e) = verify_function(&m, &v) {
        panic!("{name}: {e}\n{text}");
    }
    let mut t = m.clone();
    *t.function_mut(id).expect("defined") = v;
    for seed in 0..40 {
        let alloc = |mem: &mut Memory| small_arguments(f, 4096, seed, mem);
        let item = WorkItemContext::one_dim(0, 0, 1, 1);
        let (ra, ma, _) = run_traced(&m, id, &alloc, &item, 1_000_000);
        let (rb, mb, _) = run_traced(&t, id, &alloc, &item, 1_000_000);
        assert_eq!(
            ra.map(|r| r.map(|x| format!("{x:?}"))),
            rb.map(|r| r.map(|x| format!("{x:?}"))),
            "{name} seed {seed}\n{text}"
        );
        assert!(ma == mb, "{name} seed {seed}: memory differs\n{text}");
    }
    (report, text)
}

fn count(text: &str, what: &str) -> usize {
    text.lines().filter(|l| l.contains(what)).count()
}

#[test]
fn adjacent_sums_become_one_tree() {
    let (r, text) = check("add4");
    assert_eq!(
        (r.trees, r.packs, r.packed_insts),
        (1, 4, 16),
        "{r:?}\n{text}"
    );
    assert!(text.contains("<4 x f32> = fadd"), "{text}");
    assert_eq!(count(&text, "store "), 1, "{text}");
}

#[test]
fn a_store_that_may_change_a_later_load_keeps_the_code_scalar() {
    let (r, text) = check("add4_alias");
    assert_eq!(r.trees, 0, "{r:?}\n{text}");
    assert!(
        r.rejected
            .iter()
            .any(|(_, why)| *why == Rejection::Dependence),
        "{r:?}"
    );
}

#[test]
fn stores_under_different_conditions_are_masked() {
    let (r, text) = check("cond_scale8");
    assert_eq!(r.trees, 1, "{r:?}\n{text}");
    assert!(r.cross_predicate_packs >= 2, "{r:?}\n{text}");
    assert!(text.contains("masked_store"), "{text}");
    assert!(text.contains("<8 x i32> = mul"), "{text}");
}

#[test]
fn phis_of_different_branches_are_blended() {
    let (r, text) = check("branchy4");
    assert_eq!(r.trees, 1, "{r:?}\n{text}");
    assert!(text.contains("<4 x i32> = select"), "{text}");
    assert!(text.contains("masked_load"), "{text}");
}

#[test]
fn swapped_operands_are_matched_and_permutations_built() {
    let (r, text) = check("swapped4");
    assert_eq!(r.trees, 1, "{r:?}\n{text}");
    assert!(text.contains("<4 x f64> = fmul"), "{text}");
    assert!(
        text.contains("shuffle"),
        "a permuted load is loaded and shuffled\n{text}"
    );
    assert!(
        !text.contains("insert"),
        "nothing is built from scalars\n{text}"
    );
}

#[test]
fn a_hand_unrolled_loop_body_is_packed() {
    let (r, text) = check("saxpy_by4");
    assert_eq!(r.trees, 1, "{r:?}\n{text}");
    assert!(text.contains("<4 x f32> = load"), "{text}");
}

#[test]
fn a_conditional_stencil_row_is_packed() {
    let (r, text) = check("stencil_rows");
    assert!(r.trees >= 1, "{r:?}\n{text}");
    assert!(text.contains("<8 x f32> = fadd"), "{text}");
}

#[test]
fn code_without_adjacent_stores_is_left_as_it_is() {
    let (r, _) = check("no_adjacent");
    assert_eq!(r, SlpReport::default());
}

#[test]
fn counted_loops_are_unrolled_and_packed() {
    for (name, store) in [
        ("saxpy", "store"),
        ("clamp_positive", "masked_store"),
        ("last_sum", "store"),
        ("scale_tail", "store"),
    ] {
        let (r, text) = check(name);
        assert_eq!(r.unrolled.len(), 1, "{name}: {r:?}\n{text}");
        assert!(r.trees >= 1, "{name}: {r:?}\n{text}");
        assert!(text.contains(store), "{name}: {store}\n{text}");
        assert!(
            text.lines()
                .any(|l| l.contains(" x ") && l.contains("= load")),
            "{name}: a vector load\n{text}"
        );
    }
}

#[test]
fn the_iterations_a_main_loop_leaves_run_as_one_masked_step() {
    // saxpy's main loop stores whole vectors; what is left over runs as one masked
    // vector step (lane k under k < left), not as a scalar loop.
    let (r, text) = check("saxpy");
    assert_eq!(r.unrolled.len(), 1, "{r:?}");
    assert!(text.contains("masked_store"), "{text}");
    assert!(text.contains("masked_load"), "{text}");
    assert!(
        text.contains("icmp ult"),
        "the lanes' mask is a vector compare\n{text}"
    );
}

#[test]
fn an_outer_loop_with_guarded_inner_loops_is_vectorized() {
    // Fig. 16: the outer loop unrolled, its inner loops' copies fused under their
    // guards, the stores to adjacent columns packed and masked by the guards.
    let (r, text) = check("outer_guarded");
    assert_eq!(r.unrolled.len(), 1, "{r:?}");
    assert_eq!(r.fused, 1, "{r:?}");
    assert!(
        r.trees >= 1 && r.cross_predicate_packs >= 1,
        "{r:?}\n{text}"
    );
    assert!(text.contains("masked_store"), "{text}");
}

#[test]
fn a_recurrence_from_outside_the_loop_is_unrolled() {
    let (r, text) = check("lagged");
    assert_eq!(r.unrolled.len(), 1, "{r:?}\n{text}");
}

#[test]
fn escape_loops_are_coiterated_with_vector_mu_nodes() {
    let (r, text) = check("escape_counts");
    assert!(r.coiterated >= 1, "{r:?}\n{text}");
    // The values, counters and flags of eight co-iterated loops as vector φs.
    assert!(count(&text, "<8 x f32> = phi") >= 1, "{text}");
    assert!(count(&text, "<8 x i1> = phi") >= 1, "{text}");
    // The loop goes on while any lane is active; the counts leave it as one vector.
    assert!(text.contains("= any "), "{text}");
    // (one store in the main loop, one in the remainder, not eight copies)
    assert_eq!(count(&text, "store "), 2, "{text}");
}

#[test]
fn row_sums_are_vectorized_along_the_row_not_across_fused_rows() {
    // Fusing the unrolled rows' loops would put eight strided loads into a vector each
    // iteration and pack nothing else that pays inside the fused loop: that trial is
    // not kept. The row's own loop is unrolled instead, its sum split into a vector
    // accumulator fed by contiguous loads.
    let (r, text) = check("row_sums");
    assert_eq!(r.fused, 0, "{r:?}\n{text}");
    assert_eq!(r.unrolled, vec![8], "{r:?}\n{text}");
    assert!(count(&text, "<8 x i32> = phi") >= 1, "{text}");
    assert!(count(&text, "<8 x i32> = load") >= 1, "{text}");
}

#[test]
fn an_integer_reduction_becomes_a_vector_accumulator() {
    let (r, text) = check("int_dot");
    assert_eq!(r.unrolled, vec![8], "{r:?}\n{text}");
    assert!(r.mu_packs >= 1, "{r:?}\n{text}");
    assert!(count(&text, "<8 x i32> = phi") >= 1, "{text}");
    assert!(count(&text, "<8 x i32> = mul") >= 1, "{text}");
}

#[test]
fn fused_copies_share_what_they_compute_alike_and_load_columns_as_vectors() {
    let (r, text) = check("column_sums");
    assert_eq!(r.unrolled, vec![8], "{r:?}\n{text}");
    assert_eq!(r.fused, 1, "{r:?}\n{text}");
    assert!(r.mu_packs >= 1, "{r:?}\n{text}");
    // Eight sums in one vector, fed by one vector load of a row's eight columns and
    // one splat of y[j] per iteration, rather than sixteen scalar loads built up: the
    // only vector built from scalars is the sums' start, once before the loop.
    assert!(count(&text, "<8 x f32> = phi") >= 1, "{text}");
    assert!(count(&text, "<8 x f32> = load") >= 1, "{text}");
    assert!(count(&text, "<8 x f32> = broadcast") >= 2, "{text}");
    assert_eq!(count(&text, "<8 x f32> = insert"), 7, "{text}");
}

#[test]
fn a_reassociable_float_sum_becomes_a_vector_accumulator() {
    // The interpreter's inputs are tiny (subnormal) floats, whose sums are exact in any
    // order: the split sum must equal the sequential one bit for bit.
    let (r, text) = check("float_sum");
    assert_eq!(r.unrolled, vec![8], "{r:?}\n{text}");
    assert!(r.mu_packs >= 1, "{r:?}\n{text}");
    assert!(count(&text, "<8 x f32> = phi") >= 1, "{text}");
    assert!(count(&text, "<8 x f32> = fadd") >= 1, "{text}");
    // Without `reassoc` the sum keeps its order: no accumulator is split.
    let (r, text) = check("float_sum_in_order");
    assert_eq!(r.mu_packs, 0, "{r:?}\n{text}");
    assert_eq!(count(&text, "<8 x f32> = phi"), 0, "{text}");
}
