//! The `.lir` text format: parser.
//!
//! [`parse_module`] reads everything [`crate::write`] prints: globals, external
//! declarations and function definitions, in any order, with `;` comments and blank lines
//! anywhere between items and instructions. The text format is a faithful serialization
//! (tests and filetests would otherwise check something else than what runs): for every
//! module `m`, `print(parse(print(m))) ==
//! print(m)`, value and block numbers included (`tests/it/roundtrip.rs` checks it over every
//! instruction and over generated functions).
//!
//! The parser is split by concept:
//! - [`error`]: [`ParseError`] with 1-based line and column;
//! - `lexer`: tokens, including line ends (an instruction ends at its line's end);
//! - `cursor`: lookahead, "expected X, found Y" errors, literals and types;
//! - `inst`: one instruction;
//! - `function`: a function definition, entity numbering, reference checks;
//! - this file: module items and name resolution.
//!
//! Names are resolved in a second pass over the module, so a function may call a function
//! or take the address of a global declared further down the file. Malformed input is an
//! error, never a panic (the `fuzz/` target `parse` checks this); the first error found is
//! reported.

mod cursor;
pub mod error;
mod function;
mod inst;
mod lexer;

use std::collections::HashMap;

use crate::entities::{FuncId, GlobalId};
use crate::function::Signature;
use crate::instructions::InstData;
use crate::module::{GlobalData, Module};
use crate::types::AddrSpace;

pub use cursor::MAX_ENTITY_INDEX;
pub use error::{ParseError, Pos};
pub use function::MODULE_ENTITY_BUDGET;

use cursor::Cursor;
use function::{parse_function_rest, PendingName};
use inst::NameKind;
use lexer::Tok;

/// Parses a whole module.
pub fn parse_module(src: &str) -> Result<Module, ParseError> {
    parse_module_with_end(src).map(|(module, _)| module)
}

/// Parses a module and returns it with its first defined function (the usual shape of a
/// test or a filetest: one function, perhaps with the declarations it calls).
pub fn parse_function(src: &str) -> Result<(Module, FuncId), ParseError> {
    let (module, end) = parse_module_with_end(src)?;
    let first = module.functions().map(|(id, _)| id).next();
    match first {
        Some(id) => Ok((module, id)),
        None => Err(ParseError::new(
            end,
            "expected a function definition, found end of file",
        )),
    }
}

/// The module and the position of the end of the text.
fn parse_module_with_end(src: &str) -> Result<(Module, Pos), ParseError> {
    let mut p = ModuleParser {
        cur: Cursor::new(src),
        module: Module::new(),
        funcs: HashMap::new(),
        globals: HashMap::new(),
        pending: Vec::new(),
        budget: MODULE_ENTITY_BUDGET,
    };
    let end = loop {
        p.cur.skip_newlines()?;
        let (tok, pos) = {
            let t = p.cur.peek()?;
            (t.tok.clone(), t.pos)
        };
        match tok {
            Tok::Eof => break pos,
            Tok::Ident("global") => p.global()?,
            Tok::Ident("declare") => p.declare()?,
            Tok::Ident("function") => p.function()?,
            _ => return Err(p.cur.expected("'global', 'declare' or 'function'")),
        }
    };
    p.resolve()?;
    Ok((p.module, end))
}

struct ModuleParser<'a> {
    cur: Cursor<'a>,
    module: Module,
    funcs: HashMap<String, Pos>,
    globals: HashMap<String, Pos>,
    /// Names used by instructions of each defined function, resolved at the end.
    pending: Vec<(FuncId, Vec<PendingName>)>,
    budget: usize,
}

impl ModuleParser<'_> {
    /// Records a module-level name, rejecting a second definition of it.
    fn claim(&mut self, kind: NameKind, name: &str, pos: Pos) -> Result<(), ParseError> {
        let (table, what) = match kind {
            NameKind::Func => (&mut self.funcs, "function"),
            NameKind::Global => (&mut self.globals, "global"),
        };
        if let Some(first) = table.insert(name.to_string(), pos) {
            let mut shown = String::new();
            // Writing to a String cannot fail.
            let _ = crate::write::write_name(&mut shown, name);
            return Err(ParseError::new(
                pos,
                format!("{what} '{shown}' is defined twice (first definition at {first})"),
            ));
        }
        Ok(())
    }

    /// `global @name size N align N [const] [space N] [init x"hex"]`
    fn global(&mut self) -> Result<(), ParseError> {
        self.cur.next()?;
        let (name, pos) = self.cur.name("a global name '@...'")?;
        self.claim(NameKind::Global, &name, pos)?;
        self.cur
            .expect_ident("size", "'size' after the global name")?;
        let (size, _) = self.cur.int::<u64>("a size in bytes")?;
        self.cur
            .expect_ident("align", "'align' after the global size")?;
        let (align, _) = self.cur.int::<u32>("an alignment in bytes")?;
        let constant = self.cur.eat_ident("const")?;
        let space = if self.cur.eat_ident("space")? {
            AddrSpace(self.cur.int::<u8>("an address space number (0 to 255)")?.0)
        } else {
            AddrSpace::PRIVATE
        };
        let init = if self.cur.eat_ident("init")? {
            let t = self.cur.next()?;
            let Tok::Bytes(bytes) = t.tok else {
                return Err(ParseError::new(
                    t.pos,
                    format!(
                        "expected initial bytes x\"...\" after 'init', found {}",
                        t.describe()
                    ),
                ));
            };
            if u64::try_from(bytes.len()).ok() != Some(size) {
                return Err(ParseError::new(
                    t.pos,
                    format!(
                        "init has {} bytes but the global's size is {size}",
                        bytes.len()
                    ),
                ));
            }
            Some(bytes)
        } else {
            None
        };
        self.cur.expect_line_end("after the global")?;
        self.module.add_global(GlobalData {
            name,
            size,
            align,
            init,
            constant,
            space,
        });
        Ok(())
    }

    /// `declare @name(type, ...) [-> type] [variadic]`
    fn declare(&mut self) -> Result<(), ParseError> {
        self.cur.next()?;
        let (name, pos) = self.cur.name("a function name '@...'")?;
        self.claim(NameKind::Func, &name, pos)?;
        self.cur.expect_punct('(', "'(' after the function name")?;
        self.cur.skip_newlines()?;
        let mut params = Vec::new();
        if !self.cur.eat_punct(')')? {
            loop {
                params.push(self.cur.ty("a parameter type")?.0);
                self.cur.skip_newlines()?;
                if self.cur.eat_punct(')')? {
                    break;
                }
                self.cur
                    .expect_punct(',', "',' or ')' after parameter type")?;
                self.cur.skip_newlines()?;
            }
        }
        let ret = if self.cur.peek()?.tok == Tok::Arrow {
            self.cur.next()?;
            Some(self.cur.ty("a return type after '->'")?.0)
        } else {
            None
        };
        let variadic = self.cur.eat_ident("variadic")?;
        self.cur.expect_line_end("after the declaration")?;
        self.module.declare(
            name,
            Signature {
                params,
                ret,
                variadic,
            },
        );
        Ok(())
    }

    /// `function @name(params) [-> type] [kernel] { body }`
    fn function(&mut self) -> Result<(), ParseError> {
        self.cur.next()?;
        let (name, pos) = self.cur.name("a function name '@...'")?;
        self.claim(NameKind::Func, &name, pos)?;
        let parsed = parse_function_rest(&mut self.cur, name, pos, &mut self.budget)?;
        self.cur
            .expect_line_end("after the closing '}' of the function")?;
        let id = self.module.define(parsed.func);
        self.pending.push((id, parsed.names));
        Ok(())
    }

    /// The second pass: points calls and `global_addr`s at the items they name.
    fn resolve(&mut self) -> Result<(), ParseError> {
        let funcs: HashMap<&str, FuncId> = self
            .module
            .funcs
            .iter()
            .map(|(id, f)| (f.name(), id))
            .collect();
        let globals: HashMap<&str, GlobalId> = self
            .module
            .globals
            .iter()
            .map(|(id, g)| (g.name.as_str(), id))
            .collect();
        let mut patches = Vec::new();
        for (id, names) in &self.pending {
            for n in names {
                let target = match n.kind {
                    NameKind::Func => funcs.get(n.name.as_str()).copied().map(Target::Func),
                    NameKind::Global => globals.get(n.name.as_str()).copied().map(Target::Global),
                };
                let Some(patch) = target else {
                    let what = match n.kind {
                        NameKind::Func => "function",
                        NameKind::Global => "global",
                    };
                    let mut shown = String::new();
                    // Writing to a String cannot fail.
                    let _ = crate::write::write_name(&mut shown, &n.name);
                    return Err(ParseError::new(n.pos, format!("unknown {what} '{shown}'")));
                };
                patches.push((*id, n.inst, patch));
            }
        }
        for (id, inst, patch) in patches {
            let Some(func) = self.module.function_mut(id) else {
                continue;
            };
            match (func.dfg.inst_mut(inst), patch) {
                (InstData::Call { func, .. }, Target::Func(f))
                | (InstData::FuncAddr { func }, Target::Func(f)) => *func = f,
                (InstData::GlobalAddr { global }, Target::Global(g)) => *global = g,
                _ => {}
            }
        }
        Ok(())
    }
}

/// What a pending name resolved to.
#[derive(Clone, Copy)]
enum Target {
    Func(FuncId),
    Global(GlobalId),
}
