//! Private arrays laid out element-major across lanes (lanes-wfv `private_memory`), on
//! `tests/kernels/private_arrays.lir`: which arrays the pass takes (those whose addresses
//! stay in the function, accessed at multiples of their smallest access, wider plain
//! accesses split) and which it leaves per lane, and what widening then makes of their accesses — vector loads and stores for a
//! uniform index, gathers and scatters only for a varying one. The kernels' meaning is
//! checked where every kernel's is: at width 1 (`kernels`) and widened at 4, 8 and 16
//! lanes against the lanes run one by one (`widen`); generated programs with typed stack
//! arrays run in `widen` and `native`.

use crate::common;

use lanes_ir::{Function, InstData, Module};
use lanes_wfv::{prepare, widen, Mode, PrivateLayout};

fn module() -> Module {
    let path = common::kernel_path("private_arrays.lir");
    lanes_ir::parse_module(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn interleaved(name: &str, mode: Mode) -> usize {
    let m = module();
    let id = m.func_by_name(name).unwrap();
    let check = &mut |pass: &str, f: &Function| common::verify(&m, f, pass);
    prepare(&m, id, &[], mode, check).unwrap().interleaved
}

/// Gathers, scatters, vector loads and vector stores of the function widened to 8 lanes.
fn accesses(name: &str, layout: PrivateLayout) -> [usize; 4] {
    let m = module();
    let id = m.func_by_name(name).unwrap();
    let p = prepare(
        &m,
        id,
        &[],
        Mode::PARTIAL.with_private_layout(layout),
        &mut |_, _| {},
    )
    .unwrap();
    let f = widen(&m, &p, &[], 8).unwrap();
    lanes_ir::verifier::verify_function(&m, &f).unwrap();
    let mut n = [0; 4];
    for b in f.layout.blocks() {
        for &i in f.layout.block_insts(b) {
            let vector = |v| f.dfg.value_type(v).is_vector();
            match f.dfg.inst(i) {
                InstData::Gather { .. } => n[0] += 1,
                InstData::Scatter { .. } => n[1] += 1,
                InstData::Load { ptr, .. } | InstData::MaskedLoad { ptr, .. } if !vector(*ptr) => {
                    n[2] += usize::from(f.dfg.inst_result(i).is_some_and(vector))
                }
                InstData::Store { value, ptr, .. } | InstData::MaskedStore { value, ptr, .. }
                    if !vector(*ptr) =>
                {
                    n[3] += usize::from(vector(*value))
                }
                _ => {}
            }
        }
    }
    n
}

#[test]
fn arrays_whose_addresses_stay_inside_are_interleaved() {
    for mode in [Mode::PARTIAL, Mode::FULL] {
        assert_eq!(interleaved("fold_uniform", mode), 1);
        assert_eq!(interleaved("histogram", mode), 1);
        // Two allocas joined by a φ: one family.
        assert_eq!(interleaved("choose_array", mode), 1);
        // The array whose address is stored stays per lane; the slot holding it does not.
        assert_eq!(interleaved("escaping", mode), 1);
        // Wider accesses split into elements of the smallest.
        assert_eq!(interleaved("mixed_sizes", mode), 1);
        assert_eq!(interleaved("zeroed_then_wide", mode), 1);
        assert_eq!(interleaved("odd_offset", mode), 0);
        assert_eq!(interleaved("volatile_slot", mode), 1);
        assert_eq!(interleaved("contiguous_index", mode), 1);
    }
    let per_lane = Mode::PARTIAL.with_private_layout(PrivateLayout::PerLane);
    assert_eq!(interleaved("fold_uniform", per_lane), 0);
}

#[test]
fn a_uniform_index_is_a_vector_access_and_a_varying_one_a_gather() {
    // fold_uniform: every access to v[j] is a vector load or store.
    let [g, s, loads, stores] = accesses("fold_uniform", PrivateLayout::Interleaved);
    assert_eq!((g, s), (0, 0), "no gather or scatter left");
    assert!(
        loads >= 3 && stores >= 3,
        "{loads} vector loads, {stores} vector stores"
    );
    // Per lane, the same accesses are strided: gathers and scatters.
    let [g, s, _, _] = accesses("fold_uniform", PrivateLayout::PerLane);
    assert!(g >= 2 && s >= 2, "{g} gathers, {s} scatters per lane");
    // histogram: h[in & 7] is a gather and a scatter, the constant slots vector accesses
    // (the other gather reads the input, 16 bytes apart from lane to lane).
    let [g, s, loads, stores] = accesses("histogram", PrivateLayout::Interleaved);
    assert_eq!((g, s), (2, 1));
    assert!(
        loads >= 3 && stores >= 2,
        "{loads} vector loads, {stores} vector stores"
    );
}

#[test]
fn wide_accesses_at_a_uniform_offset_become_element_vector_accesses() {
    // Two 8-byte zero stores, two 4-byte stores, and two 8-byte loads: each 8-byte access
    // is two 4-byte element vectors, none a gather or scatter.
    let [g, s, loads, stores] = accesses("zeroed_then_wide", PrivateLayout::Interleaved);
    assert_eq!((g, s), (0, 0));
    assert!(
        loads >= 4 && stores >= 6,
        "{loads} vector loads, {stores} vector stores"
    );
}

#[test]
fn widened_stack_arrays_are_cache_line_aligned() {
    // Read and written a vector at a time, an element-major array must not let a vector
    // straddle two cache lines wherever the stack happens to be.
    let m = module();
    let id = m.func_by_name("fold_uniform").unwrap();
    let p = prepare(&m, id, &[], Mode::PARTIAL, &mut |_, _| {}).unwrap();
    let f = widen(&m, &p, &[], 16).unwrap();
    let aligns: Vec<(u32, u32)> = f
        .layout
        .blocks()
        .flat_map(|b| f.layout.block_insts(b).to_vec())
        .filter_map(|i| match f.dfg.inst(i) {
            InstData::Alloca { size, align } => Some((*size, *align)),
            _ => None,
        })
        .collect();
    assert!(!aligns.is_empty());
    for (size, align) in aligns {
        assert!(size < 64 || align >= 64, "{size} bytes aligned to {align}");
    }
}

#[test]
fn a_contiguous_index_is_a_strided_access() {
    // contiguous_index: v[i] with the instance index i, element-major at W lanes, steps
    // (W + 1)·4 bytes from lane to lane: the shape analysis of widening at W states that
    // stride (the remark names it) instead of an unknown, indirect address.
    let mut m = module();
    let id = m.func_by_name("contiguous_index").unwrap();
    let p = prepare(&m, id, &[], Mode::PARTIAL, &mut |_, _| {}).unwrap();
    assert_eq!(p.interleaved, 1);
    for w in [4u16, 8, 16] {
        let mut report = lanes_wfv::WidenReport::default();
        lanes_wfv::widen_into_noting(&mut m, &p, &[], w, &mut report).unwrap();
        let step = format!("steps {} bytes from lane to lane", (u32::from(w) + 1) * 4);
        let strided = report
            .notes
            .iter()
            .filter(|n| n.message.contains(&step))
            .count();
        // The store (a scatter) and the load (a gather) of v[i].
        assert_eq!(strided, 2, "W={w}: {:?}", report.notes);
    }
}
