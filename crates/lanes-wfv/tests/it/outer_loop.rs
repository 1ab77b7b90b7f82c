//! Differential test of outer-loop vectorization (PLDI'18 §7): every parallel loop of
//! `corpus/omp_simd/loops.c` (imported through clang-19 with `-fopenmp-simd`) is
//! vectorized at W = 4, 8, 16 with partial linearization and with full if-conversion,
//! and the function is run before and after in the interpreter on the same inputs for
//! trip counts around multiples of W: same result, same final contents of every argument
//! buffer, the same bytes written and no byte read that the scalar loop did not read
//! (remainder lanes and inactive lanes touch nothing). Loops that cannot be taken are
//! reported with the reason and left exactly as they were.

use std::collections::HashSet;
use std::path::Path;

use lanes_interp::{AccessKind, Interpreter, Memory, RtValue};
use lanes_ir::{AddrSpace, Module, ScalarType, Type};
use lanes_llvm::clang::ClangOptions;
use lanes_wfv::outer_loop::{vectorize_parallel_loops, Declined, OuterLoopOptions};
use lanes_wfv::Mode;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Argument kinds, one letter per parameter: `n` trip count, `i` small integer, `f`
/// float, `L` a float in [10, 16), `I`/`F`/`D` buffers of i32/f32/f64, `S` a sorted i32
/// buffer, `R` an i32 buffer of rare negatives (an early exit far in), `B` a byte buffer
/// of rare zeros.
const CASES: &[(&str, &str)] = &[
    ("saxpy", "nfFF"),
    ("halve_until", "nFf"),
    ("dot", "nFF"),
    ("sum_above", "nIi"),
    ("min_max_spread", "nI"),
    ("checksum", "nI"),
    ("last_scaled", "nFF"),
    ("reverse_copy", "nII"),
    ("window", "inI"),
    ("mandel_row", "nfffiI"),
    ("lower_bounds", "nISiI"),
    ("row_means", "niII"),
    ("strided", "nDD"),
    ("sums", "nII"),
    ("guarded_div", "nII"),
    ("collatz_steps", "nII"),
    ("pick", "nII"),
    ("shift_by_one", "nII"),
    ("row_sum", "Ini"),
    ("first_negative", "nR"),
    ("first_negative", "nI"),
    ("first_big_double", "nFLF"),
    ("copy_through_negative", "nRI"),
    ("bounded_strlen", "nB"),
    ("two_exits", "nRI"),
];

const ELEMS: usize = 2048;

fn import() -> Module {
    import_with(&[])
}

/// `loops.c` through clang with `-fopenmp-simd` and `extra`.
fn import_with(extra: &[&str]) -> Module {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/omp_simd/loops.c");
    let opts = ClangOptions {
        extra: std::iter::once("-fopenmp-simd")
            .chain(extra.iter().copied())
            .map(String::from)
            .collect(),
        ..ClangOptions::default()
    };
    lanes_llvm::driver::import_file(&path, &opts).expect("loops.c imports")
}

/// Arguments for `spec` in a fresh memory; the buffers' (ptr, len).
fn setup(
    module: &Module,
    name: &str,
    spec: &str,
    count: i64,
    seed: u64,
    mem: &mut Memory,
) -> (Vec<RtValue>, Vec<(u64, usize)>) {
    let id = module.func_by_name(name).expect("function");
    let f = module.function(id).expect("body");
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut args = Vec::new();
    let mut bufs = Vec::new();
    for (k, c) in spec.chars().enumerate() {
        let ty = f.value_type(f.params[k].value);
        let v = match c {
            'n' => RtValue::int(ty.elem(), count),
            'i' => RtValue::int(ty.elem(), rng.gen_range(0..16)),
            'f' if ty == Type::F32 => RtValue::f32(f32::from(rng.gen_range(-16i8..16)) / 8.0),
            'f' => RtValue::f64(f64::from(rng.gen_range(-16i8..16)) / 8.0),
            'L' => RtValue::f32(f32::from(rng.gen_range(40u8..64)) / 4.0),
            'I' | 'S' | 'F' | 'D' | 'R' | 'B' => {
                let mut ints: Vec<i32> = (0..ELEMS * 2)
                    .map(|_| match c {
                        'R' if rng.gen_ratio(1, 40) => -1,
                        'R' => rng.gen_range(0..1000),
                        'B' if rng.gen_ratio(1, 50) => 0,
                        'B' => rng.gen_range(1..256),
                        _ => rng.gen_range(-4..32),
                    })
                    .collect();
                if c == 'S' {
                    ints.sort_unstable();
                }
                let bytes: Vec<u8> = match c {
                    'F' => ints
                        .iter()
                        .flat_map(|&x| (x as f32 / 4.0).to_le_bytes())
                        .collect(),
                    'D' => ints
                        .iter()
                        .flat_map(|&x| (f64::from(x) / 4.0).to_le_bytes())
                        .collect(),
                    'B' => ints.iter().map(|&x| x as u8).collect(),
                    _ => ints.iter().flat_map(|x| x.to_le_bytes()).collect(),
                };
                let ptr = mem
                    .alloc_init(&bytes, 64, AddrSpace::GLOBAL, false)
                    .expect("fits");
                bufs.push((ptr, bytes.len()));
                RtValue::ptr_of(ScalarType::Ptr(AddrSpace::PRIVATE), ptr)
            }
            _ => panic!("bad spec letter {c}"),
        };
        args.push(v);
    }
    (args, bufs)
}

/// What one run did: result, final buffer contents, bytes read and written in buffers,
/// and the addresses read speculatively (anywhere).
struct Run {
    result: Option<RtValue>,
    buffers: Vec<Vec<u8>>,
    read: HashSet<u64>,
    written: HashSet<u64>,
    speculated: HashSet<u64>,
}

/// The 4 KiB page of an address (the interpreter's addresses are allocation id and
/// offset, so a page never spans two allocations).
fn page(a: u64) -> u64 {
    a >> 12
}

fn run(module: &Module, name: &str, spec: &str, count: i64, seed: u64) -> Run {
    let mut mem = Memory::new();
    let (args, bufs) = setup(module, name, spec, count, seed, &mut mem);
    mem.enable_trace();
    let interp = Interpreter::new(module).fuel(50_000_000);
    interp.init_globals(&mut mem).expect("globals");
    let result = interp
        .call_by_name(name, &args, &mut mem)
        .unwrap_or_else(|e| panic!("@{name} n={count} seed={seed}: {e}"));
    let in_buffers = |a: u64| bufs.iter().any(|&(p, l)| a >= p && a < p + l as u64);
    let (mut read, mut written, mut speculated) = (HashSet::new(), HashSet::new(), HashSet::new());
    for acc in mem.take_trace() {
        for a in acc.ptr..acc.ptr + acc.size {
            match acc.kind {
                AccessKind::Speculative => speculated.insert(a),
                _ if !in_buffers(a) => false,
                AccessKind::Read => read.insert(a),
                AccessKind::Write => written.insert(a),
            };
        }
    }
    let buffers = bufs
        .iter()
        .map(|&(p, _)| mem.allocation(p).expect("buffer").bytes().to_vec())
        .collect();
    Run {
        result,
        buffers,
        read,
        written,
        speculated,
    }
}

#[test]
fn parallel_loops_equal_their_scalar_form() {
    let module = import();
    let mut compared = 0;
    let mut speculated = 0;
    let boscc = Mode::boscc(lanes_wfv::BosccPolicy::All).with_fusion(lanes_wfv::FusionPolicy::All);
    for &width in &[4u16, 8, 16] {
        for mode in [Mode::PARTIAL, Mode::FULL, boscc] {
            let mut vector = module.clone();
            let reports = vectorize_parallel_loops(&mut vector, &OuterLoopOptions { width, mode });
            for &(name, spec) in CASES {
                let r = reports
                    .iter()
                    .find(|r| r.function == name)
                    .unwrap_or_else(|| panic!("no report for @{name}"));
                let v = r
                    .outcome
                    .as_ref()
                    .unwrap_or_else(|e| panic!("@{name} W={width} {mode:?}: declined: {e}"));
                assert_eq!(v.width, width);
                let w = i64::from(width);
                for (s, count) in [0, 1, 2, 3, w - 1, w, w + 1, 2 * w + 3, 61, 100]
                    .into_iter()
                    .enumerate()
                {
                    let seed = s as u64 * 7919 + u64::from(width);
                    let want = run(&module, name, spec, count, seed);
                    let got = run(&vector, name, spec, count, seed);
                    let what = format!("@{name} W={width} {mode:?} n={count} seed={seed}");
                    assert_eq!(got.result, want.result, "{what}: result");
                    assert!(
                        got.buffers == want.buffers,
                        "{what}: buffer contents differ"
                    );
                    assert!(got.written == want.written, "{what}: written bytes differ");
                    let extra = got.read.difference(&want.read).count();
                    assert_eq!(
                        extra, 0,
                        "{what}: {extra} bytes read that the loop never reads"
                    );
                    // Reads run ahead of an early exit stay on pages the loop reads.
                    let pages: HashSet<u64> = want.read.iter().map(|&a| page(a)).collect();
                    let stray = got
                        .speculated
                        .iter()
                        .filter(|&&a| !pages.contains(&page(a)));
                    assert_eq!(
                        stray.count(),
                        0,
                        "{what}: speculative reads off the pages the loop reads"
                    );
                    speculated += got.speculated.len();
                    compared += 1;
                }
            }
        }
    }
    println!(
        "outer loops: {} loops x 3 widths x 3 modes, {compared} runs compared, \
         {speculated} bytes read ahead of early exits",
        CASES.len()
    );
    assert!(speculated > 0, "no early exit was run ahead");
    assert_eq!(compared, CASES.len() * 3 * 3 * 10);
}

#[test]
fn loops_that_cannot_be_taken_are_reported_and_left_alone() {
    let module = import();
    let mut vector = module.clone();
    let reports = vectorize_parallel_loops(
        &mut vector,
        &OuterLoopOptions {
            width: 8,
            mode: Mode::PARTIAL,
        },
    );
    let outcome = |name: &str| {
        reports
            .iter()
            .find(|r| r.function == name)
            .map(|r| r.outcome.clone())
    };
    assert!(
        matches!(
            outcome("copy_through_negative_aliased"),
            Some(Err(Declined::Unprobeable(_)))
        ),
        "{:?}",
        outcome("copy_through_negative_aliased")
    );
    assert!(matches!(
        outcome("carried_scan"),
        Some(Err(Declined::CarriedValue(_)))
    ));
    assert_eq!(
        outcome("prefix"),
        None,
        "a loop without the pragma is not touched"
    );
    assert!(
        matches!(outcome("shift_by_one"), Some(Ok(_))),
        "a first-order recurrence is taken"
    );
    for name in ["copy_through_negative_aliased", "carried_scan", "prefix"] {
        let print = |m: &Module| {
            lanes_ir::write::function_to_string(
                m,
                m.function(m.func_by_name(name).expect("function"))
                    .expect("body"),
            )
        };
        assert_eq!(print(&vector), print(&module), "@{name} changed");
    }
    let vectorized = reports.iter().filter(|r| r.outcome.is_ok()).count();
    let names: HashSet<&str> = CASES.iter().map(|&(name, _)| name).collect();
    assert_eq!(vectorized, names.len());
}

/// With clang's full unrolling on, `pick`'s per-iteration array `int t[5]` is filled by
/// straight-line stores whose addresses clang hoists out of the loop: the outlined body
/// must recreate the array and those addresses for each lane, not share one array.
#[test]
fn private_arrays_stay_private_when_their_addresses_are_hoisted() {
    let module = import_with(&[
        "-funroll-loops",
        "-mllvm",
        "-unroll-allow-partial=false",
        "-mllvm",
        "-unroll-runtime=false",
    ]);
    for &width in &[4u16, 8] {
        let mut vector = module.clone();
        let reports = vectorize_parallel_loops(
            &mut vector,
            &OuterLoopOptions {
                width,
                mode: Mode::PARTIAL,
            },
        );
        for (name, spec) in [("pick", "nII"), ("row_sum", "Ini")] {
            let r = reports.iter().find(|r| r.function == name).expect("report");
            assert!(r.outcome.is_ok(), "@{name}: {:?}", r.outcome);
            for (s, count) in [2i64, 3, 5, 17, 61].into_iter().enumerate() {
                let seed = s as u64 * 31 + u64::from(width);
                let want = run(&module, name, spec, count, seed);
                let got = run(&vector, name, spec, count, seed);
                let what = format!("@{name} W={width} n={count}");
                assert_eq!(got.result, want.result, "{what}: result");
                assert!(got.buffers == want.buffers, "{what}: buffers differ");
            }
        }
    }
}

/// `bounded_strlen` and `first_negative` on data placed across page ends and at the very
/// end of its allocation, with a trip bound far past the terminator: lanes whose bytes
/// cross into the next page are "unknown" to the probe and the step stops before them,
/// and reads run ahead past the end of the allocation never fault (they read zero in the
/// interpreter, on a page the loop reads). Results equal the scalar loop's; no store or
/// ordinary read goes where the scalar loop's does not.
#[test]
fn early_exits_read_ahead_safely_across_page_ends() {
    let module = import();
    let mut checked = 0;
    for &width in &[4u16, 8, 16] {
        let mut vector = module.clone();
        let reports = vectorize_parallel_loops(
            &mut vector,
            &OuterLoopOptions {
                width,
                mode: Mode::PARTIAL,
            },
        );
        for name in ["bounded_strlen", "first_negative"] {
            let r = reports.iter().find(|r| r.function == name).expect("report");
            assert!(r.outcome.is_ok(), "@{name}: {:?}", r.outcome);
            let elem: u64 = if name == "bounded_strlen" { 1 } else { 4 };
            // (allocation bytes, start offset, elements before the terminator)
            let mut layouts = vec![(3 * 4096, 4096 - 3 * elem, 40), (3 * 4096, 8192 - elem, 9)];
            for len in [0u64, 1, 5, 17, 100] {
                layouts.push(((len + 1) * elem, 0, len));
                layouts.push((3 * 4096, 4096 - (len % 8 + 1) * elem, len));
            }
            for (size, start, len) in layouts {
                let outcome = |m: &Module| {
                    let mut mem = Memory::new();
                    let mut bytes = vec![0u8; size as usize];
                    for k in 0..len {
                        let at = (start + k * elem) as usize;
                        bytes[at..at + elem as usize].fill(1);
                    }
                    if elem == 4 {
                        let at = (start + len * elem) as usize;
                        bytes[at..at + 4].copy_from_slice(&(-1i32).to_le_bytes());
                    }
                    let base = mem
                        .alloc_init(&bytes, 64, AddrSpace::GLOBAL, false)
                        .expect("fits");
                    let ptr = RtValue::ptr_of(ScalarType::Ptr(AddrSpace::PRIVATE), base + start);
                    let args = [RtValue::int(ScalarType::I32, 1 << 20), ptr];
                    mem.enable_trace();
                    let result = Interpreter::new(m)
                        .call_by_name(name, &args, &mut mem)
                        .unwrap_or_else(|e| panic!("@{name} W={width} {size}/{start}/{len}: {e}"));
                    let mut read = HashSet::new();
                    let mut ahead = HashSet::new();
                    for acc in mem.take_trace() {
                        let set = match acc.kind {
                            AccessKind::Read => &mut read,
                            AccessKind::Speculative => &mut ahead,
                            AccessKind::Write => panic!("@{name} writes"),
                        };
                        set.extend(acc.ptr..acc.ptr + acc.size);
                    }
                    (result, read, ahead)
                };
                let (want, want_read, _) = outcome(&module);
                let (got, got_read, ahead) = outcome(&vector);
                let what = format!("@{name} W={width} size {size} start {start} len {len}");
                assert_eq!(got, want, "{what}");
                assert_eq!(
                    want,
                    Some(RtValue::int(ScalarType::I32, len as i64)),
                    "{what}"
                );
                assert!(got_read.is_subset(&want_read), "{what}: reads");
                let pages: HashSet<u64> = want_read.iter().map(|&a| page(a)).collect();
                assert!(
                    ahead.iter().all(|&a| pages.contains(&page(a))),
                    "{what}: reads ahead off the loop's pages"
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 3 * 2 * 12);
}
