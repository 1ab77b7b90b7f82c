//! Round trip lanes IR → LLVM → lanes IR on generated programs, checked by the
//! interpreter: the re-imported module must compute what the original computes.
//!
//! Without optimization the import sees the exporter's own idioms (masked shift amounts,
//! `i8` memory for masks, `llvm.masked.*`, `llvm.vector.reduce.*`, saturating conversions,
//! atomics); after LLVM's `default<O2>` it sees what LLVM makes of them (selects, funnel
//! shifts, vector shuffles, intrinsics). Every import either succeeds and agrees, or fails
//! with an error (never a panic); the unoptimized round trip must always succeed.

use arbitrary::Unstructured;
use lanes_interp::{Interpreter, Memory, RtValue};
use lanes_ir::generator::{generate, GenConfig, GenParam, Generated, BUFFER_ALIGN};
use lanes_ir::{AddrSpace, Module, ScalarType};
use lanes_llvm::emit::{configure_module, target_machine, TargetOptions};
use lanes_llvm::pipeline::{optimize, PipelineOptions};
use lanes_llvm::{export_module, import_module, Context};
use rand::rngs::SmallRng;
use rand::{Rng, RngCore, SeedableRng};

fn generated(seed: u64, cfg: &GenConfig) -> Generated {
    let bytes = lanes_test_support::seeded_bytes(seed, 8192);
    generate(&mut Unstructured::new(&bytes), cfg).expect("generation never fails")
}

/// Runs `name` of `module` on inputs drawn from `seed`; the result and buffer bytes.
fn run(module: &Module, name: &str, g: &Generated, seed: u64) -> Option<(Vec<u8>, Vec<Vec<u8>>)> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut mem = Memory::new();
    let mut args = Vec::new();
    let mut bufs = Vec::new();
    for p in &g.params {
        match p {
            GenParam::Int(t) | GenParam::Float(t) => {
                let lanes = (0..t.lane_count())
                    .map(|_| {
                        let x: u64 = if rng.gen_range(0..3) == 0 {
                            rng.gen_range(0..16)
                        } else {
                            rng.gen()
                        };
                        lanes_interp::value::normalize(t.elem(), x)
                    })
                    .collect();
                args.push(RtValue::from_lanes(*t, lanes).expect("lanes"));
            }
            GenParam::Buffer { .. } => {
                let mut bytes = vec![0; p.buffer_bytes() as usize];
                rng.fill_bytes(&mut bytes);
                let ptr = mem
                    .alloc_init(&bytes, BUFFER_ALIGN, AddrSpace::GLOBAL, false)
                    .expect("buffer");
                args.push(RtValue::ptr_of(ScalarType::Ptr(AddrSpace::GLOBAL), ptr));
                bufs.push((ptr, bytes.len()));
            }
        }
    }
    let interp = Interpreter::new(module).fuel(2_000_000);
    let r = interp.call_by_name(name, &args, &mut mem).ok()?;
    let out = r.map(|v| v.to_le_bytes()).unwrap_or_default();
    let bufs = bufs
        .iter()
        .map(|&(p, n)| mem.read_bytes(p, n as u64).expect("buffer"))
        .collect();
    Some((out, bufs))
}

fn same_result(g: &Generated, a: &(Vec<u8>, Vec<Vec<u8>>), b: &(Vec<u8>, Vec<Vec<u8>>)) -> bool {
    let ty = g.function().ret.expect("returns");
    let ret_ok = a.0 == b.0
        || matches!(
            (RtValue::from_le_bytes(ty, &a.0), RtValue::from_le_bytes(ty, &b.0)),
            (Some(x), Some(y)) if x.same_as(&y)
        );
    ret_ok && a.1 == b.1
}

fn round_trip(cfg: &GenConfig, seeds: std::ops::Range<u64>, opt: Option<u8>) -> (usize, usize) {
    let ctx = Context::create();
    let tm = target_machine(&TargetOptions::default()).expect("target");
    let (mut ok, mut unsupported) = (0, 0);
    for seed in seeds {
        let g = generated(seed, cfg);
        let name = g.function().name.clone();
        let llm = export_module(&ctx, &g.module, "rt").expect("export");
        if let Some(level) = opt {
            configure_module(&llm, &tm);
            let opts = PipelineOptions {
                opt_level: level,
                ..PipelineOptions::default()
            };
            optimize(&llm, &tm, &opts).expect("optimize");
        }
        let back = match import_module(&llm) {
            Ok(m) => m,
            Err(e) => {
                assert!(
                    opt.is_some(),
                    "seed {seed}: unoptimized round trip failed: {e}"
                );
                unsupported += 1;
                continue;
            }
        };
        for round in 0..2 {
            let s = seed * 7 + round;
            let (Some(a), Some(b)) = (run(&g.module, &name, &g, s), run(&back, &name, &g, s))
            else {
                continue;
            };
            assert!(
                same_result(&g, &a, &b),
                "seed {seed} (opt {opt:?}): original {a:?}\nround trip {b:?}\n{}\n---\n{}",
                lanes_ir::write::module_to_string(&g.module),
                lanes_ir::write::module_to_string(&back)
            );
        }
        ok += 1;
    }
    (ok, unsupported)
}

#[test]
fn unoptimized_round_trip_preserves_semantics() {
    let (ok, _) = round_trip(&GenConfig::default(), 0..120, None);
    assert_eq!(ok, 120);
    let vcfg = GenConfig {
        vector_width: Some(4),
        ..GenConfig::default()
    };
    let (ok, _) = round_trip(&vcfg, 300..380, None);
    assert_eq!(ok, 80);
}

#[test]
fn optimized_round_trip_imports_llvm_output() {
    let (ok, unsupported) = round_trip(&GenConfig::default(), 1000..1100, Some(2));
    eprintln!("scalar O2: {ok} imported and agree, {unsupported} unsupported");
    assert!(
        ok >= 60,
        "only {ok} of 100 O2 modules imported ({unsupported} unsupported)"
    );
    let vcfg = GenConfig {
        vector_width: Some(4),
        ..GenConfig::default()
    };
    let (ok, unsupported) = round_trip(&vcfg, 2000..2060, Some(2));
    eprintln!("vector O2: {ok} imported and agree, {unsupported} unsupported");
    assert!(
        ok >= 20,
        "only {ok} of 60 O2 vector modules imported ({unsupported} unsupported)"
    );
}
