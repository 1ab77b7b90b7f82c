//! Functions and their attributes.
//!
//! A function is its signature (parameters with shape attributes, an optional return
//! type, kernel-ness), a data-flow graph (what) and a layout (where). Parameter shapes
//! are the user's or the kernel model's statement of how an argument varies across SIMD
//! instances, the seeds of shape analysis (PLDI'18 §2.3, CC'12 §3.2).

use core::fmt;

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
}

/// Parameter and return types, as a call site sees them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Signature {
    pub params: Vec<Type>,
    pub ret: Option<Type>,
}

/// A function with a body.
#[derive(Clone, Debug, Default)]
pub struct Function {
    pub name: String,
    pub params: Vec<Param>,
    pub ret: Option<Type>,
    pub attrs: FuncAttrs,
    pub dfg: DataFlowGraph,
    pub layout: Layout,
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
