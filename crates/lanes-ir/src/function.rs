//! Functions and their attributes.
//!
//! A function is its signature (parameters with shape attributes, an optional return
//! type, kernel-ness), a data-flow graph (what) and a layout (where). Parameter shapes
//! are the user's or the kernel model's statement of how an argument varies across SIMD
//! instances, the seeds of shape analysis (PLDI'18 §2.3, CC'12 §3.2).

use core::fmt;
use cranelift_entity::SecondaryMap;

use crate::dfg::DataFlowGraph;
use crate::entities::{Block, Inst, Value};
use crate::instructions::InstData;
use crate::layout::Layout;
use crate::types::Type;

/// How a value varies across the SIMD instances of a function (PLDI'18 §2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// The same in every instance.
    Uniform,
    /// Instance `i` sees `base + i` (in elements; for pointers, in units of the pointee
    /// access size, which the analysis resolves).
    Contiguous,
    /// Instance `i` sees `base + i * n`.
    Strided(i64),
    /// Anything else.
    Varying,
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Uniform => f.write_str("uniform"),
            Shape::Contiguous => f.write_str("contiguous"),
            Shape::Strided(n) => write!(f, "strided({n})"),
            Shape::Varying => f.write_str("varying"),
        }
    }
}

/// Attributes of one parameter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParamAttrs {
    /// The parameter's shape, when known.
    pub shape: Option<Shape>,
    /// Known alignment in bytes of the value (for pointers, of the address); 0 if unknown.
    pub align: u32,
}

/// A function parameter: its value and attributes.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub value: Value,
    pub attrs: ParamAttrs,
}

/// Attributes of a whole function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FuncAttrs {
    /// An OpenCL kernel or SPMD entry point.
    pub kernel: bool,
    /// Never inlined by LLVM: a piece of a very long function split for the code
    /// generator (`lanes_wfv::chunks`), which inlining would join again.
    pub noinline: bool,
}

/// How a parameter or the result crosses the C calling convention beyond its lanes type.
/// lanes IR itself ignores these; the LLVM importer records them and the exporter puts
/// them back, so that an object compiled through lanes links with C code (`byval` and
/// `sret` carry the pointee size in bytes: lanes has no aggregate types).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AbiAttrs {
    pub signext: bool,
    pub zeroext: bool,
    pub noalias: bool,
    /// Passed by value in memory: a pointer to a caller-made copy of this many bytes.
    pub byval: Option<u64>,
    /// Points to the caller's memory for a returned aggregate of this many bytes.
    pub sret: Option<u64>,
}

impl AbiAttrs {
    pub fn is_default(&self) -> bool {
        *self == AbiAttrs::default()
    }
}

/// A loop hint as LLVM spells it (`llvm.loop.unroll.count` with `Some(4)`,
/// `llvm.loop.mustprogress` with `None`); `llvm.loop.parallel_accesses` records that the
/// loop's memory accesses were declared independent.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LoopHint {
    pub name: String,
    pub value: Option<i64>,
}

/// Loop metadata attached to the terminator of `latch` (the back-edge branch).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LoopMd {
    pub latch: Block,
    pub hints: Vec<LoopHint>,
}

/// ABI attributes and loop metadata of a function, kept for the LLVM export.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FuncAbi {
    /// One entry per parameter, or empty when all are default.
    pub params: Vec<AbiAttrs>,
    pub ret: AbiAttrs,
    pub loops: Vec<LoopMd>,
}

impl FuncAbi {
    /// The ABI attributes of parameter `i`.
    pub fn param(&self, i: usize) -> AbiAttrs {
        self.params.get(i).copied().unwrap_or_default()
    }
}

/// Parameter and return types, as a call site sees them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Signature {
    pub params: Vec<Type>,
    pub ret: Option<Type>,
    /// Takes further arguments after `params` (C's `...`). Only external functions are
    /// variadic: lanes IR has no `va_arg`, so a variadic definition stays LLVM IR.
    pub variadic: bool,
}

impl Signature {
    /// A signature that is not variadic.
    pub fn new(params: Vec<Type>, ret: Option<Type>) -> Signature {
        Signature {
            params,
            ret,
            variadic: false,
        }
    }
}

/// A function with a body.
#[derive(Clone, Debug, Default)]
pub struct Function {
    pub name: String,
    pub params: Vec<Param>,
    pub ret: Option<Type>,
    pub attrs: FuncAttrs,
    /// C ABI attributes and LLVM loop metadata (see [`FuncAbi`]).
    pub abi: FuncAbi,
    pub dfg: DataFlowGraph,
    pub layout: Layout,
    /// The source line each instruction came from (0 or absent: unknown), from the
    /// input's line tables, for remarks that point at the source. Not part of the text
    /// format; instructions keep their lines through the passes that copy functions.
    pub source_lines: SecondaryMap<Inst, u32>,
    /// The function as written that this one was made from (a masked copy, an outlined
    /// loop body), for messages about it; `None` for a function as written.
    pub origin: Option<String>,
    /// Counts a SIMT profile of the function saw at its branches, if it was profiled
    /// (module [`crate::branch_profile`]). Not part of the text format.
    pub branch_profile: Option<crate::BranchProfile>,
}

impl Function {
    /// The name of the function as written this one stands for.
    pub fn origin_name(&self) -> &str {
        self.origin.as_deref().unwrap_or(&self.name)
    }
}

impl Function {
    /// An empty function with the given name and signature; parameter values are created.
    pub fn new(name: impl Into<String>, params: &[Type], ret: Option<Type>) -> Self {
        let mut func = Function {
            name: name.into(),
            ret,
            ..Default::default()
        };
        for (i, &ty) in params.iter().enumerate() {
            let value = func.dfg.make_param(i, ty);
            func.params.push(Param {
                value,
                attrs: ParamAttrs::default(),
            });
        }
        func
    }

    pub fn signature(&self) -> Signature {
        Signature {
            params: self
                .params
                .iter()
                .map(|p| self.dfg.value_type(p.value))
                .collect(),
            ret: self.ret,
            variadic: false,
        }
    }

    pub fn param_values(&self) -> impl Iterator<Item = Value> + '_ {
        self.params.iter().map(|p| p.value)
    }

    pub fn entry_block(&self) -> Option<Block> {
        self.layout.entry_block()
    }

    /// Creates a block and appends it to the layout.
    pub fn append_new_block(&mut self) -> Block {
        let block = self.dfg.make_block();
        self.layout.append_block(block);
        block
    }

    pub fn inst(&self, inst: Inst) -> &InstData {
        self.dfg.inst(inst)
    }

    pub fn value_type(&self, v: Value) -> Type {
        self.dfg.value_type(v)
    }

    /// The terminator of `block`: its last instruction if that is a terminator.
    pub fn terminator(&self, block: Block) -> Option<Inst> {
        self.layout
            .last_inst(block)
            .filter(|&i| self.dfg.inst(i).is_terminator())
    }

    /// Successors of `block` in branch order, duplicates kept.
    pub fn successors(&self, block: Block) -> Vec<Block> {
        self.terminator(block)
            .map_or_else(Vec::new, |t| self.dfg.inst(t).branch_targets())
    }

    /// Number of placed instructions.
    pub fn num_placed_insts(&self) -> usize {
        self.layout
            .blocks()
            .map(|b| self.layout.block_insts(b).len())
            .sum()
    }
}
