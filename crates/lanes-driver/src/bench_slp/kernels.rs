//! The kernels of `lanes bench slp` (`bench/slp/*.c`), written by us in the style of the
//! three suites SuperVectorization was evaluated on (PLDI'22 §5): TSVC's loop categories,
//! PolyBench's linear algebra and stencils, and the sequential baselines of ispc's
//! examples.

use serde::Serialize;

/// The suite a kernel stands for; targets are per suite.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Suite {
    Tsvc,
    PolyBench,
    Ispc,
}

impl Suite {
    pub const ALL: [Suite; 3] = [Suite::Tsvc, Suite::PolyBench, Suite::Ispc];

    pub fn name(self) -> &'static str {
        match self {
            Suite::Tsvc => "TSVC",
            Suite::PolyBench => "PolyBench",
            Suite::Ispc => "ispc",
        }
    }

    /// The geometric-mean speedup over clang -O3 the paper reached on its AVX-512
    /// machine, which #17 sets as the target.
    pub fn target(self) -> f64 {
        match self {
            Suite::Tsvc => 1.05,
            Suite::PolyBench => 1.5,
            Suite::Ispc => 1.9,
        }
    }
}

/// One kernel: `bench/slp/<name>.c`, run on `size` elements.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SlpKernel {
    pub name: &'static str,
    pub suite: Suite,
    pub size: u64,
    /// The kernel's arrays have a size of their own (TSVC's `LEN2`): `--scale` leaves
    /// it alone, as smaller buffers would be overrun.
    pub fixed: bool,
}

const fn k(name: &'static str, suite: Suite, size: u64) -> SlpKernel {
    SlpKernel {
        name,
        suite,
        size,
        fixed: false,
    }
}

const fn fixed(name: &'static str, suite: Suite, size: u64) -> SlpKernel {
    SlpKernel {
        name,
        suite,
        size,
        fixed: true,
    }
}

/// Every kernel, by suite.
pub const SLP_KERNELS: &[SlpKernel] = &[
    k("tsvc_s000", Suite::Tsvc, 8192),
    k("tsvc_s271", Suite::Tsvc, 8192),
    k("tsvc_s1161", Suite::Tsvc, 8192),
    k("tsvc_s441", Suite::Tsvc, 8192),
    k("tsvc_s4112", Suite::Tsvc, 8192),
    k("tsvc_s311", Suite::Tsvc, 8192),
    k("tsvc_s1115", Suite::Tsvc, 65536),
    fixed("tsvc_fig16", Suite::Tsvc, 65536),
    k("poly_gemm", Suite::PolyBench, 65536),
    k("poly_jacobi_2d", Suite::PolyBench, 262144),
    k("poly_atax", Suite::PolyBench, 262144),
    k("poly_seidel_2d", Suite::PolyBench, 262144),
    k("poly_mvt", Suite::PolyBench, 262144),
    k("poly_bicg", Suite::PolyBench, 262144),
    k("poly_gesummv", Suite::PolyBench, 262144),
    k("poly_gemver", Suite::PolyBench, 262144),
    k("poly_covariance", Suite::PolyBench, 65536),
    k("poly_doitgen", Suite::PolyBench, 65536),
    k("ispc_options", Suite::Ispc, 16384),
    k("ispc_mandelbrot", Suite::Ispc, 65536),
    k("ispc_raysphere", Suite::Ispc, 65536),
    k("ispc_volume", Suite::Ispc, 16384),
    k("ispc_noise", Suite::Ispc, 65536),
];
