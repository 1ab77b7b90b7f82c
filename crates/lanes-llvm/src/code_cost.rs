//! The target's cost model for lanes IR: what LLVM's `TargetTransformInfo` (the model its
//! loop and SLP vectorizers consult) says a piece of lanes code costs once exported.
//!
//! SuperVectorization (PLDI'22 §4.3) keeps a pack where `c_scalar − c_vector − c_shuffle`
//! is positive, each term priced by "LLVM's target cost model". The prices depend on the
//! target as much as on the code: a `<16 x float>` add is one instruction with AVX-512
//! and two with AVX2, a masked store of bytes is one `vmovdqu8` with AVX-512BW and a
//! branch per lane without, `llvm.sin` on a vector is sixteen calls without a vector math
//! library. Pricing the exported code, rather than a table of lanes opcodes, prices
//! exactly what lanes will hand the code generator: the shift masking, saturating
//! conversions and `i1`-through-`i8` memory the exporter spells out included.
//!
//! `TargetTransformInfo` is a C++ interface that LLVM's C API does not expose; the shim
//! `cpp/tti_cost.cpp` (built by `build.rs` against the same LLVM 19) asks it.

use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::llvm_sys::target_machine::LLVMTargetMachineRef;
use inkwell::targets::TargetMachine;
use inkwell::values::AsValueRef;

use crate::emit::{configure_module, target_machine};
use crate::error::LlvmError;
use crate::export::{export_module_with, ExportOptions};
use crate::target::Target;
use crate::Context;

extern "C" {
    /// Summed reciprocal-throughput cost of the instructions of `f` on `tm`'s target, or
    /// −1 if one of them has no valid cost.
    fn lanes_tti_function_cost(tm: LLVMTargetMachineRef, f: LLVMValueRef) -> i64;
    /// The cost of inserting and/or extracting every lane of a vector of the type of
    /// `f`'s first parameter, or −1.
    fn lanes_tti_scalarization_cost(
        tm: LLVMTargetMachineRef,
        f: LLVMValueRef,
        insert: i32,
        extract: i32,
    ) -> i64;
}

/// Prices lanes functions with the code generator's cost model of one target.
pub struct TargetCostModel {
    machine: TargetMachine,
    export: ExportOptions,
}

impl TargetCostModel {
    /// The cost model of `target`, for code exported with `export`.
    pub fn new(target: &Target, export: ExportOptions) -> Result<TargetCostModel, LlvmError> {
        Ok(TargetCostModel {
            machine: target_machine(&target.vector_code_options(3))?,
            export,
        })
    }

    /// The reciprocal-throughput cost of every instruction of `func` (a function that
    /// calls no other), as exported to LLVM IR: the unit is roughly one instruction
    /// issued per cycle. `None` if the export fails or the target cannot lower some
    /// instruction.
    pub fn function_cost(&self, func: &lanes_ir::Function) -> Option<i64> {
        self.ask(func, |tm, f| {
            // SAFETY: the machine and the function are alive for the call; the shim
            // only reads them.
            unsafe { lanes_tti_function_cost(tm, f) }
        })
    }

    /// The cost of a vector of type `ty` built from one scalar per lane: what LLVM's
    /// own SLP vectorizer charges for it (`getScalarizationOverhead`), which prices the
    /// insertions per 128-bit part of the register rather than one by one.
    pub fn build_cost(&self, ty: lanes_ir::Type) -> Option<i64> {
        self.ask(
            &lanes_ir::Function::new("lanes_build", &[ty], None),
            |tm, f| {
                // SAFETY: as in `function_cost`.
                unsafe { lanes_tti_scalarization_cost(tm, f, 1, 0) }
            },
        )
    }

    /// `query` of `func` exported alone; `None` if the export fails or the answer is
    /// negative (no valid cost).
    fn ask(
        &self,
        func: &lanes_ir::Function,
        query: impl FnOnce(LLVMTargetMachineRef, LLVMValueRef) -> i64,
    ) -> Option<i64> {
        let mut module = lanes_ir::Module::new();
        module.define(func.clone());
        let ctx = Context::create();
        let llvm = export_module_with(&ctx, &module, "cost", &self.export).ok()?;
        configure_module(&llvm, &self.machine);
        let f = llvm.get_function(&func.name)?;
        let cost = query(self.machine.as_mut_ptr(), f.as_value_ref());
        (cost >= 0).then_some(cost)
    }
}

#[cfg(test)]
mod tests {
    use lanes_ir::FuncBuilder;
    use lanes_ir::{BinaryOp, Function, ScalarType, Type};

    use super::*;

    /// A function adding two values of type `ty`.
    fn add_of(ty: Type) -> Function {
        let mut f = Function::new("add", &[ty, ty], Some(ty));
        let params: Vec<_> = f.param_values().collect();
        let mut b = FuncBuilder::new(&mut f);
        let entry = b.create_block();
        b.switch_to_block(entry);
        let sum = b.binary(BinaryOp::FAdd, params[0], params[1]);
        b.ret(Some(sum));
        f
    }

    fn model(cpu: &str) -> TargetCostModel {
        let target = Target {
            triple: Some("x86_64-unknown-linux-gnu".into()),
            cpu: Some(cpu.into()),
            codegen_features: None,
            features: Default::default(),
            prefer_vector_width: None,
        };
        TargetCostModel::new(&target, ExportOptions::default()).expect("x86 target machine")
    }

    #[test]
    fn a_vector_costs_one_instruction_per_register_it_fills() {
        let v16 = Type::vector(16, ScalarType::F32);
        let avx2 = model("haswell");
        let avx512 = model("skylake-avx512");
        assert_eq!(avx2.function_cost(&add_of(Type::F32)), Some(1));
        assert_eq!(avx2.function_cost(&add_of(v16)), Some(2));
        assert_eq!(avx512.function_cost(&add_of(v16)), Some(1));
    }

    #[test]
    fn a_vector_built_from_scalars_costs_about_one_per_lane() {
        let avx512 = model("skylake-avx512");
        for lanes in [4u16, 8, 16] {
            let cost = avx512
                .build_cost(Type::vector(lanes, ScalarType::F32))
                .expect("a vector of floats has a price");
            assert!(
                (i64::from(lanes) / 2..=2 * i64::from(lanes)).contains(&cost),
                "{lanes} lanes cost {cost}"
            );
        }
        assert_eq!(avx512.build_cost(Type::F32), None, "a scalar is not built");
    }
}
