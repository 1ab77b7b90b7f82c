//! Random well-formed lanes IR functions, for property, differential and fuzz tests.
//!
//! Every later test of lanes compares a transformation against the reference semantics on
//! many programs (ARCHITECTURE.md, "Testing"); like regalloc2's `fuzzing` module, the
//! generator lives in the library behind a feature so that all of them share it. It turns
//! the bytes of an [`arbitrary::Unstructured`] into a [`Module`] holding one function (and
//! possibly a small helper it calls), plus a description of the arguments a harness must
//! pass. The same bytes always give the same module, and no byte string makes it panic:
//! when the bytes run out every choice falls back to its smallest option.
//!
//! What the functions look like:
//! - **Control flow** (module `cfg_shape`): blocks in a line, loops as nested intervals of it
//!   with one header each, forward edges anywhere (into the middle of later regions, over
//!   blocks, to shared switch targets, out of several loops at once, to one of several
//!   return blocks), and several latches per loop (`continue` of an outer loop from inside
//!   an inner one). This is the divergent, unstructured control flow that partial
//!   linearization (PLDI'18 §3) must handle. With [`GenConfig::irreducible`], some forward
//!   edges enter a loop at a block other than its header, giving irreducible cycles (a
//!   cycle with two entries, PLDI'18 §4.4); [`GenInfo::irreducible`] says so and the
//!   function is named `gen_irreducible`.
//! - **Termination** by construction: every loop has a counter φ at each join inside it,
//!   reset to zero whenever the loop is entered from outside, incremented on each back edge,
//!   and every back edge is guarded by `counter < bound` (bound ≤ [`GenConfig::max_trip_count`],
//!   product of nested bounds ≤ [`GenConfig::max_trip_product`]). Every cycle, irreducible
//!   ones included, contains a back edge in layout order, so every run terminates.
//! - **SSA** by construction (module `emit`): instructions are generated in a preorder walk of
//!   the dominator tree and only use values of the dominating blocks; every join block gets
//!   φs listing each distinct predecessor block once, whose incoming values are picked from
//!   the values available at the end of that predecessor.
//! - **No faults**: divisors are forced non-zero and away from `-1`; memory addresses are
//!   clamped into the buffers declared in [`Generated::params`], the module's globals (a
//!   read-only table or writable state) and zeroed stack arrays (module `memory`), and
//!   naturally aligned; vector lane indices are clamped into range.
//! - **Observable results**: the function returns a checksum of live values, and stores to
//!   its buffers and globals. Floats may become NaN or infinite. The checksum converts floats
//!   with the saturating `fptosi` (NaN gives 0), so NaN payloads, which IEEE 754 leaves
//!   open, reach the result only through bitcasts and memory.
//!
//! ```
//! use arbitrary::Unstructured;
//! use lanes_ir::generator::{generate, GenConfig, GenParam};
//!
//! let bytes: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
//! let cfg = GenConfig { irreducible: true, vector_width: Some(4), ..GenConfig::default() };
//! let g = generate(&mut Unstructured::new(&bytes), &cfg).unwrap();
//! let func = g.function();
//! lanes_ir::verifier::verify_function(&g.module, func).unwrap();
//! assert_eq!(func.params.len(), g.params.len());
//! for p in &g.params {
//!     if let GenParam::Buffer { .. } = p {
//!         assert!(p.buffer_bytes() >= 64); // the harness allocates this many bytes
//!     }
//! }
//! ```

mod body;
mod cfg_shape;
mod dom;
mod emit;
mod memory;
mod operands;
mod pool;
mod vector;

use arbitrary::{Result, Unstructured};

use crate::entities::{Block, FuncId};
use crate::function::Function;
use crate::module::{GlobalData, Module};
use crate::types::{AddrSpace, Type};

/// Alignment in bytes a harness must give every buffer argument (also stated in the
/// parameter's `align` attribute).
pub const BUFFER_ALIGN: u32 = 16;

/// Knobs of the generator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenConfig {
    /// Fewest blocks of the main function (at least 1).
    pub min_blocks: usize,
    /// Most blocks of the main function; generation is linear in it.
    pub max_blocks: usize,
    /// Most ordinary instructions per block (φs, guards and terminators come on top).
    pub max_insts_per_block: usize,
    /// Deepest loop nest.
    pub max_loop_depth: usize,
    /// Also produce irreducible cycles (loops entered at a block other than the header).
    pub irreducible: bool,
    /// Float parameters, arithmetic, comparisons, conversions and exact math intrinsics.
    pub floats: bool,
    /// Also transcendental intrinsics (`exp`, `sin`, `pow`, …), whose last bits differ
    /// between libms; off by default so differential tests can compare exactly.
    pub transcendental: bool,
    /// Buffer parameters with loads, stores and atomics into them, and stack arrays.
    pub memory: bool,
    /// `Some(w)`: also vector values `<w x T>`, masks, vector arithmetic, selects on masks,
    /// masked loads and stores, gathers and scatters, reductions and mask queries.
    pub vector_width: Option<u16>,
    /// Generate a small helper function in the module and call it.
    pub calls: bool,
    /// Also use OpenCL work-item queries (`global_id 0`, `local_id 0`, sizes) as data, so
    /// that instances of an SPMD run differ (CC'12 §2). Off by default: a harness then
    /// needs no work-item context. Stores are not made race-free across work items.
    pub work_items: bool,
    /// Largest trip count of one loop (at least 2).
    pub max_trip_count: u32,
    /// Largest product of the trip counts of a loop nest.
    pub max_trip_product: u32,
    /// Most data φs per join block (loop counters come on top).
    pub max_phis: usize,
    /// Also typed stack arrays (like C's `float v[16]`): every access to one has the same
    /// scalar type, so that the vectorizer may lay it out across lanes element-major.
    /// Off by default, which keeps the programs of existing seeds as they were.
    pub typed_stack: bool,
    /// Also buffer indices that hold one value over runs of consecutive integers before
    /// they are clamped into the buffer (`x & -8`, `x >> 2`, `x / 6`): with the instance
    /// index as `x`, addresses that repeat over runs of lanes. Off by default (same seeds,
    /// same programs).
    pub run_indices: bool,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            min_blocks: 4,
            max_blocks: 24,
            max_insts_per_block: 8,
            max_loop_depth: 3,
            irreducible: false,
            floats: true,
            transcendental: false,
            memory: true,
            vector_width: None,
            calls: true,
            work_items: false,
            max_trip_count: 6,
            max_trip_product: 64,
            max_phis: 3,
            typed_stack: false,
            run_indices: false,
        }
    }
}

/// What a harness must pass for one parameter of the generated function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GenParam {
    /// Any value of this integer type.
    Int(Type),
    /// Any value of this float type.
    Float(Type),
    /// A pointer to `size` elements of type `elem` (`size * elem.bytes()` bytes), aligned to
    /// [`BUFFER_ALIGN`], readable and writable, with any initial contents. Accesses of other
    /// types than `elem` may reinterpret the bytes.
    Buffer { size: u64, elem: Type },
}

impl GenParam {
    /// Size in bytes of a buffer parameter (0 for scalars).
    pub fn buffer_bytes(&self) -> u64 {
        match self {
            GenParam::Buffer { size, elem } => size * u64::from(elem.bytes()),
            _ => 0,
        }
    }
}

/// Facts about the generated control flow, for test statistics and for marking irreducible
/// functions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GenInfo {
    /// Blocks of the main function.
    pub blocks: usize,
    /// Loops (intervals with a header and a guarded back edge) of the main function.
    pub loops: usize,
    /// Deepest loop nesting (0 without loops).
    pub max_loop_depth: usize,
    /// Is the main function's CFG irreducible (some cycle has two entries)? Computed
    /// exactly on the generated CFG; only ever true with [`GenConfig::irreducible`], and
    /// then the function is named `gen_irreducible`.
    pub irreducible: bool,
    /// Edges `(from, to)` entering a loop at a block other than its header, the cause of
    /// any irreducibility. A side entry makes the loop's cycle irreducible when the entered
    /// block reaches a latch without passing the header, which is the common case.
    pub side_entries: Vec<(Block, Block)>,
    /// The helper function the main function may call, if the module has one.
    pub helper: Option<FuncId>,
}

/// A generated module and how to call its main function.
#[derive(Clone, Debug)]
pub struct Generated {
    pub module: Module,
    /// The main function.
    pub func: FuncId,
    /// One entry per parameter of `func`, in order.
    pub params: Vec<GenParam>,
    pub info: GenInfo,
}

/// Generates a module with one main function (and possibly a helper) from `u`.
///
/// Deterministic in the bytes of `u`; never panics. Errors are only those of `arbitrary`
/// itself (none occur in practice: exhausted input yields the smallest choices).
pub fn generate(u: &mut Unstructured, cfg: &GenConfig) -> Result<Generated> {
    let mut module = Module::new();
    let mut env = emit::Env::default();
    if cfg.calls && chance(u, 1, 2)? {
        let hcfg = GenConfig {
            min_blocks: 1,
            max_blocks: cfg.max_blocks.clamp(1, 5),
            max_insts_per_block: cfg.max_insts_per_block.min(6),
            max_loop_depth: cfg.max_loop_depth.min(1),
            irreducible: false,
            memory: false,
            vector_width: None,
            calls: false,
            ..cfg.clone()
        };
        let mut kinds = vec![];
        for _ in 0..range(u, 1, 3)? {
            kinds.push(scalar_param(u, cfg.floats)?);
        }
        let ret = if cfg.floats && chance(u, 1, 4)? {
            Type::F64
        } else {
            int_type(u)?
        };
        let (func, _) = emit::gen_function(u, &hcfg, "helper", &kinds, ret, &env)?;
        let sig = func.signature();
        let id = module.define(func);
        env.helper = Some(emit::HelperSig {
            id,
            params: sig.params,
            ret,
        });
    }
    if cfg.memory && chance(u, 1, 3)? {
        env.globals.push(add_global(u, cfg, &mut module)?);
    }

    let mut params = vec![];
    for _ in 0..range(u, 1, 3)? {
        params.push(GenParam::Int(int_type(u)?));
    }
    if cfg.floats {
        for _ in 0..range(u, 0, 2)? {
            params.push(GenParam::Float(if chance(u, 1, 2)? {
                Type::F32
            } else {
                Type::F64
            }));
        }
    }
    if cfg.memory {
        let lanes = u64::from(cfg.vector_width.unwrap_or(1).max(1));
        let min_bytes = (2 * 8 * lanes).max(64);
        for _ in 0..range(u, 1, 3)? {
            let elem = *u.choose(if cfg.floats {
                &[Type::I32, Type::I64, Type::F32, Type::F64][..]
            } else {
                &[Type::I32, Type::I64][..]
            })?;
            let min = min_bytes / u64::from(elem.bytes());
            let size = u.int_in_range(min..=min * 4)?;
            params.push(GenParam::Buffer { size, elem });
        }
    }
    for i in (1..params.len()).rev() {
        let j = range(u, 0, i)?;
        params.swap(i, j);
    }
    let ret = int_type(u)?;
    let (func, mut info) = emit::gen_function(u, cfg, "gen", &params, ret, &env)?;
    let mut func = func;
    if info.irreducible {
        func.name = "gen_irreducible".to_string();
    }
    info.helper = env.helper.map(|h| h.id);
    let id = module.define(func);
    Ok(Generated {
        module,
        func: id,
        params,
        info,
    })
}

impl Generated {
    /// The main function.
    pub fn function(&self) -> &Function {
        self.module
            .function(self.func)
            .expect("the generator defines its main function")
    }
}

/// Adds a global with pseudo-random contents: a read-only table in the constant address
/// space, or writable state in the global one.
fn add_global(
    u: &mut Unstructured,
    cfg: &GenConfig,
    module: &mut Module,
) -> Result<emit::GlobalRef> {
    let lanes = u64::from(cfg.vector_width.unwrap_or(1).max(1));
    let bytes = (16 * lanes).max(64);
    let writable = chance(u, 1, 2)?;
    // SplitMix64 from one seed: cheap, and independent of how many bytes `u` has left.
    let mut x: u64 = u.int_in_range(0..=u64::MAX)?;
    let init = (0..bytes)
        .map(|_| {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (z ^ (z >> 31)) as u8
        })
        .collect();
    let space = if writable {
        AddrSpace::GLOBAL
    } else {
        AddrSpace::CONSTANT
    };
    let id = module.add_global(GlobalData {
        name: if writable { "state" } else { "table" }.to_string(),
        size: bytes,
        align: BUFFER_ALIGN,
        init: Some(init),
        constant: !writable,
        space,
    });
    Ok(emit::GlobalRef {
        id,
        bytes,
        space,
        writable,
    })
}

/// A uniform integer in `lo..=hi`, or `lo` if the range is empty.
pub(crate) fn range(u: &mut Unstructured, lo: usize, hi: usize) -> Result<usize> {
    if hi <= lo {
        Ok(lo)
    } else {
        u.int_in_range(lo..=hi)
    }
}

/// Picks one entry of `menu` with probability proportional to its weight (the first entry
/// if the weights sum to zero or the input runs out).
pub(crate) fn weighted<T: Copy>(u: &mut Unstructured, menu: &[(u32, T)]) -> Result<T> {
    let total: u32 = menu.iter().map(|&(w, _)| w).sum();
    let first = menu
        .first()
        .map(|&(_, k)| k)
        .ok_or(arbitrary::Error::EmptyChoose)?;
    if total == 0 {
        return Ok(first);
    }
    let mut r = u.int_in_range(0..=total - 1)?;
    for &(w, k) in menu {
        if r < w {
            return Ok(k);
        }
        r -= w;
    }
    Ok(first)
}

/// True with probability `num / den` (never for `num == 0`, always for `num >= den`).
pub(crate) fn chance(u: &mut Unstructured, num: u32, den: u32) -> Result<bool> {
    if num == 0 {
        Ok(false)
    } else if num >= den {
        Ok(true)
    } else {
        u.ratio(num, den)
    }
}

/// `i32` or `i64`.
fn int_type(u: &mut Unstructured) -> Result<Type> {
    Ok(if chance(u, 1, 2)? {
        Type::I32
    } else {
        Type::I64
    })
}

fn scalar_param(u: &mut Unstructured, floats: bool) -> Result<GenParam> {
    Ok(if floats && chance(u, 1, 3)? {
        GenParam::Float(if chance(u, 1, 2)? {
            Type::F32
        } else {
            Type::F64
        })
    } else {
        GenParam::Int(int_type(u)?)
    })
}

/// The type of a buffer parameter: a pointer into global memory.
fn buffer_ptr_type() -> Type {
    Type::ptr(AddrSpace::GLOBAL)
}
