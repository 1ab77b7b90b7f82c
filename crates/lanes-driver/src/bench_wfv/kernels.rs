//! The kernels of `lanes bench wfv` (sources in `bench/wfv/`, protocol in `wfv.h`) and
//! the configurations each is built in.

use lanes_wfv::reconverge::{BlockOrder, SkipEmpty};
use lanes_wfv::{BosccPolicy, FusionPolicy, Mode, PrivateLayout};

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
    /// Has private (stack) arrays: also built with them laid out per lane
    /// ([`Config::PerLane`]).
    pub private_arrays: bool,
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
        private_arrays: false,
    },
    Kernel {
        name: "xsbench",
        uniform_params: 5,
        instances: 1 << 20,
        after: "XSBench energy-grid lookup",
        private_arrays: false,
    },
    Kernel {
        name: "point_correlation",
        uniform_params: 7,
        instances: 1 << 15,
        after: "PLDI'18 §7, kd-tree point correlation",
        private_arrays: true,
    },
    Kernel {
        name: "multi_radius",
        uniform_params: 7,
        instances: 1 << 15,
        after: "PLDI'18 §7, multi-radius point correlation",
        private_arrays: true,
    },
    Kernel {
        name: "nearest_neighbor",
        uniform_params: 6,
        instances: 1 << 16,
        after: "kd-tree nearest-neighbour search",
        private_arrays: true,
    },
    Kernel {
        name: "mandelbrot",
        uniform_params: 6,
        instances: 512 * 512,
        after: "PLDI'18 Fig. 9",
        private_arrays: false,
    },
    Kernel {
        name: "nbody",
        uniform_params: 8,
        instances: 1 << 12,
        after: "N-body forces",
        private_arrays: false,
    },
    Kernel {
        name: "black_scholes",
        uniform_params: 7,
        instances: 1 << 20,
        after: "Black-Scholes",
        private_arrays: false,
    },
    Kernel {
        name: "if_cascade",
        uniform_params: 4,
        instances: 1 << 20,
        after: "PLDI'18 Fig. 12, nab-like if-cascade",
        private_arrays: false,
    },
    Kernel {
        name: "ray_sphere",
        uniform_params: 7,
        instances: 512 * 512,
        after: "aobench-like ray/sphere",
        private_arrays: false,
    },
    Kernel {
        name: "twin_sides",
        uniform_params: 3,
        instances: 1 << 20,
        after: "PACT'11 Fig. 10, branch with two similar sides",
        private_arrays: false,
    },
    Kernel {
        name: "stencil_int",
        uniform_params: 4,
        instances: 1 << 20,
        after: "int-indexed 5-point stencil",
        private_arrays: false,
    },
    Kernel {
        name: "binomial",
        uniform_params: 6,
        instances: 1 << 15,
        after: "ISPC's binomial options, private array",
        private_arrays: true,
    },
    Kernel {
        name: "rpn_eval",
        uniform_params: 6,
        instances: 1 << 18,
        after: "GP fitness, postfix program, private stack",
        private_arrays: true,
    },
    Kernel {
        name: "ao",
        uniform_params: 5,
        instances: 256 * 256,
        after: "aobench ambient occlusion, hash-sampled hemisphere",
        private_arrays: false,
    },
    Kernel {
        name: "noise",
        uniform_params: 6,
        instances: 512 * 512,
        after: "Perlin improved noise, octave turbulence",
        private_arrays: false,
    },
    Kernel {
        name: "stencil3d",
        uniform_params: 9,
        instances: 128 * 128 * 128,
        after: "27-point 3-d stencil, boundary copy",
        private_arrays: false,
    },
    Kernel {
        name: "volume",
        uniform_params: 6,
        instances: 320 * 320,
        after: "volume ray marching, early opacity exit",
        private_arrays: false,
    },
    Kernel {
        name: "bvh",
        uniform_params: 5,
        instances: 256 * 256,
        after: "BVH ray casting, private traversal stack",
        private_arrays: true,
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
    /// Lanes' default with private arrays laid out as one copy per lane instead of
    /// element-major (only for kernels with private arrays).
    PerLane,
    /// The reconverging transform (depth-first with post-dominance) and its lowering to
    /// execution masks, with empty-mask skips where they pay.
    Reconverge,
    /// The same without empty-mask skips where they can be dropped (`--skip-empty off`):
    /// what the skips `Reconverge` chose buy, measured.
    ReconvergeNoSkip,
    /// `Reconverge` with the skips decided by a profile instead of the static estimate:
    /// the branch counts of a SIMT run of the kernel on its own data at the build's
    /// width, as a profile-guided build would use them.
    ReconvergeProfile,
    /// Lanes' default with vector math from glibc's libmvec (`--veclib libmvec`) instead
    /// of scalar libm calls per lane.
    Libmvec,
    /// Not lanes: ISPC's build of the kernel's twin `<kernel>.ispc` at the same width (a
    /// peer, built when an `ispc` binary is given and the twin exists).
    Ispc,
}

impl Config {
    pub const ALL: [Config; 10] = [
        Config::Full,
        Config::Partial,
        Config::Boscc,
        Config::BosccFusion,
        Config::PerLane,
        Config::Reconverge,
        Config::ReconvergeNoSkip,
        Config::ReconvergeProfile,
        Config::Libmvec,
        Config::Ispc,
    ];

    /// The vector math library of the build (`--veclib`), if any.
    pub fn veclib(self) -> Option<&'static str> {
        (self == Config::Libmvec).then_some("libmvec")
    }

    /// Does the build compute with another math library than clang's scalar reference
    /// (so its floats may differ in the last bits)?
    pub fn other_math(self) -> bool {
        matches!(self, Config::Libmvec | Config::Ispc)
    }

    /// Does the build take a branch profile of the kernel ([`Config::ReconvergeProfile`])?
    pub fn profiled(self) -> bool {
        self == Config::ReconvergeProfile
    }

    /// The configuration named `name` ([`Config::name`]).
    pub fn named(name: &str) -> Option<Config> {
        Config::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Is this configuration built for `kernel`?
    pub fn applies_to(self, kernel: &Kernel) -> bool {
        self != Config::PerLane || kernel.private_arrays
    }

    /// The name in tables and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Config::Full => "full",
            Config::Partial => "partial",
            Config::Boscc => "partial+boscc",
            Config::BosccFusion => "partial+boscc+fusion",
            Config::PerLane => "per-lane-arrays",
            Config::Reconverge => "reconverge",
            Config::ReconvergeNoSkip => "reconverge+skip-off",
            Config::ReconvergeProfile => "reconverge+profile",
            Config::Libmvec => "partial+boscc+fusion+libmvec",
            Config::Ispc => "ispc",
        }
    }

    /// Its part of a C identifier.
    pub fn ident(self) -> &'static str {
        match self {
            Config::Full => "full",
            Config::Partial => "partial",
            Config::Boscc => "boscc",
            Config::BosccFusion => "fusion",
            Config::PerLane => "perlane",
            Config::Reconverge => "reconverge",
            Config::ReconvergeNoSkip => "reconverge_noskip",
            Config::ReconvergeProfile => "reconverge_profile",
            Config::Libmvec => "libmvec",
            Config::Ispc => "ispc",
        }
    }

    /// The lanes mode of a lanes build; none for the ISPC peer.
    pub fn mode(self) -> Option<Mode> {
        Some(match self {
            Config::Full => Mode::FULL,
            Config::Partial => Mode::PARTIAL,
            Config::Boscc => Mode::boscc(BosccPolicy::Auto),
            Config::BosccFusion => Mode::boscc(BosccPolicy::Auto).with_fusion(FusionPolicy::Auto),
            Config::PerLane => Config::BosccFusion
                .mode()?
                .with_private_layout(PrivateLayout::PerLane),
            Config::Reconverge => Mode::reconverge(BlockOrder::DepthFirstPostDom),
            Config::ReconvergeNoSkip => Config::Reconverge.mode()?.with_skip_empty(SkipEmpty::Off),
            Config::ReconvergeProfile => Config::Reconverge.mode()?,
            Config::Libmvec => Config::BosccFusion.mode()?,
            Config::Ispc => return None,
        })
    }
}
