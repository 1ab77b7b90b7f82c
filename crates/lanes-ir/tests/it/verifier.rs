//! Verifier tests: each broken function must be rejected with errors naming the right
//! entities, every error of a function reported in one run, and valid functions accepted.

use lanes_ir::verifier::{verify_function, Location, VerifierErrors};
use lanes_ir::*;

fn loop_function() -> (Module, Function) {
    // sum = 0; for i in 0..n { sum += i }; return sum
    let mut f = Function::new("sum", &[Type::I32], Some(Type::I32));
    let n = f.params[0].value;
    let mut b = FuncBuilder::new(&mut f);
    let entry = b.create_block();
    let header = b.create_block();
    let body = b.create_block();
    let exit = b.create_block();
    b.switch_to_block(entry);
    let zero = b.iconst(Type::I32, 0);
    b.jump(header);
    b.switch_to_block(header);
    let i = b.phi(Type::I32, vec![(entry, zero)]);
    let sum = b.phi(Type::I32, vec![(entry, zero)]);
    let c = b.icmp(IntCC::Slt, i, n);
    b.brif(c, body, exit);
    b.switch_to_block(body);
    let sum2 = b.binary(BinaryOp::Add, sum, i);
    let one = b.iconst(Type::I32, 1);
    let i2 = b.binary(BinaryOp::Add, i, one);
    b.jump(header);
    b.switch_to_block(exit);
    b.ret(Some(sum));
    let phi_i = f.dfg.value_def(i);
    let phi_sum = f.dfg.value_def(sum);
    for (def, v) in [(phi_i, i2), (phi_sum, sum2)] {
        let ValueDef::Result(inst) = def else {
            unreachable!()
        };
        let InstData::Phi { incoming } = f.dfg.inst_mut(inst) else {
            unreachable!()
        };
        incoming.push((body, v));
    }
    (Module::new(), f)
}

fn errors(module: &Module, f: &Function) -> VerifierErrors {
    verify_function(module, f).expect_err("the function must be rejected")
}

fn messages(e: &VerifierErrors) -> Vec<String> {
    e.0.iter().map(ToString::to_string).collect()
}

#[test]
fn accepts_a_well_formed_loop() {
    let (m, f) = loop_function();
    verify_function(&m, &f).unwrap();
}

#[test]
fn reports_missing_phi_entry_and_type_errors_in_one_run() {
    let (m, mut f) = loop_function();
    let header = f.layout.blocks().nth(1).unwrap();
    // Drop the back-edge entry of the first φ, and make the compare mix types.
    let phi = f.layout.block_insts(header)[0];
    let InstData::Phi { incoming } = f.dfg.inst_mut(phi) else {
        unreachable!()
    };
    incoming.pop();
    let cmp = f.layout.block_insts(header)[2];
    let wide = f
        .dfg
        .make_inst(InstData::Iconst { imm: 1 }, Some(Type::I64));
    f.layout.insert_inst_before(wide, cmp);
    let wide_v = f.dfg.inst_result(wide).unwrap();
    let InstData::Icmp { args, .. } = f.dfg.inst_mut(cmp) else {
        unreachable!()
    };
    args[1] = wide_v;
    let e = errors(&m, &f);
    let msgs = messages(&e);
    assert!(
        msgs.iter()
            .any(|m| m.contains("has no value for predecessor block2")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter().any(|m| m.contains("second operand is i64")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter().all(|m| m.starts_with("@sum: block1: ")),
        "{msgs:?}"
    );
    assert!(e
        .0
        .iter()
        .all(|e| matches!(e.location, Location::Inst { block: Some(_), .. })));
}

#[test]
fn reports_use_not_dominated_by_definition() {
    // block0: brif p, block1, block2; block1: v = iconst; br block2; block2: ret v
    let mut f = Function::new("f", &[Type::I1], Some(Type::I32));
    let p = f.params[0].value;
    let mut b = FuncBuilder::new(&mut f);
    let b0 = b.create_block();
    let b1 = b.create_block();
    let b2 = b.create_block();
    b.switch_to_block(b0);
    b.brif(p, b1, b2);
    b.switch_to_block(b1);
    let v = b.iconst(Type::I32, 7);
    b.jump(b2);
    b.switch_to_block(b2);
    b.ret(Some(v));
    let msgs = messages(&errors(&Module::new(), &f));
    assert_eq!(
        msgs,
        vec![format!(
            "@f: block2: inst3 `ret {v}`: use of {v} is not dominated by its definition"
        )]
    );
}

#[test]
fn reports_structural_errors() {
    let mut f = Function::new("g", &[], None);
    let mut b = FuncBuilder::new(&mut f);
    let b0 = b.create_block();
    let b1 = b.create_block();
    b.switch_to_block(b0);
    b.jump(b1);
    b.iconst(Type::I32, 1); // after the terminator: block0 does not end in one either
    b.switch_to_block(b1);
    let msgs = messages(&errors(&Module::new(), &f));
    assert!(
        msgs.iter()
            .any(|m| m.contains("terminator in the middle of a block")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter()
            .any(|m| m.contains("block0 does not end in a terminator")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter().any(|m| m.contains("block1: is empty")),
        "{msgs:?}"
    );
}

#[test]
fn checks_result_presence_calls_and_returns() {
    let mut m = Module::new();
    let callee = m.declare("h", Signature::new(vec![Type::F32], Some(Type::F32)));
    let mut f = Function::new("f", &[Type::I32], None);
    let x = f.params[0].value;
    let mut b = FuncBuilder::new(&mut f);
    let b0 = b.create_block();
    b.switch_to_block(b0);
    b.call(callee, vec![x], None); // wrong argument type, missing result
    b.ret(Some(x)); // returns from a void function
    let msgs = messages(&errors(&m, &f));
    assert!(
        msgs.iter()
            .any(|m| m.contains("produces a value but has no result")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter()
            .any(|m| m.contains("argument 0 (v0) has type i32, @h expects f32")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter()
            .any(|m| m.contains("from a function without a return type")),
        "{msgs:?}"
    );
}

#[test]
fn checks_vector_memory_and_mask_types() {
    let mut f = Function::new("v", &[Type::PTR, Type::mask(8)], None);
    let (p, m8) = (f.params[0].value, f.params[1].value);
    let mut b = FuncBuilder::new(&mut f);
    let b0 = b.create_block();
    b.switch_to_block(b0);
    let v4 = Type::vector(4, ScalarType::F32);
    let pass = b.value(InstData::Fconst { bits: 0 }, v4);
    b.value(
        InstData::MaskedLoad {
            ptr: p,
            mask: m8,
            passthru: pass,
            align: 3,
        },
        v4,
    );
    let cond = b.iconst(Type::I32, 1);
    b.value(
        InstData::Select {
            args: [cond, pass, pass],
        },
        v4,
    );
    b.value(
        InstData::Intrinsic {
            id: Intrinsic::Any,
            args: vec![pass],
        },
        Type::I1,
    );
    b.ret(None);
    let msgs = messages(&errors(&Module::new(), &f));
    assert!(
        msgs.iter()
            .any(|m| m.contains("mask is <8 x i1>, expected <4 x i1>")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter()
            .any(|m| m.contains("alignment 3 is not a power of two")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter().any(|m| m.contains("select condition is i32")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter().any(|m| m.contains("any operand is <4 x f32>")),
        "{msgs:?}"
    );
}

#[test]
fn checks_casts_constants_and_phi_placement() {
    let mut f = Function::new("c", &[Type::I32], Some(Type::I32));
    let x = f.params[0].value;
    let mut b = FuncBuilder::new(&mut f);
    let b0 = b.create_block();
    let b1 = b.create_block();
    b.switch_to_block(b0);
    b.cast(CastOp::Zext, x, Type::I16); // narrowing zext
    b.iconst(Type::I8, 300); // does not fit
    b.jump(b1);
    b.switch_to_block(b1);
    let y = b.binary(BinaryOp::Add, x, x);
    let phi = b.phi(Type::I32, vec![(b0, x)]); // after a non-φ
    b.ret(Some(phi));
    let _ = y;
    let msgs = messages(&errors(&Module::new(), &f));
    assert!(
        msgs.iter()
            .any(|m| m.contains("zext cannot convert i32 to i16")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter()
            .any(|m| m.contains("constant 300 does not fit in i8")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter()
            .any(|m| m.contains("φ after a non-φ instruction")),
        "{msgs:?}"
    );
}

#[test]
fn entry_block_must_not_be_a_branch_target() {
    let mut f = Function::new("e", &[], None);
    let mut b = FuncBuilder::new(&mut f);
    let b0 = b.create_block();
    b.switch_to_block(b0);
    b.jump(b0);
    let msgs = messages(&errors(&Module::new(), &f));
    assert_eq!(
        msgs,
        vec!["@e: block0: the entry block must not have predecessors".to_string()]
    );
}
