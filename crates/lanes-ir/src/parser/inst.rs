//! Parsing one instruction of a function body.
//!
//! The grammar is exactly what `write::write_inst` prints: an optional `vN: type =`
//! result, the mnemonic, then the operands of the mnemonic's instruction group (values
//! separated by `, `, condition codes and atomic operations as a word before them, `[block:
//! value]` φ pairs, `[k: block]` switch cases, `[i, j]` shuffle masks, `@name(args)` calls,
//! an optional trailing `align N`), and the end of the line.
//!
//! The parser checks what can be checked without types: the mnemonic exists, a result is
//! present exactly when the instruction produces one (calls may have one or not; whether it
//! matches the callee is the verifier's business), and the operand count is right. Value
//! and block numbers are recorded with their positions so that the function parser can
//! report uses of undefined values and branches to undefined blocks once the whole body is
//! known (φ operands and uses in loops refer forward).

use cranelift_entity::EntityRef;

use crate::entities::{Block, FuncId, GlobalId, Value};
use crate::flags::{FastMath, IntFlags};
use crate::instructions::InstData;
use crate::memory_order::{Atomic, MemAccess, Ordering, SyncScope};
use crate::opcodes::{
    AtomicOp, BinaryOp, CastOp, FloatCC, IntCC, Intrinsic, IntrinsicClass, UnaryOp, WorkItemQuery,
};
use crate::parser::cursor::Cursor;
use crate::parser::error::{ParseError, Pos};
use crate::types::{ScalarType, Type};

/// The instruction group a mnemonic names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Iconst,
    Fconst,
    Unary(UnaryOp),
    Binary(BinaryOp),
    Icmp,
    Fcmp,
    Select,
    Cast(CastOp),
    Phi,
    PtrAdd,
    Alloca,
    GlobalAddr,
    Load,
    Store,
    MaskedLoad,
    MaskedStore,
    Gather,
    Scatter,
    AtomicRmw,
    AtomicCas,
    Fence,
    FuncAddr,
    Call,
    CallIndirect,
    Intrinsic(Intrinsic),
    WorkItem(WorkItemQuery),
    Shuffle,
    Br,
    Brif,
    Switch,
    Ret,
    Unreachable,
}

fn lookup(word: &str) -> Option<Op> {
    Some(match word {
        "iconst" => Op::Iconst,
        "fconst" => Op::Fconst,
        "icmp" => Op::Icmp,
        "fcmp" => Op::Fcmp,
        "select" => Op::Select,
        "phi" => Op::Phi,
        "ptradd" => Op::PtrAdd,
        "alloca" => Op::Alloca,
        "global_addr" => Op::GlobalAddr,
        "load" => Op::Load,
        "store" => Op::Store,
        "masked_load" => Op::MaskedLoad,
        "masked_store" => Op::MaskedStore,
        "gather" => Op::Gather,
        "scatter" => Op::Scatter,
        "atomic_rmw" => Op::AtomicRmw,
        "atomic_cas" => Op::AtomicCas,
        "fence" => Op::Fence,
        "func_addr" => Op::FuncAddr,
        "call" => Op::Call,
        "call_indirect" => Op::CallIndirect,
        "shuffle" => Op::Shuffle,
        "br" => Op::Br,
        "brif" => Op::Brif,
        "switch" => Op::Switch,
        "ret" => Op::Ret,
        "unreachable" => Op::Unreachable,
        _ => {
            if let Ok(op) = word.parse() {
                Op::Binary(op)
            } else if let Ok(op) = word.parse() {
                Op::Unary(op)
            } else if let Ok(op) = word.parse() {
                Op::Cast(op)
            } else if let Ok(id) = word.parse() {
                Op::Intrinsic(id)
            } else if let Ok(q) = word.parse() {
                Op::WorkItem(q)
            } else {
                return None;
            }
        }
    })
}

/// Whether an instruction group has a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ResultRule {
    Required,
    Forbidden,
    Optional,
}

fn result_rule(op: Op) -> ResultRule {
    match op {
        Op::Store | Op::MaskedStore | Op::Scatter | Op::Fence => ResultRule::Forbidden,
        Op::Br | Op::Brif | Op::Switch | Op::Ret | Op::Unreachable => ResultRule::Forbidden,
        Op::Intrinsic(id) if id.class() == IntrinsicClass::Barrier => ResultRule::Forbidden,
        Op::Call | Op::CallIndirect => ResultRule::Optional,
        _ => ResultRule::Required,
    }
}

/// The number of value operands of an intrinsic.
pub fn intrinsic_arity(id: Intrinsic) -> usize {
    match id.class() {
        IntrinsicClass::FloatMath(n)
        | IntrinsicClass::IntMath(n)
        | IntrinsicClass::CrossLane(n) => n,
        IntrinsicClass::LaneQuery | IntrinsicClass::Barrier => 0,
        IntrinsicClass::MaskQuery
        | IntrinsicClass::Reduction { .. }
        | IntrinsicClass::Broadcast => 1,
        IntrinsicClass::Extract | IntrinsicClass::PageProbe | IntrinsicClass::SpeculativeLoad => 2,
        IntrinsicClass::Insert => 3,
    }
}

/// What a module-level name in an instruction refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameKind {
    Func,
    Global,
}

/// A parsed instruction; a `call` or `global_addr` still has to have its name resolved.
pub struct InstText {
    pub data: InstData,
    pub name_ref: Option<(NameKind, String, Pos)>,
    /// The fast-math words written after the mnemonic.
    pub fast_math: FastMath,
}

/// Value and block numbers used by a body, with where they were used, in text order.
#[derive(Default)]
pub struct Refs {
    pub values: Vec<(u32, Pos)>,
    pub blocks: Vec<(u32, Pos)>,
}

/// The result written before an instruction: value number, type, and its position.
pub type ResultText = Option<(u32, Type, Pos)>;

/// Parses an instruction from its mnemonic up to and including the end of its line.
pub fn parse_inst(
    cur: &mut Cursor<'_>,
    result: ResultText,
    refs: &mut Refs,
) -> Result<InstText, ParseError> {
    let (word, op_pos) = cur.ident("an instruction mnemonic")?;
    let op =
        lookup(word).ok_or_else(|| ParseError::new(op_pos, format!("unknown opcode '{word}'")))?;
    match (result_rule(op), result) {
        (ResultRule::Required, None) => {
            return Err(ParseError::new(
                op_pos,
                format!("'{word}' produces a value: expected 'vN: type =' before it"),
            ))
        }
        (ResultRule::Forbidden, Some((v, _, pos))) => {
            return Err(ParseError::new(
                pos,
                format!("'{word}' does not produce a value, but it is assigned to 'v{v}'"),
            ))
        }
        _ => {}
    }
    let mut p = InstParser {
        cur,
        refs,
        word,
        op_pos,
    };
    let mut name_ref = None;
    let mut fast_math = FastMath::NONE;
    while let crate::parser::lexer::Tok::Ident(w) = p.cur.peek()?.tok {
        let Some(f) = FastMath::from_word(w) else {
            break;
        };
        p.cur.next()?;
        fast_math = fast_math.union(f);
    }
    let data = match op {
        Op::Iconst => InstData::Iconst {
            imm: p.cur.int::<i64>("an i64 immediate")?.0,
        },
        Op::Fconst => {
            let elem = result.map_or(ScalarType::F64, |(_, ty, _)| ty.elem());
            InstData::Fconst {
                bits: p.cur.float(elem, "a float constant")?.0,
            }
        }
        Op::Unary(op) => {
            let [arg] = p.values()?;
            InstData::Unary { op, arg }
        }
        Op::Binary(op) => {
            let flags = p.flags(op.allowed_flags())?;
            InstData::Binary {
                op,
                args: p.values()?,
                flags,
            }
        }
        Op::Icmp => {
            let cond = p.word::<IntCC>("an integer condition code (eq, ne, slt, ...)")?;
            InstData::Icmp {
                cond,
                args: p.values()?,
            }
        }
        Op::Fcmp => {
            let cond = p.word::<FloatCC>("a float condition code (oeq, olt, uno, ...)")?;
            InstData::Fcmp {
                cond,
                args: p.values()?,
            }
        }
        Op::Select => InstData::Select { args: p.values()? },
        Op::Cast(op) => {
            let flags = p.flags(op.allowed_flags())?;
            let [arg] = p.values()?;
            InstData::Cast { op, arg, flags }
        }
        Op::Phi => InstData::Phi {
            incoming: p.phi_pairs()?,
        },
        Op::PtrAdd => {
            let flags = p.flags(IntFlags::PTRADD)?;
            InstData::PtrAdd {
                args: p.values()?,
                flags,
            }
        }
        Op::Alloca => {
            let size = p.cur.int::<u32>("an alloca size in bytes")?.0;
            InstData::Alloca {
                size,
                align: p.align()?,
            }
        }
        Op::GlobalAddr => {
            let (name, pos) = p.cur.name("a global name '@...'")?;
            name_ref = Some((NameKind::Global, name, pos));
            InstData::GlobalAddr {
                global: GlobalId::new(0),
            }
        }
        Op::FuncAddr => {
            let (name, pos) = p.cur.name("a function name '@...'")?;
            name_ref = Some((NameKind::Func, name, pos));
            InstData::FuncAddr {
                func: FuncId::new(0),
            }
        }
        Op::Load => {
            let access = p.access()?;
            let [ptr] = p.values()?;
            InstData::Load {
                ptr,
                align: p.align()?,
                access,
            }
        }
        Op::Store => {
            let access = p.access()?;
            let [value, ptr] = p.values()?;
            InstData::Store {
                value,
                ptr,
                align: p.align()?,
                access,
            }
        }
        Op::MaskedLoad => {
            let [ptr, mask, passthru] = p.values()?;
            InstData::MaskedLoad {
                ptr,
                mask,
                passthru,
                align: p.align()?,
            }
        }
        Op::MaskedStore => {
            let [value, ptr, mask] = p.values()?;
            InstData::MaskedStore {
                value,
                ptr,
                mask,
                align: p.align()?,
            }
        }
        Op::Gather => {
            let [ptrs, mask, passthru] = p.values()?;
            InstData::Gather {
                ptrs,
                mask,
                passthru,
                align: p.align()?,
            }
        }
        Op::Scatter => {
            let [value, ptrs, mask] = p.values()?;
            InstData::Scatter {
                value,
                ptrs,
                mask,
                align: p.align()?,
            }
        }
        Op::AtomicRmw => {
            let op = p.word::<AtomicOp>("an atomic operation (xchg, add, ...)")?;
            let access = p.atomic_access()?;
            let [ptr, value] = p.values()?;
            InstData::AtomicRmw {
                op,
                ptr,
                value,
                access,
            }
        }
        Op::AtomicCas => {
            let access = p.atomic_access()?;
            let success = access.ordering().unwrap_or(Ordering::SeqCst);
            let failure = match p.cur.peek()?.tok {
                crate::parser::lexer::Tok::Ident(w) => w.parse::<Ordering>().ok(),
                _ => None,
            };
            if failure.is_some() {
                p.cur.next()?;
            }
            let [ptr, expected, replacement] = p.values()?;
            InstData::AtomicCas {
                ptr,
                expected,
                replacement,
                access,
                failure: failure.unwrap_or(success.default_failure()),
            }
        }
        Op::Fence => {
            let scope = if p.cur.eat_ident("singlethread")? {
                SyncScope::SingleThread
            } else {
                SyncScope::System
            };
            let ordering =
                p.word::<Ordering>("a fence ordering (acquire, release, acq_rel, seq_cst)")?;
            InstData::Fence { ordering, scope }
        }
        Op::CallIndirect => {
            let callee = p.value()?;
            let args = p.call_args()?;
            let variadic = if p.cur.eat_ident("variadic")? {
                Some(p.cur.int::<u32>("the number of fixed parameters")?.0)
            } else {
                None
            };
            InstData::CallIndirect {
                callee,
                args,
                variadic,
            }
        }
        Op::Call => {
            let (name, pos) = p.cur.name("a function name '@...'")?;
            name_ref = Some((NameKind::Func, name, pos));
            InstData::Call {
                func: FuncId::new(0),
                args: p.call_args()?,
            }
        }
        Op::Intrinsic(id) => {
            let args = p.value_list()?;
            let want = intrinsic_arity(id);
            if args.len() != want {
                return Err(p.count_error(want, args.len()));
            }
            InstData::Intrinsic { id, args }
        }
        Op::WorkItem(query) => InstData::WorkItem {
            query,
            dim: p.cur.int::<u8>("a dimension (0 to 255)")?.0,
        },
        Op::Shuffle => {
            let a = p.value()?;
            p.cur.expect_punct(',', "',' after operand")?;
            let b = p.value()?;
            let args = [a, b];
            p.cur.expect_punct(',', "',' before the shuffle mask")?;
            p.cur.expect_punct('[', "'[' to start the shuffle mask")?;
            let mut mask = Vec::new();
            if !p.cur.eat_punct(']')? {
                loop {
                    mask.push(p.cur.int::<u32>("a lane index")?.0);
                    if p.cur.eat_punct(']')? {
                        break;
                    }
                    p.cur.expect_punct(',', "',' or ']' after lane index")?;
                }
            }
            InstData::Shuffle { args, mask }
        }
        Op::Br => InstData::Jump {
            dest: p.block("a destination block")?,
        },
        Op::Brif => {
            let cond = p.value()?;
            p.cur.expect_punct(',', "',' after the branch condition")?;
            let then_dest = p.block("the block taken when the condition is true")?;
            p.cur.expect_punct(',', "',' after the first destination")?;
            let else_dest = p.block("the block taken when the condition is false")?;
            InstData::Brif {
                cond,
                then_dest,
                else_dest,
            }
        }
        Op::Switch => p.switch()?,
        Op::Ret => {
            let value = if p.cur.at_line_end()? {
                None
            } else {
                Some(p.value()?)
            };
            InstData::Return { value }
        }
        Op::Unreachable => InstData::Unreachable,
    };
    let after = format!("after '{word}' instruction");
    if p.cur.peek()?.tok == crate::parser::lexer::Tok::Punct(',') {
        return Err(p
            .cur
            .expected(&format!("end of line (too many operands for '{word}')")));
    }
    p.cur.expect_line_end(&after)?;
    Ok(InstText {
        data,
        name_ref,
        fast_math,
    })
}

struct InstParser<'x, 'a> {
    cur: &'x mut Cursor<'a>,
    refs: &'x mut Refs,
    word: &'a str,
    op_pos: Pos,
}

impl InstParser<'_, '_> {
    fn value(&mut self) -> Result<Value, ParseError> {
        let (n, pos) = self.cur.value("a value operand")?;
        self.refs.values.push((n, pos));
        Ok(Value::new(n as usize))
    }

    fn block(&mut self, what: &str) -> Result<Block, ParseError> {
        let (n, pos) = self.cur.block(what)?;
        self.refs.blocks.push((n, pos));
        Ok(Block::new(n as usize))
    }

    /// A word naming one variant of `T` (a condition code or an atomic operation).
    fn word<T: core::str::FromStr>(&mut self, what: &str) -> Result<T, ParseError> {
        if let crate::parser::lexer::Tok::Ident(w) = self.cur.peek()?.tok {
            if let Ok(x) = w.parse::<T>() {
                self.cur.next()?;
                return Ok(x);
            }
        }
        Err(self.cur.expected(what))
    }

    /// Flag words (`nuw nsw`, `exact`, …) after a mnemonic; each must be in `allowed`.
    fn flags(&mut self, allowed: IntFlags) -> Result<IntFlags, ParseError> {
        let mut flags = IntFlags::NONE;
        while let crate::parser::lexer::Tok::Ident(w) = self.cur.peek()?.tok {
            let Some(f) = IntFlags::from_word(w) else {
                break;
            };
            if !allowed.contains(f) {
                let pos = self.cur.pos()?;
                return Err(ParseError::new(
                    pos,
                    format!("flag '{w}' does not apply to '{}'", self.word),
                ));
            }
            self.cur.next()?;
            flags = flags.union(f);
        }
        Ok(flags)
    }

    /// `(v1, v2, ...)` after a callee.
    fn call_args(&mut self) -> Result<Vec<Value>, ParseError> {
        self.cur.expect_punct('(', "'(' after the callee")?;
        let mut args = Vec::new();
        if !self.cur.eat_punct(')')? {
            loop {
                args.push(self.value()?);
                if self.cur.eat_punct(')')? {
                    break;
                }
                self.cur
                    .expect_punct(',', "',' or ')' after call argument")?;
            }
        }
        Ok(args)
    }

    /// The access words of a load or store (`volatile`, `singlethread`, an ordering),
    /// checked against the orderings the operation allows.
    fn access(&mut self) -> Result<MemAccess, ParseError> {
        let pos = self.cur.pos()?;
        let mut access = MemAccess::PLAIN;
        while let crate::parser::lexer::Tok::Ident(w) = self.cur.peek()?.tok {
            if !access.absorb_word(w) {
                break;
            }
            self.cur.next()?;
        }
        if let Some(o) = access.ordering() {
            let ok = match self.word {
                "load" => o.valid_for_load(),
                "store" => o.valid_for_store(),
                _ => o.valid_for_rmw(),
            };
            if !ok {
                return Err(ParseError::new(
                    pos,
                    format!("'{}' cannot have ordering '{o}'", self.word),
                ));
            }
        }
        Ok(access)
    }

    /// The access of an atomic read-modify-write or compare-and-swap: like [`Self::access`],
    /// but always atomic (`seq_cst` when no ordering is written); stops before a second
    /// ordering (a compare-and-swap's failure ordering).
    fn atomic_access(&mut self) -> Result<MemAccess, ParseError> {
        let pos = self.cur.pos()?;
        let mut access = MemAccess::PLAIN;
        let mut ordered = false;
        while let crate::parser::lexer::Tok::Ident(w) = self.cur.peek()?.tok {
            let is_ordering = w.parse::<Ordering>().is_ok();
            if (ordered && is_ordering) || !access.absorb_word(w) {
                break;
            }
            ordered |= is_ordering;
            self.cur.next()?;
        }
        let atomic = access.atomic.get_or_insert(Atomic::new(Ordering::SeqCst));
        if !atomic.ordering.valid_for_rmw() {
            return Err(ParseError::new(
                pos,
                format!("'{}' cannot have ordering '{}'", self.word, atomic.ordering),
            ));
        }
        Ok(access)
    }

    /// Comma-separated values up to the end of the line or a trailing `align`.
    fn value_list(&mut self) -> Result<Vec<Value>, ParseError> {
        let mut out = Vec::new();
        if self.cur.at_line_end()? {
            return Ok(out);
        }
        loop {
            out.push(self.value()?);
            if self.cur.at_line_end()? || self.cur.at_ident("align")? {
                return Ok(out);
            }
            self.cur.expect_punct(',', "',' after operand")?;
        }
    }

    /// Exactly `N` comma-separated values.
    fn values<const N: usize>(&mut self) -> Result<[Value; N], ParseError> {
        let list = self.value_list()?;
        let found = list.len();
        list.try_into().map_err(|_| self.count_error(N, found))
    }

    fn count_error(&self, want: usize, found: usize) -> ParseError {
        let plural = if want == 1 { "" } else { "s" };
        ParseError::new(
            self.op_pos,
            format!(
                "'{}' takes {want} operand{plural}, found {found}",
                self.word
            ),
        )
    }

    /// An optional `align N`.
    fn align(&mut self) -> Result<u32, ParseError> {
        if self.cur.eat_ident("align")? {
            return Ok(self.cur.int::<u32>("an alignment in bytes")?.0);
        }
        Ok(0)
    }

    /// `[blockN: vM], ...` (possibly none).
    fn phi_pairs(&mut self) -> Result<Vec<(Block, Value)>, ParseError> {
        let mut out = Vec::new();
        if self.cur.at_line_end()? {
            return Ok(out);
        }
        loop {
            self.cur
                .expect_punct('[', "'[' to start a phi incoming pair")?;
            let block = self.block("a predecessor block")?;
            self.cur
                .expect_punct(':', "':' after the predecessor block")?;
            let value = self.value()?;
            self.cur.expect_punct(']', "']' after the incoming value")?;
            out.push((block, value));
            if !self.cur.eat_punct(',')? {
                return Ok(out);
            }
        }
    }

    /// `vN, [k: blockA, ...], blockD`.
    fn switch(&mut self) -> Result<InstData, ParseError> {
        let arg = self.value()?;
        self.cur.expect_punct(',', "',' after the switch operand")?;
        self.cur
            .expect_punct('[', "'[' to start the switch cases")?;
        let mut cases = Vec::new();
        if !self.cur.eat_punct(']')? {
            loop {
                let (k, _) = self.cur.int::<i64>("a case value (an i64)")?;
                self.cur.expect_punct(':', "':' after the case value")?;
                cases.push((k, self.block("a case destination block")?));
                if self.cur.eat_punct(']')? {
                    break;
                }
                self.cur.expect_punct(',', "',' or ']' after switch case")?;
            }
        }
        self.cur
            .expect_punct(',', "',' before the default destination")?;
        let default = self.block("the default destination block")?;
        Ok(InstData::Switch {
            arg,
            cases,
            default,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mnemonic_is_found_and_unique() {
        let mut names = std::collections::HashSet::new();
        let mut check = |name: &'static str| {
            assert!(lookup(name).is_some(), "{name}");
            assert!(names.insert(name), "mnemonic {name} is ambiguous");
        };
        BinaryOp::ALL.iter().for_each(|o| check(o.name()));
        UnaryOp::ALL.iter().for_each(|o| check(o.name()));
        CastOp::ALL.iter().for_each(|o| check(o.name()));
        Intrinsic::ALL.iter().for_each(|o| check(o.name()));
        WorkItemQuery::ALL.iter().for_each(|o| check(o.name()));
        assert_eq!(lookup("frobnicate"), None);
    }
}
