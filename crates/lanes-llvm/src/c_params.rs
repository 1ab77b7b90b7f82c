//! Which LLVM parameters carry each parameter of a C function.
//!
//! clang lowers a C signature to LLVM parameters by the target's calling convention, so
//! the two lists differ: a returned aggregate becomes a hidden first `sret` pointer, a
//! small struct passed by value is split into one or two coerced pieces (`struct {float
//! x, y;}` is one `<2 x float>` on x86-64 SysV, `struct {double d; long l;}` a `double`
//! and an `i64`), a large one becomes a `byval` pointer, `_Complex double` two doubles.
//! Users write shapes per C parameter (`lanes vectorize --shapes`), lanes IR has the LLVM
//! parameters, and this file connects them.
//!
//! The mapping is read from clang's own debug information rather than recomputed from
//! ABI rules, which differ per target and have many corner cases. At `-O0 -g` clang gives
//! every C parameter a `DILocalVariable` whose `arg:` field is its position, declared
//! (`llvm.dbg.declare`) on the alloca that holds it; the function's prologue stores each
//! incoming LLVM parameter (or coerced piece, through a GEP into the alloca, sometimes
//! through a temporary and a `memcpy`) into that alloca, and a `byval` pointer is declared
//! directly. Following each LLVM parameter to its declared alloca gives the C position.
//! The `-O0` function has the same LLVM parameters as the optimized one whenever the
//! function is externally visible: the calling convention decides them, not the
//! optimizer (only internal functions can lose or change parameters at `-O2`).
//!
//! The LLVM-C API exposes neither a variable's `arg:` number nor a type's DWARF tag, so
//! those two fields are read from the printed metadata node; everything else (the
//! declares, the variable's scope, name and type, the uses of each parameter) is walked
//! through the API. Modules are switched to debug intrinsics first (LLVM 19 holds debug
//! records in memory, which the C API cannot iterate yet).

use std::collections::HashMap;
use std::ffi::CStr;
use std::path::Path;

use inkwell::context::Context;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::debuginfo::{
    LLVMDIVariableGetScope, LLVMGetMetadataKind, LLVMGetSubprogram, LLVMMetadataKind,
};
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMOpcode;
use inkwell::module::Module as LlModule;

use crate::clang::{compile_to_bitcode, load_module, parse_module, ClangOptions, SourceKind};
use crate::error::LlvmError;
use crate::llvm::{attr_kind, cstr, print_type, value_name};

/// What a C parameter's type is, as far as vector shapes care.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CKind {
    /// An integer, character, `_Bool` or enumeration.
    Integer,
    /// A pointer or reference.
    Pointer,
    /// `float`, `double`, `_Float16`.
    Float,
    /// A struct, union, array, vector or `_Complex` value.
    Aggregate,
    /// Anything else.
    Other,
}

/// One parameter of the C function, in source order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CParam {
    /// Its name in the source; empty for an unnamed parameter.
    pub name: String,
    pub kind: CKind,
    /// The LLVM parameters that carry it, ascending (none for an empty struct).
    pub llvm_params: Vec<u32>,
}

/// The C parameters of a function and its LLVM parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CSignature {
    pub params: Vec<CParam>,
    /// The hidden pointer to the caller's storage for a returned aggregate.
    pub sret: Option<u32>,
    /// The LLVM parameter types, printed (`<2 x float>`, `ptr`, `i64`).
    pub llvm_types: Vec<String>,
}

impl CParam {
    /// The name, or `<arg N>` (1-based `position`) for an unnamed parameter.
    pub fn display_name(&self, position: usize) -> String {
        if self.name.is_empty() {
            format!("<arg {position}>")
        } else {
            self.name.clone()
        }
    }
}

/// Why the C parameters of a function could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CParamError {
    #[error(transparent)]
    Llvm(#[from] LlvmError),
    #[error("@{0} is not defined in the file")]
    NoFunction(String),
    #[error("@{0} has no debug information describing its parameters")]
    NoDebugInfo(String),
    #[error(
        "@{function}: cannot tell which C parameter LLVM parameter {index} ({ty}) carries \
         (clang's debug information does not lead to it)"
    )]
    Unmapped {
        function: String,
        index: u32,
        ty: String,
    },
}

/// The C parameters of `fname` in `path` (C, C++ or OpenCL C), compiled by clang with
/// `clang` (the same target and language options as the real compilation) at `-O0 -g`.
pub fn c_signature(
    path: &Path,
    clang: &ClangOptions,
    fname: &str,
) -> Result<CSignature, CParamError> {
    let kind = SourceKind::of(path)
        .filter(|k| k.is_source())
        .ok_or_else(|| LlvmError::UnknownInput(path.to_path_buf()))?;
    let mut opts = clang.clone();
    // Last on the command line, so they win over the defaults and the user's own.
    opts.extra.extend(["-O0", "-g"].map(String::from));
    let bytes = compile_to_bitcode(path, kind, &opts)?;
    let ctx = Context::create();
    let module = parse_module(
        &ctx,
        &bytes,
        SourceKind::Bitcode,
        &path.display().to_string(),
    )?;
    c_parameters(&module, fname)
}

/// The C parameters of `fname` in `module`, a `-O0 -g` module from clang (module docs).
pub fn c_parameters(module: &LlModule<'_>, fname: &str) -> Result<CSignature, CParamError> {
    let m = module.as_mut_ptr();
    let name = cstr(fname);
    // SAFETY: `m` is the live module `module` owns; every reference below comes from it.
    unsafe {
        let f = LLVMGetNamedFunction(m, name.as_ptr());
        if f.is_null() || LLVMCountBasicBlocks(f) == 0 {
            return Err(CParamError::NoFunction(fname.to_string()));
        }
        let sub = LLVMGetSubprogram(f);
        if sub.is_null() {
            return Err(CParamError::NoDebugInfo(fname.to_string()));
        }
        if LLVMIsNewDbgInfoFormat(m) != 0 {
            LLVMSetIsNewDbgInfoFormat(m, 0);
        }
        let vars = declared_arguments(f, sub);
        let mut by_arg: HashMap<u32, CParam> = HashMap::new();
        for var in vars.values() {
            by_arg.entry(var.arg).or_insert_with(|| CParam {
                name: var.name.clone(),
                kind: var.kind,
                llvm_params: Vec::new(),
            });
        }
        let n = LLVMCountParams(f);
        let sret_kind = attr_kind("sret");
        let mut sig = CSignature {
            params: Vec::new(),
            sret: None,
            llvm_types: Vec::new(),
        };
        for i in 0..n {
            let p = LLVMGetParam(f, i);
            sig.llvm_types.push(print_type(LLVMTypeOf(p)));
            if !LLVMGetEnumAttributeAtIndex(f, i + 1, sret_kind).is_null() {
                sig.sret = Some(i);
                continue;
            }
            let arg = carried_argument(p, &vars).ok_or_else(|| CParamError::Unmapped {
                function: fname.to_string(),
                index: i,
                ty: print_type(LLVMTypeOf(p)),
            })?;
            if let Some(c) = by_arg.get_mut(&arg) {
                c.llvm_params.push(i);
            }
        }
        let last = by_arg.keys().copied().max().unwrap_or(0);
        sig.params = (1..=last)
            .map(|a| {
                by_arg.remove(&a).unwrap_or(CParam {
                    name: String::new(),
                    kind: CKind::Other,
                    llvm_params: Vec::new(),
                })
            })
            .collect();
        Ok(sig)
    }
}

/// The names of `fname`'s parameters in an LLVM file (`.ll`, `.bc`); empty strings for
/// unnamed ones (clang's own output names none).
pub fn llvm_param_names(path: &Path, fname: &str) -> Result<Vec<String>, CParamError> {
    let ctx = Context::create();
    let module = load_module(&ctx, path, &ClangOptions::default())?;
    let name = cstr(fname);
    // SAFETY: live module; parameters of a function it holds.
    unsafe {
        let f = LLVMGetNamedFunction(module.as_mut_ptr(), name.as_ptr());
        if f.is_null() {
            return Err(CParamError::NoFunction(fname.to_string()));
        }
        Ok((0..LLVMCountParams(f))
            .map(|i| value_name(LLVMGetParam(f, i)))
            .collect())
    }
}

/// A `DILocalVariable` of a C parameter.
struct ArgVar {
    arg: u32,
    name: String,
    kind: CKind,
}

/// The C parameters `f` declares, keyed by the address each is declared at. Only
/// variables of `f`'s own subprogram count (not those of `always_inline` callees inlined
/// even at `-O0`), and only arguments (`arg:` non-zero; a named return value declared on
/// the `sret` pointer is a local).
unsafe fn declared_arguments(
    f: LLVMValueRef,
    sub: LLVMMetadataRef,
) -> HashMap<LLVMValueRef, ArgVar> {
    let mut vars = HashMap::new();
    let mut bb = LLVMGetFirstBasicBlock(f);
    while !bb.is_null() {
        let mut inst = LLVMGetFirstInstruction(bb);
        while !inst.is_null() {
            if let Some((addr, var)) = dbg_declare(inst) {
                let md = LLVMValueAsMetadata(var);
                if LLVMDIVariableGetScope(md) == sub {
                    if let Some(arg) = di_field(&print_md(var), "arg").and_then(|a| a.parse().ok())
                    {
                        let ops = md_operands(var);
                        let name = ops.get(1).map_or_else(String::new, |&s| md_string(s));
                        let kind = ops.get(3).map_or(CKind::Other, |&t| c_kind(t));
                        vars.insert(addr, ArgVar { arg, name, kind });
                    }
                }
            }
            inst = LLVMGetNextInstruction(inst);
        }
        bb = LLVMGetNextBasicBlock(bb);
    }
    vars
}

/// `(address, variable)` of an `llvm.dbg.declare` (or `llvm.dbg.value` of an address).
unsafe fn dbg_declare(inst: LLVMValueRef) -> Option<(LLVMValueRef, LLVMValueRef)> {
    if LLVMIsACallInst(inst).is_null() {
        return None;
    }
    let callee = LLVMGetCalledValue(inst);
    let name = value_name(callee);
    if name != "llvm.dbg.declare" && name != "llvm.dbg.value" {
        return None;
    }
    let (loc, var) = (LLVMGetOperand(inst, 0), LLVMGetOperand(inst, 1));
    if loc.is_null() || var.is_null() {
        return None;
    }
    // Function-local metadata wraps one value: the address.
    let addr = LLVMGetOperand(loc, 0);
    (!addr.is_null()).then_some((addr, var))
}

/// The C position (1-based) of the parameter that LLVM parameter `p` carries: where it
/// is stored, through casts, GEPs into the alloca, a temporary copied by `memcpy`, or a
/// load (a parameter passed indirectly without `byval`).
unsafe fn carried_argument(p: LLVMValueRef, vars: &HashMap<LLVMValueRef, ArgVar>) -> Option<u32> {
    let declared = |v: LLVMValueRef| vars.get(&v).map(|a| a.arg);
    let mut work = vec![(p, 0u32)];
    while let Some((v, depth)) = work.pop() {
        if let Some(a) = declared(v) {
            return Some(a);
        }
        if depth > 4 {
            continue;
        }
        for user in users(v) {
            if !LLVMIsAStoreInst(user).is_null() && LLVMGetOperand(user, 0) == v {
                let base = base_object(LLVMGetOperand(user, 1));
                if let Some(a) = declared(base).or_else(|| copied_to(base).and_then(declared)) {
                    return Some(a);
                }
            } else if !LLVMIsACastInst(user).is_null()
                || (!LLVMIsALoadInst(user).is_null() && LLVMGetOperand(user, 0) == v)
            {
                work.push((user, depth + 1));
            }
        }
    }
    None
}

/// The users of `v`.
unsafe fn users(v: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let mut u = LLVMGetFirstUse(v);
    while !u.is_null() {
        out.push(LLVMGetUser(u));
        u = LLVMGetNextUse(u);
    }
    out
}

/// The object an address points into: through GEPs and pointer casts.
unsafe fn base_object(mut v: LLVMValueRef) -> LLVMValueRef {
    for _ in 0..16 {
        let through_gep = !LLVMIsAGetElementPtrInst(v).is_null();
        let through_cast = !LLVMIsAInstruction(v).is_null()
            && matches!(
                LLVMGetInstructionOpcode(v),
                LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast
            );
        if !(through_gep || through_cast) {
            break;
        }
        v = LLVMGetOperand(v, 0);
    }
    v
}

/// Where a temporary alloca is copied to by `llvm.memcpy` (clang's coerced store of a
/// piece list larger or differently laid out than the struct).
unsafe fn copied_to(tmp: LLVMValueRef) -> Option<LLVMValueRef> {
    users(tmp).into_iter().find_map(|u| {
        if LLVMIsACallInst(u).is_null()
            || !value_name(LLVMGetCalledValue(u)).starts_with("llvm.memcpy")
        {
            return None;
        }
        (base_object(LLVMGetOperand(u, 1)) == tmp).then(|| base_object(LLVMGetOperand(u, 0)))
    })
}

/// What a C type (a metadata value holding a `DIType`) is: typedefs and qualifiers are
/// looked through.
unsafe fn c_kind(mut ty: LLVMValueRef) -> CKind {
    for _ in 0..32 {
        if ty.is_null() {
            return CKind::Other;
        }
        let text = print_md(ty);
        let tag = di_field(&text, "tag").unwrap_or("");
        match LLVMGetMetadataKind(LLVMValueAsMetadata(ty)) {
            LLVMMetadataKind::LLVMDIBasicTypeMetadataKind => {
                return match di_field(&text, "encoding").unwrap_or("") {
                    "DW_ATE_float" => CKind::Float,
                    "DW_ATE_signed"
                    | "DW_ATE_unsigned"
                    | "DW_ATE_signed_char"
                    | "DW_ATE_unsigned_char"
                    | "DW_ATE_boolean"
                    | "DW_ATE_UTF" => CKind::Integer,
                    "DW_ATE_complex_float" => CKind::Aggregate,
                    _ => CKind::Other,
                }
            }
            LLVMMetadataKind::LLVMDICompositeTypeMetadataKind => {
                return if tag == "DW_TAG_enumeration_type" {
                    CKind::Integer
                } else {
                    CKind::Aggregate
                }
            }
            LLVMMetadataKind::LLVMDIDerivedTypeMetadataKind => match tag {
                "DW_TAG_pointer_type"
                | "DW_TAG_reference_type"
                | "DW_TAG_rvalue_reference_type"
                | "DW_TAG_ptr_to_member_type" => return CKind::Pointer,
                "DW_TAG_typedef"
                | "DW_TAG_const_type"
                | "DW_TAG_volatile_type"
                | "DW_TAG_restrict_type"
                | "DW_TAG_atomic_type" => {
                    // DIDerivedType operands: file, scope, name, base type, …
                    ty = md_operands(ty)
                        .get(3)
                        .copied()
                        .unwrap_or(std::ptr::null_mut());
                }
                _ => return CKind::Other,
            },
            _ => return CKind::Other,
        }
    }
    CKind::Other
}

/// The operands of a metadata node held as a value (null where an operand is absent).
unsafe fn md_operands(v: LLVMValueRef) -> Vec<LLVMValueRef> {
    let n = LLVMGetMDNodeNumOperands(v) as usize;
    let mut ops = vec![std::ptr::null_mut(); n];
    LLVMGetMDNodeOperands(v, ops.as_mut_ptr());
    ops
}

/// The text of an `MDString` held as a value; empty if `v` is not one.
unsafe fn md_string(v: LLVMValueRef) -> String {
    if v.is_null() {
        return String::new();
    }
    let mut len = 0u32;
    let p = LLVMGetMDString(v, &mut len);
    if p.is_null() {
        return String::new();
    }
    String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len as usize)).into_owned()
}

/// A metadata node printed in full (`!DILocalVariable(name: "n", arg: 3, …)`).
unsafe fn print_md(v: LLVMValueRef) -> String {
    let p = LLVMPrintValueToString(v);
    let s = CStr::from_ptr(p).to_string_lossy().into_owned();
    LLVMDisposeMessage(p);
    s
}

/// The value of field `key` of a printed debug-info node: `arg` of `…, arg: 3, …` is `3`.
fn di_field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let open = text.find('(')?;
    let body = text[open + 1..].trim_end().strip_suffix(')')?;
    body.split(", ").find_map(|field| {
        let (k, v) = field.split_once(": ")?;
        (k.trim() == key).then(|| v.trim())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A C parameter as the tests spell it: name, kind, LLVM parameters.
    type Param = (String, CKind, Vec<u32>);

    /// Each C parameter of `f` in `src`, and the sret.
    fn mapping(src: &str, f: &str) -> (Vec<Param>, Option<u32>) {
        let path =
            std::env::temp_dir().join(format!("lanes-c-params-{}-{f}.c", std::process::id()));
        std::fs::write(&path, src).expect("write source");
        let sig = c_signature(&path, &ClangOptions::default(), f).expect("C parameters");
        let _ = std::fs::remove_file(&path);
        let params = sig
            .params
            .into_iter()
            .map(|p| (p.name, p.kind, p.llvm_params))
            .collect();
        (params, sig.sret)
    }

    #[test]
    fn abi_lowered_parameters_map_back_to_c() {
        let src = "struct pt { float x, y; };\n\
                   struct big { long a[8]; };\n\
                   struct mix { double d; long l; };\n\
                   struct three { float x, y, z; };\n\
                   struct c3 { char a[3]; };\n\
                   typedef const int cint;\n\
                   void f(struct pt p, float *out, long n) { out[n] = p.x + p.y; }\n\
                   struct big g(long i, cint k) { struct big b = {0}; b.a[0] = i + k; return b; }\n\
                   long h(struct big b, struct mix m, int u, struct three t, _Complex double z,\n\
                          struct c3 c, _Bool q) {\n\
                       return b.a[0] + m.l + (long)t.z + (long)__real__ z + c.a[1] + u + q;\n\
                   }\n";
        let own = |v: Vec<(&str, CKind, Vec<u32>)>| -> Vec<Param> {
            v.into_iter()
                .map(|(n, k, p)| (n.to_string(), k, p))
                .collect()
        };
        use CKind::*;
        assert_eq!(
            mapping(src, "f"),
            (
                own(vec![
                    ("p", Aggregate, vec![0]),
                    ("out", Pointer, vec![1]),
                    ("n", Integer, vec![2])
                ]),
                None
            )
        );
        assert_eq!(
            mapping(src, "g"),
            (
                own(vec![("i", Integer, vec![1]), ("k", Integer, vec![2])]),
                Some(0)
            )
        );
        // byval, double + i64, i32, <2 x float> + float (through a temporary), two
        // doubles, i24, i1 stored as i8.
        assert_eq!(
            mapping(src, "h").0,
            own(vec![
                ("b", Aggregate, vec![0]),
                ("m", Aggregate, vec![1, 2]),
                ("u", Integer, vec![3]),
                ("t", Aggregate, vec![4, 5]),
                ("z", Aggregate, vec![6, 7]),
                ("c", Aggregate, vec![8]),
                ("q", Integer, vec![9]),
            ])
        );
    }

    #[test]
    fn fields_of_printed_nodes() {
        let var = r#"!DILocalVariable(name: "n", arg: 3, scope: !12, file: !1, line: 6, type: !3)"#;
        assert_eq!(di_field(var, "arg"), Some("3"));
        assert_eq!(di_field(var, "name"), Some("\"n\""));
        assert_eq!(di_field(var, "tag"), None);
        let ty = "!DIDerivedType(tag: DW_TAG_pointer_type, baseType: !21, size: 64)";
        assert_eq!(di_field(ty, "tag"), Some("DW_TAG_pointer_type"));
    }
}
