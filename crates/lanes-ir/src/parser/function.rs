//! Parsing a function definition and building its data-flow graph and layout.
//!
//! The parser preserves the entity numbers written in the text: `v7` becomes `Value` 7 and
//! `block3` becomes `Block` 3, so that a printed function parses back to the same text and
//! error messages of later passes name what the user wrote. To do so it first reads the
//! whole body (φ operands and uses inside loops refer forward), then allocates every value
//! and block index up to the largest one defined. Indices the text does not define are
//! filled like what a pass leaves behind when it deletes code: a gap block is never placed
//! in the layout, and a gap value is the result of an unplaced `iconst 0`. Indices are
//! capped ([`MAX_ENTITY_INDEX`]) and a module has a budget of entities, so a short text
//! cannot make the parser allocate gigabytes.
//!
//! Checks made here: every used value is defined exactly once (as a parameter or a
//! result), every block label is defined once, every branch or φ names a defined block,
//! and instructions appear only after a block label. Types and dominance are the
//! verifier's.

use std::collections::HashMap;

use cranelift_entity::EntityRef;

use crate::dfg::{ValueData, ValueDef};
use crate::entities::{Block, Inst, Value};
use crate::flags::FastMath;
use crate::function::{
    AbiAttrs, FuncAbi, FuncAttrs, Function, LoopHint, LoopMd, Param, ParamAttrs, Shape,
};
use crate::instructions::InstData;
use crate::parser::cursor::{entity_index, Cursor};
use crate::parser::error::{ParseError, Pos};
use crate::parser::inst::{parse_inst, NameKind, Refs, ResultText};
use crate::parser::lexer::Tok;
use crate::types::Type;

#[cfg(doc)]
use crate::parser::cursor::MAX_ENTITY_INDEX;

/// How many values and blocks (gaps included) one module may allocate in total.
pub const MODULE_ENTITY_BUDGET: usize = 1 << 21;

/// A module-level name used by an instruction of a parsed function.
pub struct PendingName {
    pub inst: Inst,
    pub kind: NameKind,
    pub name: String,
    pub pos: Pos,
}

/// A function built from text, with the names its instructions still have to resolve.
pub struct ParsedFunction {
    pub func: Function,
    pub names: Vec<PendingName>,
}

/// What defines a value number in the text.
#[derive(Clone, Copy)]
enum Def {
    Param(usize),
    Result,
}

/// One instruction as read, before entities are allocated.
struct InstRecord {
    data: InstData,
    result: Option<(u32, Type)>,
    block: u32,
    name_ref: Option<(NameKind, String, Pos)>,
    fast_math: FastMath,
}

#[derive(Default)]
struct Body {
    defs: HashMap<u32, (Def, Type, Pos)>,
    labels: HashMap<u32, Pos>,
    order: Vec<u32>,
    insts: Vec<InstRecord>,
    refs: Refs,
}

impl Body {
    fn define(&mut self, n: u32, def: Def, ty: Type, pos: Pos) -> Result<(), ParseError> {
        if let Some(&(_, _, first)) = self.defs.get(&n) {
            return Err(ParseError::new(
                pos,
                format!("value 'v{n}' is defined twice (first definition at {first})"),
            ));
        }
        self.defs.insert(n, (def, ty, pos));
        Ok(())
    }
}

/// Parses the rest of a function definition after `function @name`: parameters, return
/// type, `kernel`, and the body in braces. `budget` is what is left of the module's
/// entity budget and is charged for this function's values and blocks.
pub fn parse_function_rest(
    cur: &mut Cursor<'_>,
    name: String,
    name_pos: Pos,
    budget: &mut usize,
) -> Result<ParsedFunction, ParseError> {
    let mut body = Body::default();
    let mut params = Vec::new();
    let mut abi = FuncAbi::default();
    cur.expect_punct('(', "'(' after the function name")?;
    cur.skip_newlines()?;
    if !cur.eat_punct(')')? {
        loop {
            let (n, pos) = cur.value("a parameter 'vN: type'")?;
            cur.expect_punct(':', "':' after the parameter value")?;
            let (ty, _) = cur.ty("a parameter type")?;
            let attrs = param_attrs(cur)?;
            abi.params.push(abi_attrs(cur)?);
            body.define(n, Def::Param(params.len()), ty, pos)?;
            params.push((n, attrs));
            cur.skip_newlines()?;
            if cur.eat_punct(')')? {
                break;
            }
            cur.expect_punct(',', "',' or ')' after parameter")?;
            cur.skip_newlines()?;
        }
    }
    let ret = if cur.peek()?.tok == Tok::Arrow {
        cur.next()?;
        let ty = cur.ty("a return type after '->'")?.0;
        abi.ret = abi_attrs(cur)?;
        Some(ty)
    } else {
        None
    };
    let kernel = cur.eat_ident("kernel")?;
    let noinline = cur.eat_ident("noinline")?;
    while cur.eat_ident("loopmd")? {
        abi.loops.push(loop_md(cur, &mut body)?);
    }
    if abi.params.iter().all(AbiAttrs::is_default) {
        abi.params.clear();
    }
    cur.expect_punct('{', "'{' to start the function body")?;
    parse_body(cur, &mut body)?;

    let mut func = Function {
        name,
        ret,
        attrs: FuncAttrs { kernel, noinline },
        abi,
        ..Default::default()
    };
    let names = build(&mut func, body, params, name_pos, budget)?;
    Ok(ParsedFunction { func, names })
}

fn param_attrs(cur: &mut Cursor<'_>) -> Result<ParamAttrs, ParseError> {
    let shape = if cur.eat_ident("uniform")? {
        Some(Shape::Uniform)
    } else if cur.eat_ident("contiguous")? {
        Some(Shape::Contiguous)
    } else if cur.eat_ident("varying")? {
        Some(Shape::Varying)
    } else if cur.eat_ident("strided")? {
        cur.expect_punct('(', "'(' after 'strided'")?;
        let (stride, _) = cur.int::<i64>("a stride (an i64)")?;
        cur.expect_punct(')', "')' after the stride")?;
        Some(Shape::Strided(stride))
    } else {
        None
    };
    let align = if cur.eat_ident("align")? {
        cur.int::<u32>("an alignment in bytes")?.0
    } else {
        0
    };
    Ok(ParamAttrs { shape, align })
}

/// Reads C ABI attributes after a parameter or return type: `signext`, `zeroext`,
/// `noalias`, `byval(N)`, `sret(N)`.
fn abi_attrs(cur: &mut Cursor<'_>) -> Result<AbiAttrs, ParseError> {
    let mut abi = AbiAttrs::default();
    loop {
        if cur.eat_ident("signext")? {
            abi.signext = true;
        } else if cur.eat_ident("zeroext")? {
            abi.zeroext = true;
        } else if cur.eat_ident("noalias")? {
            abi.noalias = true;
        } else if cur.eat_ident("byval")? {
            abi.byval = Some(size_in_parens(cur, "byval")?);
        } else if cur.eat_ident("sret")? {
            abi.sret = Some(size_in_parens(cur, "sret")?);
        } else {
            return Ok(abi);
        }
    }
}

fn size_in_parens(cur: &mut Cursor<'_>, what: &str) -> Result<u64, ParseError> {
    cur.expect_punct('(', &format!("'(' after '{what}'"))?;
    let (n, _) = cur.int::<u64>("a size in bytes")?;
    cur.expect_punct(')', "')' after the size")?;
    Ok(n)
}

/// Reads `(blockN: hint, hint value, …)` after `loopmd`.
fn loop_md(cur: &mut Cursor<'_>, body: &mut Body) -> Result<LoopMd, ParseError> {
    cur.expect_punct('(', "'(' after 'loopmd'")?;
    let (latch, pos) = cur.block("the latch block of the loop metadata")?;
    body.refs.blocks.push((latch, pos));
    let mut hints = Vec::new();
    if cur.eat_punct(':')? {
        loop {
            let name = cur.ident("a loop hint name")?.0.to_string();
            let closing = |cur: &mut Cursor<'_>| -> Result<Option<bool>, ParseError> {
                if cur.eat_punct(',')? {
                    Ok(Some(false))
                } else if cur.eat_punct(')')? {
                    Ok(Some(true))
                } else {
                    Ok(None)
                }
            };
            let (value, done) = match closing(cur)? {
                Some(done) => (None, done),
                None => {
                    let n = cur.int::<i64>("a loop hint value, ',' or ')'")?.0;
                    match closing(cur)? {
                        Some(done) => (Some(n), done),
                        None => return Err(cur.expected("',' or ')' after a loop hint")),
                    }
                }
            };
            hints.push(LoopHint { name, value });
            if done {
                break;
            }
        }
    } else {
        cur.expect_punct(')', "':' or ')' after the latch block")?;
    }
    Ok(LoopMd {
        latch: Block::new(latch as usize),
        hints,
    })
}

/// Reads block labels and instructions up to the closing brace.
fn parse_body(cur: &mut Cursor<'_>, body: &mut Body) -> Result<(), ParseError> {
    let mut current: Option<u32> = None;
    loop {
        cur.skip_newlines()?;
        let tok = cur.peek()?;
        let word = match tok.tok {
            Tok::Punct('}') => {
                cur.next()?;
                return Ok(());
            }
            Tok::Eof => return Err(cur.expected("'}' to close the function body")),
            Tok::Ident(word) => Some(word),
            _ => None,
        };
        if word.is_some_and(|w| entity_index(w, "block").is_some()) {
            let (label, pos) = cur.block("a block label")?;
            cur.expect_punct(':', "':' after the block label")?;
            cur.expect_line_end("after the block label")?;
            if let Some(first) = body.labels.insert(label, pos) {
                return Err(ParseError::new(
                    pos,
                    format!("block 'block{label}' is defined twice (first definition at {first})"),
                ));
            }
            body.order.push(label);
            current = Some(label);
            continue;
        }
        let Some(block) = current else {
            return Err(cur.expected("a block label 'blockN:' before the first instruction"));
        };
        let result: ResultText = if word.is_some_and(|w| entity_index(w, "v").is_some()) {
            let (n, pos) = cur.value("a result value")?;
            cur.expect_punct(':', &format!("':' and the result type after 'v{n}'"))?;
            let (ty, _) = cur.ty("a result type")?;
            cur.expect_punct('=', "'=' after the result type")?;
            Some((n, ty, pos))
        } else {
            None
        };
        let text = parse_inst(cur, result, &mut body.refs)?;
        if let Some((n, ty, pos)) = result {
            body.define(n, Def::Result, ty, pos)?;
        }
        body.insts.push(InstRecord {
            data: text.data,
            result: result.map(|(n, ty, _)| (n, ty)),
            block,
            name_ref: text.name_ref,
            fast_math: text.fast_math,
        });
    }
}

/// Checks references and allocates values, blocks and instructions with the numbers of
/// the text.
fn build(
    func: &mut Function,
    body: Body,
    params: Vec<(u32, ParamAttrs)>,
    name_pos: Pos,
    budget: &mut usize,
) -> Result<Vec<PendingName>, ParseError> {
    for &(n, pos) in &body.refs.values {
        if !body.defs.contains_key(&n) {
            return Err(ParseError::new(
                pos,
                format!("use of undefined value 'v{n}'"),
            ));
        }
    }
    for &(n, pos) in &body.refs.blocks {
        if !body.labels.contains_key(&n) {
            return Err(ParseError::new(pos, format!("undefined block 'block{n}'")));
        }
    }
    let num_values = body.defs.keys().max().map_or(0, |&m| m as usize + 1);
    let num_blocks = body.labels.keys().max().map_or(0, |&m| m as usize + 1);
    let needed = num_values + num_blocks;
    if needed > *budget {
        let mut shown = String::new();
        // Writing to a String cannot fail.
        let _ = crate::write::write_name(&mut shown, &func.name);
        return Err(ParseError::new(
            name_pos,
            format!(
                "function '{shown}' numbers its values and blocks up to {needed} entities, more \
                 than the {budget} left of the parser's limit for one module"
            ),
        ));
    }
    *budget -= needed;

    let dfg = &mut func.dfg;
    for index in 0..num_values {
        let (ty, def) = match u32::try_from(index).ok().and_then(|n| body.defs.get(&n)) {
            Some(&(Def::Param(i), ty, _)) => (ty, ValueDef::Param(i)),
            // Placeholder definitions, replaced below.
            Some(&(Def::Result, ty, _)) => (ty, ValueDef::Param(0)),
            None => (Type::I32, ValueDef::Param(0)),
        };
        let v = dfg.make_value(ValueData { ty, def });
        debug_assert_eq!(v.index(), index);
    }
    for _ in 0..num_blocks {
        dfg.make_block();
    }
    for &label in &body.order {
        func.layout.append_block(Block::new(label as usize));
    }
    func.params = params
        .into_iter()
        .map(|(n, attrs)| Param {
            value: Value::new(n as usize),
            attrs,
        })
        .collect();

    let mut names = Vec::new();
    for record in body.insts {
        let inst = func.dfg.make_inst(record.data, None);
        func.dfg.set_fast_math(inst, record.fast_math);
        if let Some((n, _)) = record.result {
            let v = Value::new(n as usize);
            func.dfg.set_result(inst, Some(v));
            func.dfg.value_data_mut(v).def = ValueDef::Result(inst);
        }
        func.layout
            .append_inst(inst, Block::new(record.block as usize));
        if let Some((kind, name, pos)) = record.name_ref {
            names.push(PendingName {
                inst,
                kind,
                name,
                pos,
            });
        }
    }
    for index in 0..num_values {
        let defined = u32::try_from(index)
            .ok()
            .is_some_and(|n| body.defs.contains_key(&n));
        if !defined {
            let v = Value::new(index);
            let inst = func.dfg.make_inst(InstData::Iconst { imm: 0 }, None);
            func.dfg.set_result(inst, Some(v));
            func.dfg.value_data_mut(v).def = ValueDef::Result(inst);
        }
    }
    Ok(names)
}
