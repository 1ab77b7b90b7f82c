//! The `.lir` text format: printer.
//!
//! The syntax follows Cranelift's text IR in spirit (`block3:`, `v7`) with LLVM's spelling
//! of operations. Every instruction with a result states the result's type, so a reader
//! (and the parser) knows every value's type without inference:
//!
//! ```text
//! global @tbl size 8 align 4 const init x"0100000002000000"
//! declare @sinf(f32) -> f32
//!
//! function @saxpy(v0: f32 uniform, v1: ptr uniform align 16, v2: i64 contiguous) kernel {
//! block0:
//!     v3: i64 = iconst 2
//!     v4: i64 = shl v2, v3
//!     v5: ptr = ptradd v1, v4
//!     v6: f32 = load v5 align 4
//!     v7: f32 = fmul v0, v6
//!     store v7, v5 align 4
//!     ret
//! }
//! ```
//!
//! Integer flags follow the mnemonic as in LLVM (`v3: i32 = add nsw v1, v2`, `zext nneg`,
//! [`crate::flags`]).
//!
//! Float constants print as the shortest decimal that reads back to the same bits, NaNs
//! as their raw bits in hex (`fconst 0x7fc00000`). Names that are not plain identifiers
//! print quoted (`@"operator()"`). `parse(print(f))` prints as `print(f)`.

use core::fmt::{self, Write};

use crate::entities::{Block, FuncId, Inst};
use crate::function::{AbiAttrs, Function, ParamAttrs};
use crate::instructions::InstData;
use crate::memory_order::{Ordering, SyncScope};
use crate::module::{FuncEntry, GlobalData, Module};
use crate::types::{ScalarType, Type};

/// Is `name` printable without quotes after `@`?
pub fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$'))
}

/// Writes `@name`, quoted and escaped if needed.
pub fn write_name(w: &mut dyn Write, name: &str) -> fmt::Result {
    if is_plain_name(name) {
        return write!(w, "@{name}");
    }
    w.write_str("@\"")?;
    for c in name.chars() {
        match c {
            '"' => w.write_str("\\\"")?,
            '\\' => w.write_str("\\\\")?,
            c if (' '..='~').contains(&c) => w.write_char(c)?,
            c => write!(w, "\\u{{{:x}}}", c as u32)?,
        }
    }
    w.write_char('"')
}

/// Formats a float constant of element type `elem` from its raw bits.
pub fn format_float(elem: ScalarType, bits: u64) -> String {
    match elem {
        ScalarType::F32 => {
            let x = f32::from_bits(bits as u32);
            if x.is_nan() {
                format!("0x{:08x}", bits as u32)
            } else {
                format!("{x:?}")
            }
        }
        _ => {
            let x = f64::from_bits(bits);
            if x.is_nan() {
                format!("0x{bits:016x}")
            } else {
                format!("{x:?}")
            }
        }
    }
}

/// Prints a whole module: globals, declarations, then function definitions.
pub fn write_module(w: &mut dyn Write, module: &Module) -> fmt::Result {
    let mut first = true;
    for global in module.globals.values() {
        write_global(w, global)?;
        first = false;
    }
    for entry in module.funcs.values() {
        if let FuncEntry::Declared(d) = entry {
            w.write_str("declare ")?;
            write_name(w, &d.name)?;
            w.write_char('(')?;
            for (i, ty) in d.sig.params.iter().enumerate() {
                if i > 0 {
                    w.write_str(", ")?;
                }
                write!(w, "{ty}")?;
            }
            w.write_char(')')?;
            if let Some(ret) = d.sig.ret {
                write!(w, " -> {ret}")?;
            }
            if d.sig.variadic {
                w.write_str(" variadic")?;
            }
            w.write_char('\n')?;
            first = false;
        }
    }
    for entry in module.funcs.values() {
        if let FuncEntry::Defined(func) = entry {
            if !first {
                w.write_char('\n')?;
            }
            write_function(w, module, func)?;
            first = false;
        }
    }
    Ok(())
}

fn write_global(w: &mut dyn Write, g: &GlobalData) -> fmt::Result {
    w.write_str("global ")?;
    write_name(w, &g.name)?;
    write!(w, " size {} align {}", g.size, g.align)?;
    if g.constant {
        w.write_str(" const")?;
    }
    if g.space.0 != 0 {
        write!(w, " space {}", g.space.0)?;
    }
    if let Some(init) = &g.init {
        w.write_str(" init x\"")?;
        for byte in init {
            write!(w, "{byte:02x}")?;
        }
        w.write_char('"')?;
    }
    w.write_char('\n')
}

fn write_param_attrs(w: &mut dyn Write, attrs: &ParamAttrs) -> fmt::Result {
    if let Some(shape) = attrs.shape {
        write!(w, " {shape}")?;
    }
    if attrs.align != 0 {
        write!(w, " align {}", attrs.align)?;
    }
    Ok(())
}

/// Prints C ABI attributes (` signext`, ` byval(12)`, …), kept from an LLVM import.
fn write_abi_attrs(w: &mut dyn Write, abi: &AbiAttrs) -> fmt::Result {
    for (on, word) in [
        (abi.signext, "signext"),
        (abi.zeroext, "zeroext"),
        (abi.noalias, "noalias"),
    ] {
        if on {
            write!(w, " {word}")?;
        }
    }
    if let Some(n) = abi.byval {
        write!(w, " byval({n})")?;
    }
    if let Some(n) = abi.sret {
        write!(w, " sret({n})")?;
    }
    Ok(())
}

/// Prints one function. Calls and globals are named through `module`.
pub fn write_function(w: &mut dyn Write, module: &Module, func: &Function) -> fmt::Result {
    w.write_str("function ")?;
    write_name(w, &func.name)?;
    w.write_char('(')?;
    for (i, p) in func.params.iter().enumerate() {
        if i > 0 {
            w.write_str(", ")?;
        }
        write!(w, "{}: {}", p.value, func.dfg.value_type(p.value))?;
        write_param_attrs(w, &p.attrs)?;
        write_abi_attrs(w, &func.abi.param(i))?;
    }
    w.write_char(')')?;
    if let Some(ret) = func.ret {
        write!(w, " -> {ret}")?;
        write_abi_attrs(w, &func.abi.ret)?;
    }
    if func.attrs.kernel {
        w.write_str(" kernel")?;
    }
    if func.attrs.noinline {
        w.write_str(" noinline")?;
    }
    for md in &func.abi.loops {
        write!(w, " loopmd({}", md.latch)?;
        for (i, hint) in md.hints.iter().enumerate() {
            w.write_str(if i == 0 { ": " } else { ", " })?;
            w.write_str(&hint.name)?;
            if let Some(n) = hint.value {
                write!(w, " {n}")?;
            }
        }
        w.write_char(')')?;
    }
    w.write_str(" {\n")?;
    for block in func.layout.blocks() {
        writeln!(w, "{block}:")?;
        for &inst in func.layout.block_insts(block) {
            w.write_str("    ")?;
            write_inst(w, module, func, inst)?;
            w.write_char('\n')?;
        }
    }
    w.write_str("}\n")
}

/// `@name` of a function of the module (its entity number if it is not there).
fn write_callee(w: &mut dyn Write, module: &Module, callee: FuncId) -> fmt::Result {
    match module.funcs.get(callee) {
        Some(f) => write_name(w, f.name()),
        None => write!(w, "{callee}"),
    }
}

fn write_align(w: &mut dyn Write, align: u32) -> fmt::Result {
    if align != 0 {
        write!(w, " align {align}")?;
    }
    Ok(())
}

fn write_list<T: fmt::Display>(w: &mut dyn Write, items: &[T]) -> fmt::Result {
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            w.write_str(", ")?;
        }
        write!(w, "{x}")?;
    }
    Ok(())
}

/// Prints one instruction without indentation or newline.
pub fn write_inst(w: &mut dyn Write, module: &Module, func: &Function, inst: Inst) -> fmt::Result {
    let data = func.dfg.inst(inst);
    let result = func.dfg.inst_result(inst);
    let result_ty = result.map(|v| func.dfg.value_type(v));
    if let (Some(v), Some(ty)) = (result, result_ty) {
        write!(w, "{v}: {ty} = ")?;
    }
    w.write_str(data.opcode_name())?;
    write!(w, "{}", func.dfg.fast_math(inst))?;
    match data {
        InstData::Iconst { imm } => write!(w, " {imm}"),
        InstData::Fconst { bits } => {
            let elem = result_ty.map_or(ScalarType::F64, Type::elem);
            write!(w, " {}", format_float(elem, *bits))
        }
        InstData::Unary { arg, .. } => write!(w, " {arg}"),
        InstData::Cast { arg, flags, .. } => write!(w, "{flags} {arg}"),
        InstData::Binary { args, flags, .. } => write!(w, "{flags} {}, {}", args[0], args[1]),
        InstData::PtrAdd { args, flags } => write!(w, "{flags} {}, {}", args[0], args[1]),
        InstData::Icmp { cond, args } => write!(w, " {cond} {}, {}", args[0], args[1]),
        InstData::Fcmp { cond, args } => write!(w, " {cond} {}, {}", args[0], args[1]),
        InstData::Select { args } => write!(w, " {}, {}, {}", args[0], args[1], args[2]),
        InstData::Phi { incoming } => {
            for (i, (block, v)) in incoming.iter().enumerate() {
                w.write_str(if i == 0 { " " } else { ", " })?;
                write!(w, "[{block}: {v}]")?;
            }
            Ok(())
        }
        InstData::Alloca { size, align } => {
            write!(w, " {size}")?;
            write_align(w, *align)
        }
        InstData::GlobalAddr { global } => {
            w.write_char(' ')?;
            match module.globals.get(*global) {
                Some(g) => write_name(w, &g.name),
                None => write!(w, "{global}"),
            }
        }
        InstData::FuncAddr { func: callee } => {
            w.write_char(' ')?;
            write_callee(w, module, *callee)
        }
        InstData::Load { ptr, align, access } => {
            write!(w, "{access} {ptr}")?;
            write_align(w, *align)
        }
        InstData::Store {
            value,
            ptr,
            align,
            access,
        } => {
            write!(w, "{access} {value}, {ptr}")?;
            write_align(w, *align)
        }
        InstData::MaskedLoad {
            ptr,
            mask,
            passthru,
            align,
        }
        | InstData::Gather {
            ptrs: ptr,
            mask,
            passthru,
            align,
        } => {
            write!(w, " {ptr}, {mask}, {passthru}")?;
            write_align(w, *align)
        }
        InstData::MaskedStore {
            value,
            ptr,
            mask,
            align,
        }
        | InstData::Scatter {
            value,
            ptrs: ptr,
            mask,
            align,
        } => {
            write!(w, " {value}, {ptr}, {mask}")?;
            write_align(w, *align)
        }
        InstData::AtomicRmw {
            op,
            ptr,
            value,
            access,
        } => write!(w, " {op}{access} {ptr}, {value}"),
        InstData::AtomicCas {
            ptr,
            expected,
            replacement,
            access,
            failure,
        } => {
            write!(w, "{access}")?;
            let success = access.ordering().unwrap_or(Ordering::SeqCst);
            if *failure != success.default_failure() {
                write!(w, " {failure}")?;
            }
            write!(w, " {ptr}, {expected}, {replacement}")
        }
        InstData::Fence { ordering, scope } => {
            if *scope == SyncScope::SingleThread {
                w.write_str(" singlethread")?;
            }
            write!(w, " {ordering}")
        }
        InstData::Call { func: callee, args } => {
            w.write_char(' ')?;
            write_callee(w, module, *callee)?;
            w.write_char('(')?;
            write_list(w, args)?;
            w.write_char(')')
        }
        InstData::CallIndirect {
            callee,
            args,
            variadic,
        } => {
            write!(w, " {callee}(")?;
            write_list(w, args)?;
            w.write_char(')')?;
            if let Some(n) = variadic {
                write!(w, " variadic {n}")?;
            }
            Ok(())
        }
        InstData::Intrinsic { args, .. } => {
            if !args.is_empty() {
                w.write_char(' ')?;
                write_list(w, args)?;
            }
            Ok(())
        }
        InstData::WorkItem { dim, .. } => write!(w, " {dim}"),
        InstData::Shuffle { args, mask } => {
            write!(w, " {}, {}, [", args[0], args[1])?;
            write_list(w, mask)?;
            w.write_char(']')
        }
        InstData::Jump { dest } => write!(w, " {dest}"),
        InstData::Brif {
            cond,
            then_dest,
            else_dest,
        } => {
            write!(w, " {cond}, {then_dest}, {else_dest}")
        }
        InstData::Switch {
            arg,
            cases,
            default,
        } => {
            write!(w, " {arg}, [")?;
            for (i, (k, b)) in cases.iter().enumerate() {
                if i > 0 {
                    w.write_str(", ")?;
                }
                write!(w, "{k}: {b}")?;
            }
            write!(w, "], {default}")
        }
        InstData::Return { value } => match value {
            Some(v) => write!(w, " {v}"),
            None => Ok(()),
        },
        InstData::Unreachable => Ok(()),
    }
}

/// The text of a module.
pub fn module_to_string(module: &Module) -> String {
    let mut s = String::new();
    write_module(&mut s, module).expect("writing to a String cannot fail");
    s
}

/// The text of one function of `module`.
pub fn function_to_string(module: &Module, func: &Function) -> String {
    let mut s = String::new();
    write_function(&mut s, module, func).expect("writing to a String cannot fail");
    s
}

/// The text of one instruction, for error messages.
pub fn inst_to_string(module: &Module, func: &Function, inst: Inst) -> String {
    let mut s = String::new();
    write_inst(&mut s, module, func, inst).expect("writing to a String cannot fail");
    s
}

/// `blockN` of a block, for messages.
pub fn block_name(block: Block) -> String {
    block.to_string()
}
