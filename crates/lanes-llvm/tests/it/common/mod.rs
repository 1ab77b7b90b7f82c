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

/// An eight-lane float-to-integer conversion, `@conv(v0: <8 x from>, v1: ptr)` storing
/// `op v0` at `v1` (`op` with its flags, e.g. `fptosi inrange`), compiled once for the
/// host; [`VectorConversion::run`] runs it in the interpreter and natively.
pub struct VectorConversion<'ctx> {
    module: lanes_ir::Module,
    jit: lanes_llvm::jit::Jit<'ctx>,
    elem: lanes_ir::ScalarType,
}

impl<'ctx> VectorConversion<'ctx> {
    pub fn new(ctx: &'ctx lanes_llvm::Context, op: &str, from: &str, to: &str) -> Self {
        let text = format!(
            "function @conv(v0: <8 x {from}>, v1: ptr) {{\nblock0:\n    v2: <8 x {to}> = {op} v0\n    store v2, v1 align 1\n    ret\n}}\n"
        );
        let module = lanes_ir::parse_module(&text).expect("parses");
        let opts = lanes_llvm::pipeline::PipelineOptions::default();
        let jit = lanes_llvm::jit::Jit::new(ctx, &module, &opts).expect("compiles");
        let elem = match from {
            "f32" => lanes_ir::ScalarType::F32,
            _ => lanes_ir::ScalarType::F64,
        };
        VectorConversion { module, jit, elem }
    }

    /// What the conversion stores for the eight `values` (rounded to `f32` for an `f32`
    /// operand): in the interpreter and natively, 64 bytes each.
    pub fn run(&self, values: &[f64]) -> (Vec<u8>, Vec<u8>) {
        use lanes_interp::{Interpreter, Memory, RtValue};
        use lanes_ir::{AddrSpace, ScalarType, Type};
        let lanes = values
            .iter()
            .map(|&x| match self.elem {
                ScalarType::F32 => u64::from((x as f32).to_bits()),
                _ => x.to_bits(),
            })
            .collect();
        let x = RtValue::from_lanes(Type::vector(8, self.elem), lanes).expect("eight lanes");
        let mut mem = Memory::new();
        let out = mem
            .alloc_init(&[0; 64], 16, AddrSpace::GLOBAL, false)
            .expect("fits");
        let ptr = RtValue::ptr_of(ScalarType::Ptr(AddrSpace::PRIVATE), out);
        Interpreter::new(&self.module)
            .call(
                self.module.func_by_name("conv").expect("@conv"),
                &[x.clone(), ptr],
                &mut mem,
            )
            .expect("runs");
        let want = mem.read_bytes(out, 64).expect("reads");
        let mut got = vec![0u128; 4];
        // SAFETY: `got` holds 64 bytes, more than the widest result stored.
        unsafe {
            self.jit.call(
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
}
