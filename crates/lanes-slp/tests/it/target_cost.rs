//! Packs priced by LLVM's cost model of a named x86-64 CPU (PLDI'22 §4.3:
//! `c_scalar − c_vector − c_shuffle` with the target's prices, `lanes_llvm::code_cost`):
//! where the target's prices and register counting disagree the target's decide, and
//! what is packed still computes what the scalar code does.

use lanes_llvm::code_cost::TargetCostModel;
use lanes_llvm::target::{Target, TargetRequest};
use lanes_llvm::ExportOptions;
use lanes_slp::cost::RegisterCost;
use lanes_slp::packing::Rejection;
use lanes_slp::target_cost::TargetCost;

use crate::packing::check_with;

/// LLVM's cost model of x86-64 CPU `cpu`, and the bits of its widest vector register.
pub(crate) fn x86(cpu: &str) -> (TargetCostModel, u32) {
    let target = Target::resolve(&TargetRequest {
        triple: Some("x86_64-unknown-linux-gnu".into()),
        cpu: Some(cpu.into()),
        ..Default::default()
    })
    .expect("clang-19 knows the CPU");
    let model = TargetCostModel::new(&target, ExportOptions::default()).expect("an x86 machine");
    (model, target.vector_bits())
}

#[test]
fn divisions_stay_scalar_where_the_target_has_no_vector_division() {
    let (counted, _) = check_with("div8", &RegisterCost { register_bits: 256 });
    assert!(counted.packs > 0, "register counting packs the quotients");
    for cpu in ["haswell", "skylake-avx512"] {
        let (model, bits) = x86(cpu);
        let (priced, text) = check_with("div8", &TargetCost::new(&model, bits));
        assert_eq!(priced.packs, 0, "{cpu}:\n{text}");
        assert!(
            matches!(
                priced.rejected[..],
                [(_, Rejection::NotProfitable { saving })] if saving < 0
            ),
            "{cpu}: {:?}",
            priced.rejected
        );
    }
}

#[test]
fn what_pays_on_the_target_is_packed() {
    for cpu in ["haswell", "skylake-avx512"] {
        let (model, bits) = x86(cpu);
        let prices = TargetCost::new(&model, bits);
        let (add, text) = check_with("add4", &prices);
        assert_eq!((add.trees, add.packs), (1, 4), "{cpu}:\n{text}");
        // Masked stores and speculated products under the lanes' own conditions.
        let (cond, text) = check_with("cond_scale8", &prices);
        assert!(cond.cross_predicate_packs > 0, "{cpu}:\n{text}");
        // A loop unrolled to the register's lanes, with its sum in one vector μ-node.
        let (dot, text) = check_with("int_dot", &prices);
        assert_eq!(dot.unrolled, vec![bits / 32], "{cpu}:\n{text}");
        assert!(dot.mu_packs > 0, "{cpu}:\n{text}");
    }
}
