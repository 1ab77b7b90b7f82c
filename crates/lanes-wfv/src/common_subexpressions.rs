//! Dominator-scoped elimination of common subexpressions on the scalar SPMD function,
//! before anything else of the pipeline sees it.
//!
//! **Why.** clang keeps calls it may not merge: under C's default `-fmath-errno`, `expf`
//! and `logf` write `errno`, so `s * cnd(d1)` and `s * (1 - cnd(d1))` in Black-Scholes
//! call `expf` twice on the same argument, with a store in between. lanes imports these
//! calls as its pure math intrinsics (the vector code sets no `errno`), and LLVM then sees
//! two calls of lanes' inline exponential, each with its own rarely taken branch for
//! results outside the normal range. LLVM's own GVN merges the straight-line parts of the
//! two copies but not what follows the branches, so the vector function computed the
//! cumulative normal's tail twice per call (ISPC, without `errno`, computes it once: its
//! Black-Scholes ran 1.15–1.25× faster than lanes' on an AVX-512 Xeon, and 1.05–1.10×
//! with the duplicates merged by hand in the source). Merging here also leaves less for
//! every later pass to linearize and widen.
//!
//! **What merges.** An instruction whose result depends only on its operands: no effect,
//! no memory read, no trap ([`InstData::is_speculatable`]), not a φ and not an
//! allocation. Mask queries (`any`, `ballot`) and cross-lane reads are not among them:
//! their result depends on which lanes are active where they run, and two copies of one
//! in different blocks may see different lanes. Two instructions merge when they have
//! the same operation, immediates, flags (integer and fast-math) and result type, and
//! operands that are the same values after earlier merges; the later one must be
//! dominated by the earlier one.
//!
//! **Why it is sound under SPMD semantics.** Every lane that runs the dominated copy ran
//! the dominating one before, with the same operand values (SSA), so the lane's value is
//! the same. Linearization later runs both under masks; the lanes active at the second
//! are a subset of those active at the first, and only their values are observed there.
//! The pass leaves functions with unmasked regions (`unmasked_begin`) alone: there a
//! lane runs code that its own control flow did not reach.
//!
//! **Constants stay.** Two constants of one type and value are the same operand for the
//! comparison, wherever they are, but each stays in its block: they cost nothing in
//! machine code, and the cost models that decide what a region weighs (BOSCC's, the
//! reconverging lowering's skips) were measured with a region's constants in it. A
//! constant whose only users merged goes with the dead code.
//!
//! **How.** Blocks in a preorder of the dominator tree, so that every instruction is seen
//! after its dominators; one table from key to the values computed so far with that key;
//! a value is reused if its block dominates the current one (a few candidates are tried
//! per key, the most recent first, which keeps the pass linear on functions with many
//! identical instructions in sibling blocks). The merged copies are left unused and
//! removed with the dead code.

use std::collections::HashMap;

use lanes_analysis::{ControlFlowGraph, DominatorTree};
use lanes_ir::{Block, FastMath, Function, InstData, Intrinsic, Type, Value, ValueSubstitution};

/// Earlier instructions with the same key tried for one instruction, at most.
const CANDIDATES_PER_KEY: usize = 8;

/// What makes two instructions compute the same value from the same operands.
#[derive(PartialEq, Eq, Hash)]
struct Key {
    data: InstData,
    result: Type,
    fast_math: FastMath,
}

/// Replaces every pure instruction of `func` that repeats a dominating one (module docs)
/// by that one's value and removes it; returns how many went.
pub fn eliminate_common_subexpressions(func: &mut Function) -> usize {
    if has_unmasked_region(func) {
        return 0;
    }
    let cfg = ControlFlowGraph::with_function(func);
    let domtree = DominatorTree::with_function(func, &cfg);
    let mut seen: HashMap<Key, Vec<(Block, Value)>> = HashMap::new();
    // Constants are numbered but stay where they are (module docs).
    let mut constants: HashMap<Key, Value> = HashMap::new();
    let mut constant_number: HashMap<Value, Value> = HashMap::new();
    let mut subst = ValueSubstitution::new();
    let mut merged = 0;
    for block in domtree.preorder() {
        for &inst in func.layout.block_insts(block) {
            let data = func.dfg.inst(inst);
            let Some(result) = func.dfg.inst_result(inst) else {
                continue;
            };
            if !mergeable(data) {
                continue;
            }
            let mut data = data.clone();
            data.for_each_arg_mut(|v| {
                *v = constant_number
                    .get(v)
                    .copied()
                    .unwrap_or_else(|| subst.resolve(*v))
            });
            let key = Key {
                data,
                result: func.dfg.value_type(result),
                fast_math: func.dfg.fast_math(inst),
            };
            if matches!(key.data, InstData::Iconst { .. } | InstData::Fconst { .. }) {
                let first = *constants.entry(key).or_insert(result);
                constant_number.insert(result, first);
                continue;
            }
            let earlier = seen.entry(key).or_default();
            let dominating = earlier
                .iter()
                .rev()
                .take(CANDIDATES_PER_KEY)
                .find(|&&(b, _)| domtree.dominates(b, block));
            match dominating {
                Some(&(_, value)) => {
                    subst.insert(result, value);
                    merged += 1;
                }
                None => earlier.push((block, result)),
            }
        }
    }
    if merged > 0 {
        func.dfg.apply_substitution(&subst);
        crate::ssa_repair::remove_dead_code(func, &[]);
    }
    merged
}

/// Whether `data`'s result is a function of its operands alone (module docs).
fn mergeable(data: &InstData) -> bool {
    data.is_speculatable() && !matches!(data, InstData::Phi { .. } | InstData::Alloca { .. })
}

fn has_unmasked_region(func: &Function) -> bool {
    func.layout.blocks().any(|b| {
        func.layout.block_insts(b).iter().any(|&i| {
            matches!(
                func.dfg.inst(i),
                InstData::Intrinsic {
                    id: Intrinsic::UnmaskedBegin,
                    ..
                }
            )
        })
    })
}
