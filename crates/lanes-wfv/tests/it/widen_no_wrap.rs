//! `int` indices (PLDI'18 §2.3; `lanes_analysis::shapes::no_wrap`, `widen/extend.rs`):
//! an access `a[i + k]` with a declared contiguous `i32` instance index `i` and `add nsw`
//! becomes a vector (or masked vector) access, not a gather or scatter; the widened code
//! carries no integer flags; lane 0's address is scalar arithmetic; and the vector's base
//! does not come from lane 0's narrow sum, which may overflow where lane 0 is inactive
//! while the active lanes' sums do not.

use lanes_interp::{Interpreter, Memory, RtValue};
use lanes_ir::{AddrSpace, Function, InstData, Module, ScalarType, Type};
use lanes_wfv::{prepare, widen, Mode};

/// `y[i + k] = a * x[i + k] + y[i + k]` with an `int` index, as clang emits it, and the
/// same store guarded by `i >= 0` (so that lane 0 with `i = -1` never adds in the scalar
/// program, but does in the linearized one).
const SRC: &str = "
function @saxpy(v0: i32 contiguous, v1: i32 uniform, v2: f32 uniform, v3: ptr uniform, v4: ptr uniform) {
block0:
    v5: i32 = add nsw v0, v1
    v6: i64 = sext v5
    v7: i64 = iconst 2
    v8: i64 = shl nsw v6, v7
    v9: ptr = ptradd v3, v8
    v10: f32 = load v9 align 4
    v11: ptr = ptradd v4, v8
    v12: f32 = load v11 align 4
    v13: f32 = fmul v2, v10
    v14: f32 = fadd v13, v12
    store v14, v11 align 4
    ret
}

function @guarded(v0: ptr uniform, v1: i32 contiguous, v2: i32 uniform) {
block0:
    v3: i32 = iconst 0
    v4: i1 = icmp sge v1, v3
    brif v4, block1, block2
block1:
    v5: i32 = add nsw v1, v2
    v6: i64 = sext v5
    v7: i64 = iconst 2
    v8: i64 = shl v6, v7
    v9: ptr = ptradd v0, v8
    store v1, v9 align 4
    br block2
block2:
    ret
}
";

const W: u16 = 8;

fn widened(module: &Module, name: &str) -> Function {
    let id = module.func_by_name(name).expect("function");
    let p = prepare(module, id, &[], Mode::PARTIAL, &mut |_, _| {}).expect("prepare");
    let f = widen(module, &p, &[], W).expect("widen");
    lanes_ir::verifier::verify_function(module, &f).expect("verifies");
    f
}

fn insts(f: &Function) -> Vec<&InstData> {
    f.layout
        .blocks()
        .flat_map(|b| f.layout.block_insts(b).iter().map(|&i| f.dfg.inst(i)))
        .collect()
}

#[test]
fn int_indexed_accesses_are_vector_accesses_without_flags() {
    let module = lanes_ir::parse_module(SRC).expect("parses");
    for (name, loads, stores, masked) in [("saxpy", 2, 1, 0), ("guarded", 0, 0, 1)] {
        let f = widened(&module, name);
        let text = lanes_ir::write::function_to_string(&module, &f);
        let all = insts(&f);
        assert!(
            !all.iter()
                .any(|d| matches!(d, InstData::Gather { .. } | InstData::Scatter { .. })),
            "{name}: gather or scatter\n{text}"
        );
        let vloads = all
            .iter()
            .filter(
                |d| matches!(d, InstData::Load { ptr, .. } if !f.dfg.value_type(*ptr).is_vector()),
            )
            .count();
        let vstores = all
            .iter()
            .filter(|d| matches!(d, InstData::Store { value, .. } if f.dfg.value_type(*value).is_vector()))
            .count();
        let mstores = all
            .iter()
            .filter(|d| matches!(d, InstData::MaskedStore { .. }))
            .count();
        assert_eq!(
            (vloads, vstores, mstores),
            (loads, stores, masked),
            "{name}\n{text}"
        );
        assert!(
            all.iter().all(|d| d.int_flags().is_empty()),
            "{name}: widened code keeps a flag\n{text}"
        );
        // Lane 0's address is scalar arithmetic (`widen/lane0.rs`), not element 0 of the
        // widened address vector.
        for d in &all {
            let ptr = match d {
                InstData::Load { ptr, .. }
                | InstData::Store { ptr, .. }
                | InstData::MaskedStore { ptr, .. } => *ptr,
                _ => continue,
            };
            let def = match f.dfg.value_def(ptr) {
                lanes_ir::ValueDef::Result(i) => Some(f.dfg.inst(i)),
                lanes_ir::ValueDef::Param(_) => None,
            };
            assert!(
                matches!(def, Some(InstData::PtrAdd { args: [p, _], .. }) if !f.dfg.value_type(*p).is_vector()),
                "{name}: lane 0's address is not a scalar ptradd\n{text}"
            );
        }
    }
}

/// Runs `guarded` once per lane (scalar) and once widened, with `i = -1 + lane` and
/// `k = i32::MIN`: lane 0 is inactive, and its `i + k` would overflow (in the linearized
/// code only); the active lanes store at `base + 4·(i + k)`, which the base pointer
/// `buf + 4 - 4·i32::MIN` brings back to `buf + 4·lane`.
#[test]
fn vector_base_does_not_trust_lane_zero_overflowing_where_inactive() {
    let module = lanes_ir::parse_module(SRC).expect("parses");
    let id = module.func_by_name("guarded").expect("guarded");
    let k = i64::from(i32::MIN);
    let run = |f: Option<&Function>| -> Vec<u8> {
        let mut mem = Memory::new();
        let buf = mem
            .alloc_init(&[0u8; 64], 16, AddrSpace::PRIVATE, false)
            .expect("buffer");
        let base = buf.wrapping_add(4).wrapping_sub((4 * k) as u64);
        let ptr = RtValue::ptr_of(ScalarType::Ptr(AddrSpace::PRIVATE), base);
        let kk = RtValue::int(ScalarType::I32, k);
        match f {
            None => {
                let interp = Interpreter::new(&module);
                for lane in 0..i64::from(W) {
                    let i = RtValue::int(ScalarType::I32, lane - 1);
                    interp
                        .call(id, &[ptr.clone(), i, kk.clone()], &mut mem)
                        .expect("scalar run");
                }
            }
            Some(f) => {
                let mut m = module.clone();
                let wid = m.define(f.clone());
                let lanes = (0..u64::from(W)).map(|l| l.wrapping_sub(1)).collect();
                let iv =
                    RtValue::from_lanes(Type::vector(W, ScalarType::I32), lanes).expect("lanes");
                Interpreter::new(&m)
                    .call(wid, &[ptr, iv, kk], &mut mem)
                    .unwrap_or_else(|e| {
                        panic!(
                            "widened run: {e}\n{}",
                            lanes_ir::write::function_to_string(&m, f)
                        )
                    });
            }
        }
        mem.read_bytes(buf, 64).expect("buffer")
    };
    let want = run(None);
    assert_ne!(want, vec![0u8; 64], "the active lanes store");
    assert_eq!(run(Some(&widened(&module, "guarded"))), want);
}

/// Extensions of several exact forms (`shl nsw`, `or disjoint`, `add nsw`, an inner `sext`
/// from `i16`, `mul nsw` by a negative constant, `sub nsw`, `zext nneg`), returned so that
/// every lane is compared: the widened function at W = 4, 8, 16 against the scalar one run
/// per lane, on random inputs near the limits for which every flag holds in every lane.
const FORMS: &str = "
function @forms(v0: i32 contiguous, v1: i32 uniform, v2: i16 contiguous) -> i64 {
block0:
    v3: i32 = iconst 1
    v4: i32 = shl nsw v0, v3
    v5: i32 = or disjoint v4, v3
    v6: i32 = add nsw v5, v1
    v7: i64 = sext v6
    v8: i32 = sext v2
    v9: i32 = iconst -3
    v10: i32 = mul nsw v8, v9
    v11: i32 = sub nsw v10, v1
    v12: i64 = sext v11
    v13: i32 = add nsw v0, v1
    v14: i64 = zext nneg v13
    v15: i64 = iconst 1000003
    v16: i64 = mul v12, v15
    v17: i64 = add v7, v16
    v18: i64 = xor v17, v14
    ret v18
}
";

#[test]
fn exact_extensions_equal_the_lanes_run_one_by_one() {
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    let module = lanes_ir::parse_module(FORMS).expect("parses");
    let id = module.func_by_name("forms").expect("forms");
    let p = prepare(&module, id, &[], Mode::PARTIAL, &mut |_, _| {}).expect("prepare");
    let mut rng = SmallRng::seed_from_u64(0x000e_7ac7);
    let mut compared = 0;
    for w in [4u16, 8, 16] {
        let f = widen(&module, &p, &[], w).expect("widen");
        lanes_ir::verifier::verify_function(&module, &f).expect("verifies");
        let mut m = module.clone();
        let wid = m.define(f);
        let lanes = i128::from(w);
        for _ in 0..1500 {
            // Near the limits the flags allow: 2i near ±2^31, i + k near 0, 2i + 1 + k
            // near i32::MAX.
            let pick = |rng: &mut SmallRng, lo: i128, hi: i128| match rng.gen_range(0..3) {
                0 => hi - lanes + 1 - rng.gen_range(0..3),
                1 => lo + rng.gen_range(0..3),
                _ => rng.gen_range(lo..=hi - lanes + 1),
            };
            let i0 = pick(&mut rng, -(1 << 30), (1 << 30) - 1);
            let j0 = pick(&mut rng, i128::from(i16::MIN), i128::from(i16::MAX));
            let k = match rng.gen_range(0..4) {
                0 => rng.gen_range(-100..100),
                1 => -i0 + rng.gen_range(0..4),
                2 => i128::from(i32::MAX) - 2 * (i0 + lanes) - rng.gen_range(0..4),
                _ => rng.gen_range(i128::from(i32::MIN)..=i128::from(i32::MAX)),
            };
            let fits = |x: i128| i32::try_from(x).is_ok();
            let holds = (0..lanes).all(|l| {
                let (i, j) = (i0 + l, j0 + l);
                fits(2 * i) && fits(2 * i + 1 + k) && fits(-3 * j - k) && fits(i + k) && i + k >= 0
            });
            if !holds {
                continue;
            }
            let interp = Interpreter::new(&module);
            let want: Vec<u64> = (0..lanes)
                .map(|l| {
                    let args = [
                        RtValue::int(ScalarType::I32, (i0 + l) as i64),
                        RtValue::int(ScalarType::I32, k as i64),
                        RtValue::int(ScalarType::I16, (j0 + l) as i64),
                    ];
                    let r = interp.call(id, &args, &mut Memory::new()).expect("scalar");
                    r.and_then(|v| v.bits()).expect("an i64")
                })
                .collect();
            let vec = |ty: ScalarType, base: i128| {
                let bits = (0..lanes).map(|l| (base + l) as i64 as u64).collect();
                RtValue::from_lanes(Type::vector(w, ty), bits).expect("lanes")
            };
            let args = [
                vec(ScalarType::I32, i0),
                RtValue::int(ScalarType::I32, k as i64),
                vec(ScalarType::I16, j0),
            ];
            let got = Interpreter::new(&m)
                .call(wid, &args, &mut Memory::new())
                .expect("widened")
                .expect("a vector");
            let got: Vec<u64> = (0..w as usize)
                .map(|l| got.lane(l).and_then(|v| v.bits()).expect("lane"))
                .collect();
            assert_eq!(got, want, "W={w} i0={i0} j0={j0} k={k}");
            compared += 1;
        }
    }
    assert!(compared > 600, "only {compared} inputs compared");
}
