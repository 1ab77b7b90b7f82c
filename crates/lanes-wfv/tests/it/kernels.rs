//! The hand-written kernel corpus (`kernels/*.lir` at the root and the vectorizer's own
//! `tests/kernels/*.lir`: the paper's examples — binary
//! tree search of PLDI'18 Fig. 1, Fig. 3, Mandelbrot of Fig. 9, the if-cascade of Fig. 12,
//! XSBench's binary search — early returns, nested divergent loops, `any` guards, …)
//! through the control-flow pipeline in both modes and under two shape assignments (the
//! kernels' own attributes, and every argument varying). Each transformed function must
//! verify after every pass and compute, for several work items and inputs, the original's
//! result, memory and memory-access sequence. Partial linearization must lose no uniform
//! branch (PLDI'18 Table 1); full if-conversion must lose some over the corpus.

use crate::common;

use lanes_interp::{Memory, RtValue, WorkItemContext};
use lanes_ir::{FuncId, Module, Shape};
use lanes_wfv::{BosccPolicy, FusionPolicy, Mode, Stats};

/// Elements per buffer argument; contents are small so that data-dependent indices stay
/// in bounds.
const BUF_ELEMS: usize = 1024;

fn corpus() -> Vec<(String, Module)> {
    let files = common::kernel_files();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable");
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            let m = lanes_ir::parse_module(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, m)
        })
        .collect()
}

fn arguments(module: &Module, id: FuncId, seed: u64, mem: &mut Memory) -> Vec<RtValue> {
    let f = module.function(id).expect("defined");
    lanes_interp::differential::small_arguments(f, BUF_ELEMS, seed, mem)
}

/// Checks every kernel in `mode`; returns the summed statistics, the number of kernels and
/// the instruction pairs branch fusion merged.
fn check(mode: Mode, all_varying: bool) -> (Stats, usize, usize) {
    let mut total = Stats::default();
    let mut kernels = 0;
    let mut fused = 0;
    for (name, module) in corpus() {
        for (id, f) in module.functions() {
            if f.layout.num_blocks() == 0 {
                continue;
            }
            let shapes: Vec<Option<(Shape, u32)>> = if all_varying {
                f.params.iter().map(|_| Some((Shape::Varying, 0))).collect()
            } else {
                Vec::new()
            };
            let what = format!("{name} @{} {mode:?} varying={all_varying}", f.name);
            let (p, m) = common::prepared_module(&module, id, &shapes, mode, &what);
            if mode.linearization == lanes_wfv::Linearization::Partial {
                assert_eq!(p.stats.lost, 0, "{what}: lost {:?}", p.stats.lost_blocks);
            }
            total += &p.stats;
            fused += p.fused;
            kernels += 1;
            let mut compared = 0;
            for seed in 0..6u64 {
                let item = WorkItemContext::one_dim(seed % 2, seed, 8, 2);
                let alloc = |mem: &mut Memory| arguments(&module, id, seed, mem);
                if common::compare(
                    &module,
                    &m,
                    id,
                    &alloc,
                    &item,
                    &format!("{what} seed {seed}"),
                ) {
                    compared += 1;
                }
            }
            assert!(compared > 0, "{what}: no input ran without a fault");
        }
    }
    eprintln!("{mode:?} varying={all_varying}: {kernels} functions; {total}; {fused} pairs fused");
    (total, kernels, fused)
}

#[test]
fn corpus_has_sixty_kernels() {
    let n: usize = corpus()
        .iter()
        .map(|(_, m)| {
            m.functions()
                .filter(|(_, f)| f.layout.num_blocks() > 0)
                .count()
        })
        .sum();
    assert!(n >= 60, "only {n} kernels");
}

/// The reconverging transform under every block order, then its lowering to masks: every
/// kernel keeps its meaning. Depth-first with post-dominance keeps every uniform branch
/// of the kernels uniform; the other orders may reroute a loop's divergent exit out of an
/// enclosing loop, which makes that loop's branches divergent (counted as lost).
#[test]
fn reconverged_kernels() {
    for order in lanes_wfv::reconverge::BlockOrder::ALL {
        for varying in [false, true] {
            let (s, kernels, _) = check(Mode::reconverge(order), varying);
            eprintln!("{} varying={varying}: {s}", order.name());
            if order == lanes_wfv::reconverge::BlockOrder::DepthFirstPostDom {
                assert_eq!(s.lost, 0, "{}", order.name());
            }
            assert!(kernels >= 55, "{}: {kernels} kernels lowered", order.name());
        }
    }
}

#[test]
fn partial_linearization_of_kernels() {
    for varying in [false, true] {
        let (s, _, _) = check(Mode::PARTIAL, varying);
        assert_eq!(s.lost, 0);
        assert!(s.divergent > 0);
    }
}

/// BOSCC gadgets on every divergent branch that can have one, over the corpus: each
/// kernel keeps its meaning with the blends after the gadgets' joins that the region
/// already made dropped (`redundant_blends`), and no uniform branch is lost.
#[test]
fn boscc_gadgets_of_kernels() {
    for varying in [false, true] {
        let (s, _, _) = check(Mode::boscc(BosccPolicy::All), varying);
        assert_eq!(s.lost, 0);
        assert!(s.divergent > 0);
    }
}

#[test]
fn full_if_conversion_of_kernels() {
    let (a, _, _) = check(Mode::FULL, false);
    let (b, _, _) = check(Mode::FULL, true);
    assert!(a.lost + b.lost > 0, "full mode must lose uniform branches");
}

/// Branch fusion where the cost model finds a profit keeps every kernel's meaning, and
/// merges the two sides of PACT'11's Fig. 10 (all but one instruction).
#[test]
fn branch_fusion_of_kernels() {
    let mut fused = 0;
    for varying in [false, true] {
        let (s, _, f) = check(Mode::PARTIAL.with_fusion(FusionPolicy::Auto), varying);
        assert_eq!(s.lost, 0);
        fused += f;
    }
    let module = lanes_ir::parse_module(
        &std::fs::read_to_string(common::kernel_path("pact11_fig10_branch_fusion.lir")).unwrap(),
    )
    .unwrap();
    let (id, _) = module.functions().next().unwrap();
    let mode = Mode::PARTIAL.with_fusion(FusionPolicy::Auto);
    let (p, _) = common::prepared_module(&module, id, &[], mode, "pact11_fig10");
    assert_eq!(p.fused, 10, "the sides have 10 and 11 instructions");
    assert!(fused >= 2 * p.fused, "{fused}");
}

/// PLDI'18 Table 1 for the corpus (printed; the assertions are in the tests above): per
/// kernel, branches, uniform branches per the shape analysis, and how many uniform
/// branches each mode loses.
#[test]
fn table1() {
    let mut rows = Vec::new();
    for (name, module) in corpus() {
        for (id, f) in module.functions() {
            if f.layout.num_blocks() == 0 {
                continue;
            }
            let mut row = format!(
                "{:<36}",
                format!("{}@{}", name.trim_end_matches(".lir"), f.name)
            );
            let mut lost = [0; 2];
            let mut base = Stats::default();
            for (i, mode) in [Mode::PARTIAL, Mode::FULL].into_iter().enumerate() {
                let p = lanes_wfv::prepare(&module, id, &[], mode, &mut |_, _| {}).unwrap();
                lost[i] = p.stats.lost;
                if i == 0 {
                    base = p.stats.clone();
                }
            }
            assert_eq!(lost[0], 0, "{row}");
            row += &format!(
                "{:>4} {:>4} {:>4} {:>6} {:>6}",
                base.branches, base.uniform, base.divergent, lost[0], lost[1]
            );
            rows.push(row);
        }
    }
    eprintln!(
        "{:<36}{:>4} {:>4} {:>4} {:>6} {:>6}",
        "kernel", "br", "uni", "div", "lost/p", "lost/f"
    );
    for r in rows {
        eprintln!("{r}");
    }
}
