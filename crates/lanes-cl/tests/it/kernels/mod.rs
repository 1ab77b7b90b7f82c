//! The kernel suite: OpenCL C kernels (`tests/kernels/*.cl`), each run at several global
//! and local sizes — including local sizes that are not multiples of the vector width, so
//! that groups end in masked partial vectors — at widths 1 (scalar), 4 and the target's
//! own, and compared with results computed independently in plain Rust.
//!
//! Integer results must match exactly; float results within a relative tolerance stated
//! by each test. The first set of kernels is the one CC'12 (Karrenberg & Hack, "Improving
//! Performance of OpenCL on CPUs") evaluates; the others cover what those do not:
//! reductions and scans, stencils, atomics, vector types, the builtin library, and the
//! control flow and work-item functions that stress the vectorizer and the barrier
//! continuations.

use lanes_cl::{Arg, BuildOptions, Context, NdRange, Program};

mod atomics;
mod builtins;
mod cc12;
mod cc12_float;
mod control;
mod reductions;
mod stencils;
mod vector_types;
mod work_groups;

/// Widths to test: scalar, 4, and the target's natural width.
pub const WIDTHS: [Option<u16>; 3] = [Some(1), Some(4), None];

/// The source of `tests/kernels/<name>.cl`.
macro_rules! source {
    ($name:literal) => {
        include_str!(concat!("../../kernels/", $name, ".cl"))
    };
}
pub(crate) use source;

/// Builds `src` (the file `file`, for messages) at `width` on two threads.
///
/// At the target's own width the kernels are compiled again for each launch's local size
/// (lanes' default, as pocl does); at the test widths 1 and 4 the generic code runs, which
/// reads local sizes at run time: both paths see every kernel, and the suite compiles a
/// third as often as it would specializing everywhere.
pub fn build(file: &str, src: &str, width: Option<u16>) -> Program {
    let opts = BuildOptions {
        width,
        specialize_local_size: width.is_none(),
        ..BuildOptions::default()
    };
    Context::with_threads(2)
        .unwrap()
        .build_source(src, &opts)
        .unwrap_or_else(|e| panic!("{file}.cl at width {width:?}: build failed: {e}"))
}

/// Runs kernel `name` of `program` over `range`, panicking with `what` on failure.
pub fn run(program: &Program, name: &str, args: &[Arg<'_>], range: &NdRange, what: &str) {
    program
        .kernel(name)
        .unwrap_or_else(|e| panic!("{what}: {e}"))
        .enqueue(args, range)
        .unwrap_or_else(|e| panic!("{what}: launch failed: {e}"));
}

/// `global` work-items in groups of `local`, at global offset `offset`.
pub fn range_at(global: &[u64], local: &[u64], offset: &[u64]) -> NdRange {
    NdRange {
        offset: Some(offset.to_vec()),
        ..NdRange::new(global, local)
    }
}

/// Asserts `got[i]` equals `want[i]` for every `i`, naming `what` and the first
/// mismatching index.
pub fn assert_same<T: PartialEq + std::fmt::Debug>(got: &[T], want: &[T], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: result length");
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        panic!(
            "{what}: first mismatch at index {i}: got {:?}, want {:?}",
            got[i], want[i]
        );
    }
}

/// Asserts `|got[i] - want[i]| <= rel * max(|want[i]|, floor)` for every `i`: a relative
/// tolerance that turns absolute near zero.
pub fn assert_close(got: &[f32], want: &[f64], rel: f64, floor: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: result length");
    for i in 0..got.len() {
        let (g, w) = (f64::from(got[i]), want[i]);
        let tol = rel * w.abs().max(floor);
        assert!(
            (g - w).abs() <= tol || (g.is_nan() && w.is_nan()),
            "{what}: at index {i}: got {g}, want {w} (tolerance {tol:e})"
        );
    }
}

/// A small deterministic generator (SplitMix64) for test inputs.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// Uniform in `lo..hi`.
    pub fn int(&mut self, lo: i32, hi: i32) -> i32 {
        lo + (self.next_u64() % (hi - lo) as u64) as i32
    }

    /// Uniform in `[lo, hi)`.
    pub fn float(&mut self, lo: f32, hi: f32) -> f32 {
        let unit = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * unit
    }

    pub fn ints(&mut self, n: usize, lo: i32, hi: i32) -> Vec<i32> {
        (0..n).map(|_| self.int(lo, hi)).collect()
    }

    pub fn floats(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n).map(|_| self.float(lo, hi)).collect()
    }
}
