//! Differential test of export + JIT against the interpreter on generated programs.
//!
//! For fixed seeds, `lanes_ir::generator` produces a module (scalar, and with vectors of
//! width 4 and 8: masked loads/stores, gathers/scatters, reductions, mask queries); the
//! interpreter runs its main function on random arguments and buffer contents, the JIT runs
//! the exported, `default<O2>`-optimized LLVM code on the same inputs, and the return value
//! and every buffer byte must agree (a NaN equals any NaN, in the result and in buffer
//! words: IEEE 754 leaves NaN signs and payloads open). A disagreement prints the module.

use arbitrary::Unstructured;
use lanes_interp::{Interpreter, Memory, RtValue};
use lanes_ir::generator::{generate, GenConfig, GenParam, Generated, BUFFER_ALIGN};
use lanes_ir::{AddrSpace, ScalarType, Type};
use lanes_llvm::jit::Jit;
use lanes_llvm::pipeline::PipelineOptions;
use lanes_llvm::Context;
use rand::rngs::SmallRng;
use rand::{Rng, RngCore, SeedableRng};

fn generated(seed: u64, cfg: &GenConfig) -> Generated {
    let bytes = lanes_test_support::seeded_bytes(seed, 8192);
    generate(&mut Unstructured::new(&bytes), cfg).expect("generation never fails")
}

fn lane_bits(rng: &mut SmallRng, elem: ScalarType) -> u64 {
    match elem {
        ScalarType::F32 | ScalarType::F64 => {
            let x: f64 = match rng.gen_range(0..6) {
                0 => [
                    0.0,
                    -0.0,
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                    f64::NAN,
                    1.0e300,
                ][rng.gen_range(0..6)],
                1 => rng.gen_range(-4.0..4.0),
                _ => rng.gen_range(-1.0e6..1.0e6),
            };
            if elem == ScalarType::F32 {
                u64::from((x as f32).to_bits())
            } else {
                x.to_bits()
            }
        }
        _ => match rng.gen_range(0..4) {
            0 => rng.gen_range(-8i64..=8) as u64,
            1 => [i64::MIN, i64::MAX, i32::MIN.into(), i32::MAX.into(), -1, 0][rng.gen_range(0..6)]
                as u64,
            2 => rng.gen_range(-1000i64..=1000) as u64,
            _ => rng.gen(),
        },
    }
}

fn value_arg(rng: &mut SmallRng, ty: Type) -> RtValue {
    let lanes = (0..ty.lane_count())
        .map(|_| lanes_interp::value::normalize(ty.elem(), lane_bits(rng, ty.elem())))
        .collect();
    RtValue::from_lanes(ty, lanes).expect("lane count matches")
}

/// Same bits, or both NaN lane by lane for floats.
fn same(ty: Type, a: &[u8], b: &[u8]) -> bool {
    if a == b {
        return true;
    }
    let (Some(x), Some(y)) = (RtValue::from_le_bytes(ty, a), RtValue::from_le_bytes(ty, b)) else {
        return false;
    };
    x.same_as(&y)
}

/// Equal bytes, except that a differing aligned word may be a NaN (as `f32` or `f64`) in
/// both: IEEE 754 leaves the sign and payload of a computed NaN open, and LLVM's constant
/// folding and the hardware choose differently.
fn same_memory(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let nan32 = |x: &[u8]| f32::from_le_bytes([x[0], x[1], x[2], x[3]]).is_nan();
    let nan64 = |x: &[u8]| {
        let mut w = [0u8; 8];
        w.copy_from_slice(x);
        f64::from_le_bytes(w).is_nan()
    };
    (0..a.len()).step_by(4).all(|i| {
        let j = (i + 4).min(a.len());
        if a[i..j] == b[i..j] {
            return true;
        }
        if j - i == 4 && nan32(&a[i..j]) && nan32(&b[i..j]) {
            return true;
        }
        let k = i & !7;
        k + 8 <= a.len() && nan64(&a[k..k + 8]) && nan64(&b[k..k + 8])
    })
}

/// Runs `count` programs of `cfg` (seeds from `first`); returns how many were compared.
fn differential(name: &str, cfg: &GenConfig, first: u64, count: u64) -> u64 {
    let ctx = Context::create();
    let opts = PipelineOptions {
        opt_level: 2,
        ..PipelineOptions::default()
    };
    let mut compared = 0;
    for seed in first..first + count {
        let g = generated(seed, cfg);
        let func = g.function();
        let text = || lanes_ir::write::module_to_string(&g.module);
        let interp = Interpreter::new(&g.module).fuel(2_000_000);
        for round in 0..2u64 {
            // A fresh JIT per round: its globals start from their initializers, as the
            // interpreter's fresh memory does (a round may write a global).
            let jit = Jit::new(&ctx, &g.module, &opts)
                .unwrap_or_else(|e| panic!("{name} seed {seed}: {e}\n{}", text()));
            let mut rng = SmallRng::seed_from_u64(seed * 2 + round);
            let mut mem = Memory::new();
            let mut args = Vec::new();
            let mut native: Vec<Vec<u128>> = Vec::new();
            let mut buffers = Vec::new();
            let mut jit_args = Vec::new();
            for p in &g.params {
                match p {
                    GenParam::Int(t) | GenParam::Float(t) => {
                        let v = value_arg(&mut rng, *t);
                        jit_args.push(v.to_le_bytes());
                        args.push(v);
                    }
                    GenParam::Buffer { .. } => {
                        let n = p.buffer_bytes() as usize;
                        let mut bytes = vec![0; n];
                        rng.fill_bytes(&mut bytes);
                        let ptr = mem
                            .alloc_init(&bytes, BUFFER_ALIGN, AddrSpace::GLOBAL, false)
                            .expect("buffer fits");
                        args.push(RtValue::ptr_of(ScalarType::Ptr(AddrSpace::GLOBAL), ptr));
                        let mut buf = vec![0u128; n.div_ceil(16)];
                        // SAFETY: `buf` holds at least `n` bytes.
                        unsafe {
                            std::slice::from_raw_parts_mut(buf.as_mut_ptr().cast::<u8>(), n)
                                .copy_from_slice(&bytes)
                        };
                        jit_args.push((buf.as_ptr() as u64).to_le_bytes().to_vec());
                        buffers.push((ptr, n, native.len()));
                        native.push(buf);
                    }
                }
            }
            let expected = match interp.call(g.func, &args, &mut mem) {
                Ok(v) => v,
                Err(_) => continue, // a trap or fuel exhaustion: nothing to compare
            };
            // SAFETY: buffer arguments point to live buffers of the sizes the generator
            // declared; generated accesses stay inside them and every loop is bounded.
            let got = unsafe { jit.call(&func.name, &jit_args) }
                .unwrap_or_else(|e| panic!("{name} seed {seed}: {e}"));
            let ty = func.ret.expect("generated functions return a value");
            let want = expected.expect("a value").to_le_bytes();
            let got = got.expect("a value");
            assert!(
                same(ty, &want, &got),
                "{name} seed {seed} round {round}: interpreter {want:?}, JIT {got:?}\nargs {args:?}\n{}",
                text()
            );
            for (ptr, n, i) in buffers {
                let want = mem.read_bytes(ptr, n as u64).expect("buffer");
                // SAFETY: `native[i]` holds at least `n` bytes.
                let got = unsafe { std::slice::from_raw_parts(native[i].as_ptr().cast::<u8>(), n) };
                assert!(
                    same_memory(&want, got),
                    "{name} seed {seed} round {round}: buffer contents differ\ninterp {want:?}\njit    {got:?}\n{}",
                    text()
                );
            }
            compared += 1;
        }
    }
    compared
}

#[test]
fn scalar_programs_agree() {
    let n = differential("scalar", &GenConfig::default(), 0, 150);
    assert!(n >= 250, "only {n} runs compared");
}

#[test]
fn vector_programs_agree() {
    for (w, first) in [(4u16, 1000u64), (8, 2000)] {
        let cfg = GenConfig {
            vector_width: Some(w),
            ..GenConfig::default()
        };
        let n = differential(&format!("vector{w}"), &cfg, first, 60);
        assert!(n >= 100, "width {w}: only {n} runs compared");
    }
}

#[test]
fn irreducible_programs_agree() {
    let cfg = GenConfig {
        irreducible: true,
        ..GenConfig::default()
    };
    let n = differential("irreducible", &cfg, 5000, 60);
    assert!(n >= 100, "only {n} runs compared");
}

#[test]
fn transcendental_math_agrees() {
    // Scalar and vector math (`llvm.sin.v4f32`, libm calls lane by lane) against the
    // interpreter, which calls the same libm.
    for (w, first) in [(None, 7000u64), (Some(4u16), 8000)] {
        let cfg = GenConfig {
            transcendental: true,
            vector_width: w,
            ..GenConfig::default()
        };
        let n = differential(&format!("transcendental {w:?}"), &cfg, first, 50);
        assert!(n >= 80, "{w:?}: only {n} runs compared");
    }
}

/// Vector float-to-integer conversions (exported as compare, convert and blend, not as
/// LLVM's scalarized `llvm.fpto[su]i.sat`) saturate exactly as the interpreter's: NaN to
/// 0, out-of-range values to the type's extremes, at and around every limit, for `f32`
/// and `f64` to signed and unsigned integers of 8 to 64 bits.
#[test]
fn vector_float_to_int_conversions_saturate_as_in_the_interpreter() {
    let edges: [f64; 24] = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        -0.9,
        0.5,
        -1.0,
        127.9,
        128.0,
        255.9,
        256.0,
        -129.0,
        32768.0,
        65536.0,
        2147483520.0,
        2147483648.0,
        -2147483648.0,
        -2147483904.0,
        4294967040.0,
        4294967296.0,
        9.2e18,
        1.9e19,
        -1.0e20,
    ];
    let ctx = Context::create();
    for from in ["f32", "f64"] {
        for to in ["i8", "i16", "i32", "i64"] {
            for op in ["fptosi", "fptoui"] {
                let conv = crate::common::VectorConversion::new(&ctx, op, from, to);
                for chunk in edges.chunks(8) {
                    let (want, got) = conv.run(chunk);
                    assert_eq!(want, got, "{op} <8 x {from}> to <8 x {to}> of {chunk:?}");
                }
            }
        }
    }
}
