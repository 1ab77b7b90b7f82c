//! Branch fusion's cost model decides (PACT'11 §IV-A(a)): two loads from the same
//! contiguous address merge, two from different contiguous addresses do not (the merged
//! address would be a select, so one gather would replace two vector loads), and sides
//! whose work differs stay apart; `All` merges whatever can merge. Each fused function
//! keeps its width-1 meaning.

use crate::common;

use lanes_interp::{Memory, RtValue, WorkItemContext};
use lanes_ir::{AddrSpace, ScalarType, Shape};
use lanes_wfv::{FusionPolicy, Mode};

/// A divergent if-then-else on the parity of the work item's id; `then` and `else` are the
/// sides' bodies, each leaving its result in `%r` (renamed per side).
fn diamond(then_side: &str, else_side: &str) -> String {
    format!(
        "function @f(v0: ptr.global, v1: ptr.global, v2: ptr.global) {{
block0:
    v3: i64 = global_id 0
    v4: i64 = iconst 4
    v5: i64 = mul v3, v4
    v6: ptr.global = ptradd v0, v5
    v7: ptr.global = ptradd v1, v5
    v8: ptr.global = ptradd v2, v5
    v9: i64 = iconst 1
    v10: i64 = and v3, v9
    v11: i1 = icmp eq v10, v9
    brif v11, block1, block2
block1:
{}
    br block3
block2:
{}
    br block3
block3:
    v50: f32 = phi [block1: v20], [block2: v30]
    store v50, v8 align 4
    ret
}}
",
        then_side.replace("%r", "v20"),
        else_side.replace("%r", "v30")
    )
}

/// Pairs fused under `policy`, after checking the fused function against the original.
fn fused(text: &str, policy: FusionPolicy) -> usize {
    let module = lanes_ir::parse_module(text).unwrap();
    let (id, _) = module.functions().next().unwrap();
    let shapes = vec![Some((Shape::Uniform, 0)); 3];
    let mode = Mode::PARTIAL.with_fusion(policy);
    let what = format!("{policy:?}");
    let (p, m) = common::prepared_module(&module, id, &shapes, mode, &what);
    for gid in 0..4 {
        let alloc = |mem: &mut Memory| {
            (0..3)
                .map(|k| {
                    let bytes: Vec<u8> = (0..64u8).map(|b| b.wrapping_mul(37 + k)).collect();
                    let ptr = mem
                        .alloc_init(&bytes, 16, AddrSpace::GLOBAL, false)
                        .unwrap();
                    RtValue::ptr_of(ScalarType::Ptr(AddrSpace::GLOBAL), ptr)
                })
                .collect()
        };
        let item = WorkItemContext::one_dim(0, gid, 4, 1);
        assert!(common::compare(&module, &m, id, &alloc, &item, &what));
    }
    p.fused
}

#[test]
fn loads_from_one_address_merge() {
    let text = diamond(
        "    v21: f32 = load v6 align 4\n    v20: f32 = fadd v21, v21",
        "    v31: f32 = load v6 align 4\n    v30: f32 = fmul v31, v31",
    );
    assert_eq!(fused(&text, FusionPolicy::Auto), 1);
}

#[test]
fn loads_from_two_contiguous_addresses_stay_apart() {
    let text = diamond(
        "    v21: f32 = load v6 align 4\n    v20: f32 = fadd v21, v21",
        "    v31: f32 = load v7 align 4\n    v30: f32 = fadd v31, v31",
    );
    assert_eq!(fused(&text, FusionPolicy::Auto), 0);
    assert_eq!(fused(&text, FusionPolicy::All), 2);
    assert_eq!(fused(&text, FusionPolicy::Off), 0);
}

#[test]
fn heavy_arithmetic_merges_with_selected_operands() {
    let text = diamond(
        "    v21: f32 = load v6 align 4\n    v22: f32 = sqrt v21\n    v20: f32 = fdiv v22, v21",
        "    v31: f32 = load v6 align 4\n    v32: f32 = fneg v31\n    v33: f32 = sqrt v32\n    v30: f32 = fdiv v33, v32",
    );
    // The load, the square root and the quotient; the negation stays on its side.
    assert_eq!(fused(&text, FusionPolicy::Auto), 3);
}
