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
/// float, `I`/`F`/`D` buffers of i32/f32/f64, `S` a sorted i32 buffer.
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
            'I' | 'S' | 'F' | 'D' => {
                let mut ints: Vec<i32> = (0..ELEMS * 2).map(|_| rng.gen_range(-4..32)).collect();
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

/// What one run did: result, final buffer contents, bytes read and written in buffers.
struct Run {
    result: Option<RtValue>,
    buffers: Vec<Vec<u8>>,
    read: HashSet<u64>,
    written: HashSet<u64>,
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
    let (mut read, mut written) = (HashSet::new(), HashSet::new());
    for acc in mem.take_trace() {
        for a in (acc.ptr..acc.ptr + acc.size).filter(|&a| in_buffers(a)) {
            match acc.kind {
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
    }
}

#[test]
fn parallel_loops_equal_their_scalar_form() {
    let module = import();
    let mut compared = 0;
    for &width in &[4u16, 8, 16] {
        for mode in [Mode::Partial, Mode::Full] {
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
                    compared += 1;
                }
            }
        }
    }
    println!(
        "outer loops: {} loops x 3 widths x 2 modes, {compared} runs compared",
        CASES.len()
    );
    assert_eq!(compared, CASES.len() * 3 * 2 * 10);
}

#[test]
fn loops_that_cannot_be_taken_are_reported_and_left_alone() {
    let module = import();
    let mut vector = module.clone();
    let reports = vectorize_parallel_loops(
        &mut vector,
        &OuterLoopOptions {
            width: 8,
            mode: Mode::Partial,
        },
    );
    let outcome = |name: &str| {
        reports
            .iter()
            .find(|r| r.function == name)
            .map(|r| r.outcome.clone())
    };
    assert!(matches!(
        outcome("first_negative"),
        Some(Err(Declined::SeveralExits))
    ));
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
    for name in ["first_negative", "carried_scan", "prefix"] {
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
    assert_eq!(vectorized, CASES.len());
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
                mode: Mode::Partial,
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
