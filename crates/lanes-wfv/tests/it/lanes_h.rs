//! `include/lanes.h`'s reductions and scan with interpreter semantics: an SPMD function
//! using `lanes_reduce_{add,min,max,and,or}`, `lanes_exclusive_scan_add`,
//! `lanes_broadcast` (the first active lane) and `lanes_extract` (tests/data/lanes_h_reductions.c, through
//! clang-19 with the header's lanes definitions) is vectorized at 4, 8 and 16 lanes and
//! run once in the interpreter over one group of instances; every output equals what
//! the header promises, computed here from the inputs — over all lanes, and, inside a
//! divergent branch, over the lanes that took it.

use std::path::Path;

use lanes_interp::{Interpreter, Memory, RtValue};
use lanes_ir::{AddrSpace, ScalarType, Shape, Type};
use lanes_llvm::clang::ClangOptions;
use lanes_wfv::{define_variant, Mode};

/// `tests/data/{file}` imported through clang-19 with `include/lanes.h`'s lanes
/// definitions (`__LANES__`).
fn import_with_header(file: &str) -> lanes_ir::Module {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let include = root.join("../../include");
    let opts = ClangOptions {
        extra: vec![
            format!("-I{}", include.display()),
            "-D__LANES__".to_string(),
        ],
        ..ClangOptions::default()
    };
    lanes_llvm::driver::import_file(&root.join("tests/data").join(file), &opts).expect("imports")
}

#[test]
fn header_reductions_fold_the_active_lanes_in_the_interpreter() {
    let module = import_with_header("lanes_h_reductions.c");
    let id = module.func_by_name("reduce").expect("reduce");
    let shapes = [
        Some((Shape::Contiguous, 0)),
        Some((Shape::Uniform, 0)),
        Some((Shape::Uniform, 0)),
        Some((Shape::Uniform, 0)),
        Some((Shape::Uniform, 0)),
    ];
    for w in [4u16, 8, 16] {
        let mut m = module.clone();
        let wid = define_variant(&mut m, id, &shapes, Mode::PARTIAL, w, false, "reduce_w")
            .expect("vectorizes");
        let n = usize::from(w);
        let base = 3usize;
        // Inputs for instances base..base + n (the group), some divisible by 3.
        let a: Vec<i32> = (0..base + n).map(|i| ((i as i32 * 37) % 23) - 9).collect();
        let u: Vec<u32> = (0..base + n)
            .map(|i| 0xF0F0_FFFF ^ (1u32 << (i % 32)))
            .collect();
        let bytes = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let mut mem = Memory::new();
        let g = AddrSpace::PRIVATE;
        let a_bits: Vec<u32> = a.iter().map(|&x| x as u32).collect();
        let pa = mem.alloc_init(&bytes(&a_bits), 16, g, false).unwrap();
        let pu = mem.alloc_init(&bytes(&u), 16, g, false).unwrap();
        let po = mem
            .alloc_init(&vec![0u8; 4 * 8 * (base + n)], 16, g, false)
            .unwrap();
        let puo = mem
            .alloc_init(&vec![0u8; 4 * 2 * (base + n)], 16, g, false)
            .unwrap();
        let index: Vec<u64> = (0..n).map(|k| (base + k) as u64).collect();
        let args = vec![
            RtValue::from_lanes(Type::Vector(w, ScalarType::I32), index).unwrap(),
            RtValue::ptr_of(ScalarType::Ptr(g), pa),
            RtValue::ptr_of(ScalarType::Ptr(g), pu),
            RtValue::ptr_of(ScalarType::Ptr(g), po),
            RtValue::ptr_of(ScalarType::Ptr(g), puo),
        ];
        Interpreter::new(&m)
            .call(wid, &args, &mut mem)
            .unwrap_or_else(|e| panic!("W={w}: {e}"));
        let words = |ptr: u64, count: usize| -> Vec<u32> {
            mem.read_bytes(ptr, 4 * count as u64)
                .unwrap()
                .chunks(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        };
        let o = words(po, 8 * (base + n));
        let uo = words(puo, 2 * (base + n));
        let group = &a[base..];
        let taken: Vec<bool> = group.iter().map(|x| x % 3 != 0).collect();
        let sum: i32 = group.iter().sum();
        let taken_sum: i32 = group
            .iter()
            .zip(&taken)
            .filter(|(_, t)| **t)
            .map(|(x, _)| x)
            .sum();
        let and = u[base..].iter().fold(!0u32, |x, y| x & y);
        let or = u[base..].iter().fold(0u32, |x, y| x | y);
        for k in 0..n {
            let row = &o[8 * (base + k)..8 * (base + k) + 8];
            let got: Vec<i32> = row.iter().map(|&x| x as i32).collect();
            let before: i32 = group[..k].iter().sum();
            let taken_before: i32 = group[..k]
                .iter()
                .zip(&taken)
                .filter(|(_, t)| **t)
                .map(|(x, _)| x)
                .sum();
            let want = [
                sum,
                *group.iter().min().unwrap(),
                *group.iter().max().unwrap(),
                before,
                if taken[k] { taken_sum } else { 0 },
                if taken[k] { taken_before } else { 0 },
                group[0],
                group[n - 1],
            ];
            assert_eq!(got, want, "W={w} lane {k}");
            assert_eq!(
                &uo[2 * (base + k)..2 * (base + k) + 2],
                &[and, or],
                "W={w} lane {k}"
            );
        }
    }
}

/// `lanes_unmasked { … }` (tests/data/lanes_h_unmasked.c) inside a divergent branch, at
/// 4, 8 and 16 lanes, under partial and full linearization and with BOSCC and branch
/// fusion, unmasked and as a masked variant whose entry mask leaves lane 1 out:
/// the store before the block runs on the lanes that took the branch, the block's store
/// and `lanes_popcount(1)` on every lane that entered, and a lane that did not enter
/// touches nothing. A loop inside the block is reported with the block's line.
#[test]
fn header_unmasked_block_runs_on_every_lane_that_entered() {
    let module = import_with_header("lanes_h_unmasked.c");
    let looping = module.func_by_name("unmasked_loop").expect("unmasked_loop");
    let shapes3 = [
        Some((Shape::Contiguous, 0)),
        Some((Shape::Uniform, 0)),
        Some((Shape::Uniform, 0)),
    ];
    let err = define_variant(
        &mut module.clone(),
        looping,
        &shapes3,
        Mode::PARTIAL,
        8,
        false,
        "l",
    )
    .expect_err("a loop in an unmasked block is reported");
    assert!(
        err.to_string().contains("line 20: ") && err.to_string().contains("straight-line"),
        "{err}"
    );
    let id = module.func_by_name("unmasked").expect("unmasked");
    let uses_bounds = module.function(id).unwrap().dfg.insts().any(|i| {
        matches!(
            module.function(id).unwrap().dfg.inst(i),
            lanes_ir::InstData::Intrinsic {
                id: lanes_ir::Intrinsic::UnmaskedBegin,
                ..
            }
        )
    });
    assert!(uses_bounds, "the import keeps the region's bounds");
    let mut shapes = vec![Some((Shape::Contiguous, 0))];
    shapes.extend([Some((Shape::Uniform, 0)); 4]);
    let boscc = Mode::boscc(lanes_wfv::BosccPolicy::All).with_fusion(lanes_wfv::FusionPolicy::All);
    let modes = [Mode::PARTIAL, Mode::FULL, boscc];
    for (w, mode, masked) in [4u16, 8, 16]
        .into_iter()
        .flat_map(|w| modes.map(|m| (w, m)))
        .flat_map(|(w, m)| [(w, m, false), (w, m, true)])
    {
        let what = format!("W={w} {mode:?} masked={masked}");
        let mut m = module.clone();
        let wid = define_variant(&mut m, id, &shapes, mode, w, masked, "unm_w")
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let n = usize::from(w);
        // Lanes 0, 3, 4, 7, … take the branch; the others do not.
        let a: Vec<i32> = (0..n)
            .map(|k| if k % 4 == 0 || k % 4 == 3 { 5 } else { -5 })
            .collect();
        let entered: Vec<bool> = (0..n).map(|k| !masked || k != 1).collect();
        let bytes = |v: &[i32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let mut mem = Memory::new();
        let g = AddrSpace::PRIVATE;
        let pa = mem.alloc_init(&bytes(&a), 16, g, false).unwrap();
        let outs: Vec<u64> = (0..3)
            .map(|_| mem.alloc_init(&bytes(&vec![-1; n]), 16, g, false).unwrap())
            .collect();
        let index: Vec<u64> = (0..n as u64).collect();
        let mut args = vec![
            RtValue::from_lanes(Type::Vector(w, ScalarType::I32), index).unwrap(),
            RtValue::ptr_of(ScalarType::Ptr(g), pa),
        ];
        args.extend(outs.iter().map(|&p| RtValue::ptr_of(ScalarType::Ptr(g), p)));
        if masked {
            let bits = entered.iter().map(|&e| u64::from(e)).collect();
            args.push(RtValue::from_lanes(Type::mask(w), bits).unwrap());
        }
        Interpreter::new(&m)
            .call(wid, &args, &mut mem)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let words = |ptr: u64| -> Vec<i32> {
            mem.read_bytes(ptr, 4 * n as u64)
                .unwrap()
                .chunks(4)
                .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        };
        let entered_count = entered.iter().filter(|&&e| e).count() as i32;
        for k in 0..n {
            let took = entered[k] && a[k] > 0;
            let want_taken = if took { a[k] } else { -1 };
            let want_all = if entered[k] { k as i32 + 100 } else { -1 };
            let want_count = if entered[k] { entered_count } else { -1 };
            assert_eq!(words(outs[0])[k], want_taken, "{what} lane {k} taken");
            assert_eq!(words(outs[1])[k], want_all, "{what} lane {k} all");
            assert_eq!(words(outs[2])[k], want_count, "{what} lane {k} count");
        }
    }
}
