//! A JIT that runs exported functions by name from Rust.
//!
//! Differential tests call functions of any lanes signature, so the JIT does not use
//! typed Rust function pointers: for every defined function `f` it adds an entry
//! `__lanes_entry.f(ptr args, ptr ret)` that loads each argument from its own buffer
//! (`args` is an array of pointers), calls `f` and stores the result to `ret`. Buffers use
//! lanes' memory layout (little-endian, vectors packed, one byte per `i1` lane), the
//! layout of the interpreter's memory, so that values convert exactly.
//!
//! The engine is LLVM's MCJIT; symbols not defined in the module (libm) resolve against
//! the running process.
//!
//! ```
//! use lanes_llvm::{jit::Jit, pipeline::PipelineOptions, Context};
//!
//! let module = lanes_ir::parse_module(
//!     "function @mad(v0: i32, v1: i32) -> i32 {\n\
//!      block0:\n    v2: i32 = mul v0, v1\n    v3: i32 = iconst 7\n    v4: i32 = add v2, v3\n    ret v4\n}\n",
//! )
//! .unwrap();
//! let ctx = Context::create();
//! let jit = Jit::new(&ctx, &module, &PipelineOptions::default()).unwrap();
//! let args = [6i32.to_le_bytes().to_vec(), 7i32.to_le_bytes().to_vec()];
//! // SAFETY: @mad takes no pointers and terminates.
//! let out = unsafe { jit.call("mad", &args) }.unwrap().unwrap();
//! assert_eq!(i32::from_le_bytes(out.try_into().unwrap()), 49);
//! // A typed call through the function's address works too.
//! let f: extern "C" fn(i32, i32) -> i32 = unsafe { std::mem::transmute(jit.address("mad").unwrap()) };
//! assert_eq!(f(2, 3), 13);
//! ```

use std::collections::HashMap;

use inkwell::context::Context;
use inkwell::execution_engine::ExecutionEngine;
use inkwell::llvm_sys::core::*;
use inkwell::module::Module as LlModule;
use inkwell::targets::TargetMachine;

use lanes_ir::{Module, Signature};

use crate::emit::{codegen_level, configure_module, init_native, target_machine, TargetOptions};
use crate::error::LlvmError;
use crate::llvm::{cstr, noname, Types};
use crate::pipeline::{optimize, verify, PipelineOptions};

/// Gives every function the host CPU and its features as attributes, as clang does for
/// `-march=native`: MCJIT builds its own target machine for a generic CPU, and the
/// attributes make its code generation (and the optimizer's cost model) use the host's
/// instructions — FMA, so that `llvm.fmuladd` fuses exactly as in clang's native code —,
/// with hardware gathers on AVX2 as in lanes' compiled vector code
/// ([`crate::target::Target::vector_code_options`]).
fn for_host_cpu(ctx: &Context, llm: &LlModule<'_>) {
    use inkwell::attributes::AttributeLoc;
    let cpu = TargetMachine::get_host_cpu_name();
    let features = TargetMachine::get_host_cpu_features();
    let (cpu, features) = (cpu.to_string_lossy(), features.to_string_lossy());
    let features = crate::target::with_hardware_gathers(&features);
    for f in llm.get_functions() {
        if f.count_basic_blocks() == 0 {
            continue;
        }
        f.add_attribute(
            AttributeLoc::Function,
            ctx.create_string_attribute("target-cpu", &cpu),
        );
        f.add_attribute(
            AttributeLoc::Function,
            ctx.create_string_attribute("target-features", &features),
        );
    }
}

/// Name of the entry wrapper of `func`.
pub fn entry_name(func: &str) -> String {
    format!("__lanes_entry.{func}")
}

/// Exported and compiled functions, callable by name.
pub struct Jit<'ctx> {
    ee: ExecutionEngine<'ctx>,
    _module: LlModule<'ctx>,
    sigs: HashMap<String, Signature>,
}

impl<'ctx> Jit<'ctx> {
    /// Exports `module`, optimizes it with `opts` (for the host CPU) and compiles it.
    pub fn new(
        ctx: &'ctx Context,
        module: &Module,
        opts: &PipelineOptions,
    ) -> Result<Self, LlvmError> {
        let llm = crate::export::export_module(ctx, module, "lanes_jit")?;
        let sigs = module
            .functions()
            .map(|(_, f)| (f.name.clone(), f.signature()))
            .collect::<HashMap<_, _>>();
        for (name, sig) in &sigs {
            add_entry(ctx, &llm, name, sig);
        }
        verify(&llm)?;
        init_native()?;
        let tm = target_machine(&TargetOptions {
            cpu: Some("native".into()),
            opt_level: opts.opt_level,
            ..TargetOptions::default()
        })?;
        configure_module(&llm, &tm);
        for_host_cpu(ctx, &llm);
        optimize(&llm, &tm, opts)?;
        let ee = llm
            .create_jit_execution_engine(codegen_level(opts.opt_level))
            .map_err(|e| LlvmError::Jit(e.to_string()))?;
        Ok(Jit {
            ee,
            _module: llm,
            sigs,
        })
    }

    /// The signature of the exported function `name`.
    pub fn signature(&self, name: &str) -> Option<&Signature> {
        self.sigs.get(name)
    }

    /// The machine address of function `name` (for typed calls through `transmute`).
    pub fn address(&self, name: &str) -> Result<usize, LlvmError> {
        self.ee
            .get_function_address(name)
            .map_err(|_| LlvmError::NoSuchFunction(name.to_string()))
    }

    /// Calls `name` with arguments given as bytes in lanes memory layout (one buffer per
    /// parameter, exactly `ty.bytes()` long); returns the result's bytes.
    ///
    /// # Safety
    /// The function runs as native code: pointer arguments must point to memory valid for
    /// every access the function makes, and the function must terminate.
    pub unsafe fn call(&self, name: &str, args: &[Vec<u8>]) -> Result<Option<Vec<u8>>, LlvmError> {
        let sig = self
            .sigs
            .get(name)
            .ok_or_else(|| LlvmError::NoSuchFunction(name.to_string()))?;
        if sig.params.len() != args.len() {
            return Err(LlvmError::Jit(format!(
                "@{name} takes {} arguments, {} given",
                sig.params.len(),
                args.len()
            )));
        }
        for (i, (ty, a)) in sig.params.iter().zip(args).enumerate() {
            if a.len() != ty.bytes() as usize {
                return Err(LlvmError::Jit(format!(
                    "argument {i} of @{name}: {} bytes for {ty}",
                    a.len()
                )));
            }
        }
        let addr = self.address(&entry_name(name))?;
        // 16-byte aligned copies of the arguments.
        let mut slots: Vec<Vec<u128>> = args
            .iter()
            .map(|a| vec![0u128; a.len().div_ceil(16).max(1)])
            .collect();
        for (slot, a) in slots.iter_mut().zip(args) {
            let bytes = std::slice::from_raw_parts_mut(slot.as_mut_ptr().cast::<u8>(), a.len());
            bytes.copy_from_slice(a);
        }
        let ptrs: Vec<*mut u8> = slots.iter_mut().map(|s| s.as_mut_ptr().cast()).collect();
        let ret_len = sig.ret.map_or(0, |t| t.bytes() as usize);
        let mut ret = vec![0u128; ret_len.div_ceil(16).max(1)];
        let entry: extern "C" fn(*const *mut u8, *mut u8) = std::mem::transmute(addr);
        entry(ptrs.as_ptr(), ret.as_mut_ptr().cast());
        Ok(sig
            .ret
            .map(|_| std::slice::from_raw_parts(ret.as_ptr().cast::<u8>(), ret_len).to_vec()))
    }
}

/// Adds `__lanes_entry.name(ptr args, ptr ret)` calling `name` of signature `sig`.
fn add_entry(ctx: &Context, llm: &LlModule<'_>, name: &str, sig: &Signature) {
    let t = Types { ctx: ctx.raw() };
    let m = llm.as_mut_ptr();
    // SAFETY: everything is created in `ctx` and `m`; the builder is disposed at the end.
    unsafe {
        let target = LLVMGetNamedFunction(m, cstr(name).as_ptr());
        if target.is_null() {
            return;
        }
        let fty = crate::export::fn_type(&t, sig);
        let mut ps = [t.ptr(), t.ptr()];
        let ety = LLVMFunctionType(t.void(), ps.as_mut_ptr(), 2, 0);
        let entry = crate::llvm::declare(m, &entry_name(name), ety);
        let b = LLVMCreateBuilderInContext(t.ctx);
        let bb = LLVMAppendBasicBlockInContext(t.ctx, entry, c"entry".as_ptr());
        LLVMPositionBuilderAtEnd(b, bb);
        let args_ptr = LLVMGetParam(entry, 0);
        let mut vals = Vec::new();
        for (i, &ty) in sig.params.iter().enumerate() {
            let mut idx = t.const_int(t.i64(), i as u64);
            let slot = LLVMBuildGEP2(b, t.ptr(), args_ptr, &mut idx, 1, noname());
            let p = LLVMBuildLoad2(b, t.ptr(), slot, noname());
            let v = LLVMBuildLoad2(b, t.mem_ty(ty), p, noname());
            LLVMSetAlignment(v, 1);
            let v = if ty.is_bool() {
                LLVMBuildTrunc(b, v, t.ty(ty), noname())
            } else {
                v
            };
            vals.push(v);
        }
        let r = LLVMBuildCall2(
            b,
            fty,
            target,
            vals.as_mut_ptr(),
            vals.len() as u32,
            noname(),
        );
        if let Some(rt) = sig.ret {
            let r = if rt.is_bool() {
                LLVMBuildZExt(b, r, t.mem_ty(rt), noname())
            } else {
                r
            };
            let s = LLVMBuildStore(b, r, LLVMGetParam(entry, 1));
            LLVMSetAlignment(s, 1);
        }
        LLVMBuildRetVoid(b);
        LLVMDisposeBuilder(b);
    }
}
