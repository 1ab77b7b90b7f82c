//! The data-flow graph: instructions, values and their types, independent of placement.
//!
//! Cranelift's `ir/dfg.rs` is the model: instructions and values live in `PrimaryMap`s and
//! refer to each other by entity index. Every value is either a function parameter or the
//! single result of an instruction; its type is stored with it, so the text format prints
//! it once (`v4: i32 = add v1, v3`) and the verifier checks operands against it.

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{PrimaryMap, SecondaryMap};

use crate::entities::{Block, Inst, Value};
use crate::flags::FastMath;
use crate::instructions::InstData;
use crate::types::Type;

/// Where a value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueDef {
    /// The `n`-th function parameter.
    Param(usize),
    /// The result of an instruction.
    Result(Inst),
}

/// A value's type and definition.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueData {
    pub ty: Type,
    pub def: ValueDef,
}

/// Per-block data. Blocks carry no parameters: lanes uses φ instructions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BlockData {}

/// Instructions, values and blocks of one function.
#[derive(Clone, Debug, Default)]
pub struct DataFlowGraph {
    insts: PrimaryMap<Inst, InstData>,
    results: SecondaryMap<Inst, PackedOption<Value>>,
    values: PrimaryMap<Value, ValueData>,
    blocks: PrimaryMap<Block, BlockData>,
    /// Fast-math flags of floating-point instructions (most have none), kept beside the
    /// instructions as Cranelift keeps source locations.
    fast_math: SecondaryMap<Inst, FastMath>,
}

impl DataFlowGraph {
    pub fn new() -> Self {
        Self::default()
    }

    /// Creates a block (not yet in the layout).
    pub fn make_block(&mut self) -> Block {
        self.blocks.push(BlockData::default())
    }

    /// Number of blocks ever created (an upper bound of the block indices).
    pub fn num_blocks(&self) -> usize {
        self.blocks.len()
    }

    /// Creates an instruction with a result of type `result` (or none).
    pub fn make_inst(&mut self, data: InstData, result: Option<Type>) -> Inst {
        let inst = self.insts.push(data);
        if let Some(ty) = result {
            let v = self.values.push(ValueData {
                ty,
                def: ValueDef::Result(inst),
            });
            self.results[inst] = v.into();
        }
        inst
    }

    /// Creates the value of the `index`-th function parameter.
    pub fn make_param(&mut self, index: usize, ty: Type) -> Value {
        self.values.push(ValueData {
            ty,
            def: ValueDef::Param(index),
        })
    }

    /// Creates a value with an explicit definition; used by the parser, which must honor
    /// the value numbers written in the text.
    pub fn make_value(&mut self, data: ValueData) -> Value {
        self.values.push(data)
    }

    /// Sets the result of an instruction (parser and rewrites).
    pub fn set_result(&mut self, inst: Inst, value: Option<Value>) {
        self.results[inst] = value.into();
    }

    pub fn inst(&self, inst: Inst) -> &InstData {
        &self.insts[inst]
    }

    /// The instruction's data, to rewrite. Its [`FastMath`] flags stay: a rewrite that
    /// changes what the instruction computes clears them ([`Self::set_fast_math`]).
    pub fn inst_mut(&mut self, inst: Inst) -> &mut InstData {
        &mut self.insts[inst]
    }

    /// The fast-math flags of `inst` (none for most instructions).
    pub fn fast_math(&self, inst: Inst) -> FastMath {
        self.fast_math[inst]
    }

    pub fn set_fast_math(&mut self, inst: Inst, flags: FastMath) {
        self.fast_math[inst] = flags;
    }

    pub fn inst_result(&self, inst: Inst) -> Option<Value> {
        self.results[inst].expand()
    }

    pub fn value_type(&self, v: Value) -> Type {
        self.values[v].ty
    }

    pub fn value_def(&self, v: Value) -> ValueDef {
        self.values[v].def
    }

    /// The instruction whose result `v` is (`None` for a parameter).
    pub fn def_inst(&self, v: Value) -> Option<Inst> {
        match self.values[v].def {
            ValueDef::Result(i) => Some(i),
            ValueDef::Param(_) => None,
        }
    }

    /// The integer every lane of `v` holds, if `v` is an `iconst` or a `broadcast` or
    /// `sext` of one (immediates are stored sign-extended, so a sign extension keeps it).
    pub fn splat_constant(&self, v: Value) -> Option<i64> {
        match self.inst(self.def_inst(v)?) {
            InstData::Iconst { imm } => Some(*imm),
            InstData::Intrinsic {
                id: crate::opcodes::Intrinsic::Broadcast,
                args,
            } => self.splat_constant(*args.first()?),
            InstData::Cast {
                op: crate::opcodes::CastOp::Sext,
                arg,
                ..
            } => self.splat_constant(*arg),
            _ => None,
        }
    }

    pub fn value_data_mut(&mut self, v: Value) -> &mut ValueData {
        &mut self.values[v]
    }

    pub fn is_valid_value(&self, v: Value) -> bool {
        self.values.is_valid(v)
    }

    pub fn is_valid_inst(&self, inst: Inst) -> bool {
        self.insts.is_valid(inst)
    }

    pub fn is_valid_block(&self, block: Block) -> bool {
        self.blocks.is_valid(block)
    }

    pub fn num_values(&self) -> usize {
        self.values.len()
    }

    pub fn num_insts(&self) -> usize {
        self.insts.len()
    }

    pub fn values(&self) -> impl Iterator<Item = Value> + '_ {
        self.values.keys()
    }

    pub fn insts(&self) -> impl Iterator<Item = Inst> + '_ {
        self.insts.keys()
    }

    /// Replaces every use of `old` by `new` in every instruction (placed or not). This
    /// visits every instruction: a pass replacing many values collects them in a
    /// [`ValueSubstitution`] and applies it once.
    pub fn replace_uses(&mut self, old: Value, new: Value) {
        for data in self.insts.values_mut() {
            data.for_each_arg_mut(|v| {
                if *v == old {
                    *v = new
                }
            });
        }
    }

    /// Applies `subst` to every use in every instruction (placed or not), in one pass.
    pub fn apply_substitution(&mut self, subst: &ValueSubstitution) {
        if subst.is_empty() {
            return;
        }
        for data in self.insts.values_mut() {
            data.for_each_arg_mut(|v| *v = subst.resolve(*v));
        }
    }
}

/// A batch of use replacements `old → new`, applied to a function in one pass by
/// [`DataFlowGraph::apply_substitution`]; chains (`a → b`, `b → c`) resolve to their end.
/// A pass that removes many values (φ blending, trivial φs) records each replacement here
/// and reads operands through [`resolve`](Self::resolve) until it applies the batch, so
/// that replacing `n` values costs one walk over the function instead of `n`.
#[derive(Clone, Debug, Default)]
pub struct ValueSubstitution {
    map: SecondaryMap<Value, PackedOption<Value>>,
    len: usize,
}

impl ValueSubstitution {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records that uses of `old` read `new` (as resolved now). `old` must not be
    /// replaced already, and `new` must not resolve to `old` (no cycles).
    pub fn insert(&mut self, old: Value, new: Value) {
        let new = self.resolve(new);
        debug_assert!(
            new != old && self.map[old].is_none(),
            "{old} replaced once, acyclically"
        );
        self.map[old] = new.into();
        self.len += 1;
    }

    /// What a use of `v` reads after the replacements so far.
    pub fn resolve(&self, mut v: Value) -> Value {
        while let Some(next) = self.map.get(v).and_then(|p| p.expand()) {
            v = next;
        }
        v
    }

    /// Has `v` been replaced?
    pub fn contains(&self, v: Value) -> bool {
        self.map.get(v).is_some_and(|p| p.is_some())
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}
