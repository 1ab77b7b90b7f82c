//! Helpers shared by the tests: a scratch file, the exporter's text, compiled assembly, and
//! a conversion run in the interpreter and natively.

use lanes_llvm::{export_module, Context};

pub use lanes_test_support::scratch_file as tmp;

/// The module's exported LLVM text (unoptimized), verified.
pub fn exported(m: &lanes_ir::Module) -> String {
    let ctx = Context::create();
    let llm = export_module(&ctx, m, "round-trip").expect("export");
    llm.verify().expect("valid LLVM");
    llm.print_to_string().to_string()
}

/// The assembly of `m` at -O3 for `cpu` (with AVX2 and FMA) or, without one, for generic
/// x86-64.
pub fn compiled_asm(m: &lanes_ir::Module, name: &str, cpu: Option<&str>) -> String {
    use lanes_llvm::clang::ClangOptions;
    use lanes_llvm::driver::{compile_module, CompileOptions};
    use lanes_llvm::emit::{EmitKind, TargetOptions};
    use lanes_llvm::pipeline::PipelineOptions;
    let opts = CompileOptions {
        clang: ClangOptions::default(),
        pipeline: PipelineOptions {
            opt_level: 3,
            ..PipelineOptions::default()
        },
        target: TargetOptions {
            cpu: cpu.map(String::from),
            features: cpu.map(|_| "+avx2,+fma".to_string()),
            opt_level: 3,
            ..TargetOptions::default()
        },
        emit: EmitKind::Asm,
        export: lanes_llvm::ExportOptions::default(),
    };
    let out = compile_module(m, name, &opts).expect("compiles");
    String::from_utf8_lossy(&out).into_owned()
}

/// What `@conv(v0: <8 x …>, v1: ptr)` of `module` stores at `v1` for the argument `x`:
/// in the interpreter and natively (`jit`), 64 bytes each.
pub fn conversion_results(
    module: &lanes_ir::Module,
    jit: &lanes_llvm::jit::Jit,
    x: &lanes_interp::RtValue,
) -> (Vec<u8>, Vec<u8>) {
    use lanes_interp::{Interpreter, Memory, RtValue};
    use lanes_ir::{AddrSpace, ScalarType};
    let mut mem = Memory::new();
    let out = mem
        .alloc_init(&[0; 64], 16, AddrSpace::GLOBAL, false)
        .expect("fits");
    let ptr = RtValue::ptr_of(ScalarType::Ptr(AddrSpace::PRIVATE), out);
    Interpreter::new(module)
        .call(
            module.func_by_name("conv").expect("@conv"),
            &[x.clone(), ptr],
            &mut mem,
        )
        .expect("runs");
    let want = mem.read_bytes(out, 64).expect("reads");
    let mut got = vec![0u128; 4];
    // SAFETY: `got` holds 64 bytes, more than the widest result stored.
    unsafe {
        jit.call(
            "conv",
            &[
                x.to_le_bytes(),
                (got.as_mut_ptr() as u64).to_le_bytes().to_vec(),
            ],
        )
    }
    .expect("runs natively");
    // SAFETY: as above.
    let got = unsafe { std::slice::from_raw_parts(got.as_ptr().cast::<u8>(), 64) };
    (want.to_vec(), got.to_vec())
}
