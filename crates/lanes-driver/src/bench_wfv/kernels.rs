//! The kernels of `lanes bench wfv` (sources in `bench/wfv/`, protocol in `wfv.h`) and
//! the configurations each is built in.

use lanes_wfv::{BosccPolicy, FusionPolicy, Mode};

/// One benchmark kernel: `bench/wfv/{name}.c`, whose SPMD function takes the instance
/// index (contiguous) and `uniform_params` uniform parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernel {
    pub name: &'static str,
    pub uniform_params: usize,
    /// Instances per sweep at scale 1 (chosen for sweeps of a few to tens of milliseconds).
    pub instances: u64,
    /// The paper or program it stands for.
    pub after: &'static str,
}

impl Kernel {
    /// `--shapes` for it: the index contiguous, the rest uniform.
    pub fn shapes(&self) -> String {
        std::iter::once("c")
            .chain(std::iter::repeat_n("u", self.uniform_params))
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// Every kernel, in the order of the tables.
pub const KERNELS: &[Kernel] = &[
    Kernel {
        name: "tree_search",
        uniform_params: 4,
        instances: 1 << 20,
        after: "PLDI'18 Fig. 1, binary-tree search",
    },
    Kernel {
        name: "xsbench",
        uniform_params: 5,
        instances: 1 << 20,
        after: "XSBench energy-grid lookup",
    },
    Kernel {
        name: "point_correlation",
        uniform_params: 7,
        instances: 1 << 15,
        after: "PLDI'18 §7, kd-tree point correlation",
    },
    Kernel {
        name: "multi_radius",
        uniform_params: 7,
        instances: 1 << 15,
        after: "PLDI'18 §7, multi-radius point correlation",
    },
    Kernel {
        name: "nearest_neighbor",
        uniform_params: 6,
        instances: 1 << 16,
        after: "kd-tree nearest-neighbour search",
    },
    Kernel {
        name: "mandelbrot",
        uniform_params: 6,
        instances: 512 * 512,
        after: "PLDI'18 Fig. 9",
    },
    Kernel {
        name: "nbody",
        uniform_params: 8,
        instances: 1 << 12,
        after: "N-body forces",
    },
    Kernel {
        name: "black_scholes",
        uniform_params: 7,
        instances: 1 << 20,
        after: "Black-Scholes",
    },
    Kernel {
        name: "if_cascade",
        uniform_params: 4,
        instances: 1 << 20,
        after: "PLDI'18 Fig. 12, nab-like if-cascade",
    },
    Kernel {
        name: "ray_sphere",
        uniform_params: 7,
        instances: 512 * 512,
        after: "aobench-like ray/sphere",
    },
    Kernel {
        name: "twin_sides",
        uniform_params: 3,
        instances: 1 << 20,
        after: "PACT'11 Fig. 10, branch with two similar sides",
    },
    Kernel {
        name: "stencil_int",
        uniform_params: 4,
        instances: 1 << 20,
        after: "int-indexed 5-point stencil",
    },
];

/// A way lanes builds a kernel (PLDI'18 §7's configurations, plus branch fusion).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Config {
    /// Full if-conversion.
    Full,
    /// Partial linearization.
    Partial,
    /// Partial linearization with BOSCC gadgets where they pay.
    Boscc,
    /// The same with branch fusion where it pays (lanes' default).
    BosccFusion,
}

impl Config {
    pub const ALL: [Config; 4] = [
        Config::Full,
        Config::Partial,
        Config::Boscc,
        Config::BosccFusion,
    ];

    /// The name in tables and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Config::Full => "full",
            Config::Partial => "partial",
            Config::Boscc => "partial+boscc",
            Config::BosccFusion => "partial+boscc+fusion",
        }
    }

    /// Its part of a C identifier.
    pub fn ident(self) -> &'static str {
        match self {
            Config::Full => "full",
            Config::Partial => "partial",
            Config::Boscc => "boscc",
            Config::BosccFusion => "fusion",
        }
    }

    pub fn mode(self) -> Mode {
        match self {
            Config::Full => Mode::FULL,
            Config::Partial => Mode::PARTIAL,
            Config::Boscc => Mode::boscc(BosccPolicy::Auto),
            Config::BosccFusion => Mode::boscc(BosccPolicy::Auto).with_fusion(FusionPolicy::Auto),
        }
    }
}
