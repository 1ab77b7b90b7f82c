//! A hand-built module with every instruction group and every operation name, shared by
//! the round-trip test and the no-panic mutation test of the parser.

use lanes_ir::{
    AddrSpace, Atomic, AtomicOp, BinaryOp, CastOp, EntityRef, FloatCC, FuncBuilder, FuncId,
    Function, GlobalData, InstData, IntCC, Intrinsic, IntrinsicClass, MemAccess, Module, Ordering,
    ParamAttrs, ScalarType, Shape, Signature, SyncScope, Type, UnaryOp, Value, WorkItemQuery,
};

const F32_SPECIALS: &[f32] = &[
    0.0,
    -0.0,
    1.5,
    0.1,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::MAX,
    f32::MIN_POSITIVE,
    1e-45,
    3.4e-39,
    1e20,
    1e-7,
];
const F64_SPECIALS: &[f64] = &[
    0.0,
    -0.0,
    0.1,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::MAX,
    f64::MIN,
    f64::MIN_POSITIVE,
    5e-324,
    2.2e-310,
    1e16,
    1e-7,
    -123456.789,
];

/// A module with every instruction group and every operation name.
pub fn everything_module() -> Module {
    let mut m = Module::new();
    let tbl = m.add_global(GlobalData {
        name: "tbl".into(),
        size: 8,
        align: 4,
        init: Some(vec![1, 0, 0, 0, 2, 0, 0, 0xff]),
        constant: true,
        space: AddrSpace::CONSTANT,
    });
    let zeros = m.add_global(GlobalData {
        name: "zeros".into(),
        size: 1 << 40,
        align: 0,
        init: None,
        constant: false,
        space: AddrSpace::PRIVATE,
    });
    let quoted = m.add_global(GlobalData {
        name: "my \"table\" \\ é\u{7}".into(),
        size: 0,
        align: 16,
        init: Some(vec![]),
        constant: false,
        space: AddrSpace(200),
    });
    let ext = m.declare("sinf", Signature::new(vec![Type::F32], Some(Type::F32)));
    let printf = m.declare(
        "printf",
        Signature {
            params: vec![Type::PTR],
            ret: Some(Type::I32),
            variadic: true,
        },
    );
    let op = m.declare(
        "operator()",
        Signature {
            params: vec![
                Type::ptr(AddrSpace::GLOBAL),
                Type::vector(4, ScalarType::I32),
            ],
            ret: None,
            variadic: false,
        },
    );
    let void = m.declare("", Signature::default());
    let all_id = FuncId::new(m.funcs.len());
    let later_id = FuncId::new(all_id.index() + 1);

    let params = [
        Type::I32,
        Type::F32,
        Type::ptr(AddrSpace::GLOBAL),
        Type::mask(8),
        Type::vector(4, ScalarType::Ptr(AddrSpace(9))),
        Type::vector(65535, ScalarType::F64),
        Type::ptr(AddrSpace::LOCAL),
    ];
    let mut f = Function::new("all", &params, Some(Type::I32));
    f.attrs.kernel = true;
    let shapes = [
        Some(Shape::Uniform),
        Some(Shape::Contiguous),
        Some(Shape::Strided(-8)),
        Some(Shape::Varying),
        Some(Shape::Strided(i64::MIN)),
        None,
        None,
    ];
    for (p, (shape, align)) in f
        .params
        .iter_mut()
        .zip(shapes.into_iter().zip([0, 4, 16, 0, 8, 0, 2]))
    {
        p.attrs = ParamAttrs { shape, align };
    }
    let pv: Vec<Value> = f.param_values().collect();
    let (x, fl, gp, mask, ptrs) = (pv[0], pv[1], pv[2], pv[3], pv[4]);
    let mut b = FuncBuilder::new(&mut f);
    let entry = b.create_block();
    let body = b.create_block();
    let _gap_block = b.func.dfg.make_block();
    let join = b.create_block();
    let exit = b.create_block();
    let dead = b.create_block();
    b.switch_to_block(entry);

    for imm in [0, -1, i64::MIN, i64::MAX] {
        b.iconst(Type::I64, imm);
    }
    b.iconst(Type::vector(16, ScalarType::I8), -128);
    for &c in F32_SPECIALS {
        b.f32const(c);
    }
    for &c in F64_SPECIALS {
        b.f64const(c);
    }
    for bits in [0x7fc0_0000u64, 0xffc0_0001, 0x7f80_0001] {
        b.value(InstData::Fconst { bits }, Type::F32);
        b.value(InstData::Fconst { bits }, Type::vector(4, ScalarType::F32));
    }
    b.value(
        InstData::Fconst {
            bits: 0x7ff8_0000_0000_00ff,
        },
        Type::F64,
    );
    b.value(
        InstData::Fconst {
            bits: 0xfff0_0000_0000_0001,
        },
        Type::vector(2, ScalarType::F64),
    );
    // A float constant of an integer type prints (and parses) as an f64.
    b.value(
        InstData::Fconst {
            bits: 1.25f64.to_bits(),
        },
        Type::I32,
    );

    for &op in BinaryOp::ALL {
        b.binary(op, x, x);
    }
    for &op in UnaryOp::ALL {
        b.unary(op, fl);
    }
    for &cond in IntCC::ALL {
        b.icmp(cond, x, x);
    }
    for &cond in FloatCC::ALL {
        b.fcmp(cond, fl, fl);
    }
    for &op in CastOp::ALL {
        b.cast(op, x, Type::vector(2, ScalarType::I16));
    }
    for (k, &op) in AtomicOp::ALL.iter().enumerate() {
        let mut access = MemAccess::atomic(Ordering::ALL[1 + k % 5]);
        access.volatile = k % 2 == 1;
        b.value(
            InstData::AtomicRmw {
                op,
                ptr: gp,
                value: x,
                access,
            },
            Type::I32,
        );
    }
    for ordering in [
        Ordering::Acquire,
        Ordering::Release,
        Ordering::AcqRel,
        Ordering::SeqCst,
    ] {
        for scope in [SyncScope::System, SyncScope::SingleThread] {
            b.inst(InstData::Fence { ordering, scope }, None);
        }
    }
    let accesses = [
        MemAccess::PLAIN,
        MemAccess::VOLATILE,
        MemAccess::atomic(Ordering::Unordered),
        MemAccess {
            volatile: true,
            atomic: Some(Atomic {
                ordering: Ordering::SeqCst,
                scope: SyncScope::SingleThread,
            }),
        },
    ];
    for access in accesses {
        b.value(
            InstData::Load {
                ptr: gp,
                align: 4,
                access,
            },
            Type::I32,
        );
        b.inst(
            InstData::Store {
                value: x,
                ptr: gp,
                align: 0,
                access,
            },
            None,
        );
    }
    for &query in WorkItemQuery::ALL {
        for dim in [0, 2, 255] {
            b.value(InstData::WorkItem { query, dim }, Type::I64);
        }
    }
    for &id in Intrinsic::ALL {
        let args = vec![fl; super::intrinsic_arity(id)];
        let result = (id.class() != IntrinsicClass::Barrier).then_some(Type::F32);
        b.intrinsic(id, args, result);
    }
    b.select(mask, x, x);
    let off = b.iconst(Type::vector(4, ScalarType::I64), 8);
    b.ptradd(gp, x);
    b.ptradd(gp, off);
    b.alloca(64, 0);
    b.alloca(u32::MAX, 16);
    for g in [tbl, zeros, quoted] {
        b.value(InstData::GlobalAddr { global: g }, Type::PTR);
    }
    for align in [0, 4, u32::MAX] {
        b.load(Type::vector(8, ScalarType::F32), gp, align);
        b.store(x, gp, align);
        b.value(
            InstData::MaskedLoad {
                ptr: gp,
                mask,
                passthru: x,
                align,
            },
            Type::I32,
        );
        b.inst(
            InstData::MaskedStore {
                value: x,
                ptr: gp,
                mask,
                align,
            },
            None,
        );
        b.value(
            InstData::Gather {
                ptrs,
                mask,
                passthru: x,
                align,
            },
            Type::I32,
        );
        b.inst(
            InstData::Scatter {
                value: x,
                ptrs,
                mask,
                align,
            },
            None,
        );
    }
    for (success, failure) in [
        (Ordering::SeqCst, Ordering::SeqCst),
        (Ordering::AcqRel, Ordering::Monotonic),
        (Ordering::Release, Ordering::Monotonic),
    ] {
        b.value(
            InstData::AtomicCas {
                ptr: gp,
                expected: x,
                replacement: x,
                access: MemAccess::atomic(success),
                failure,
            },
            Type::I32,
        );
    }
    let fp = b.value(InstData::FuncAddr { func: ext }, Type::PTR);
    b.value(
        InstData::CallIndirect {
            callee: fp,
            args: vec![fl],
            variadic: None,
        },
        Type::F32,
    );
    let pf = b.value(InstData::FuncAddr { func: printf }, Type::PTR);
    b.inst(
        InstData::CallIndirect {
            callee: pf,
            args: vec![gp, x, fl],
            variadic: Some(1),
        },
        None,
    );
    b.call(printf, vec![gp, x], Some(Type::I32));
    let s = b.call(ext, vec![fl], Some(Type::F32));
    let s = b.func.dfg.inst_result(s).expect("result");
    b.call(op, vec![gp, off], None);
    b.call(void, vec![], None);
    b.call(all_id, pv.clone(), Some(Type::I32));
    b.call(later_id, vec![], None);
    b.value(
        InstData::Shuffle {
            args: [off, off],
            mask: vec![0, 1, 8, u32::MAX],
        },
        Type::vector(4, ScalarType::I64),
    );
    b.value(
        InstData::Shuffle {
            args: [off, off],
            mask: vec![],
        },
        Type::vector(1, ScalarType::I64),
    );
    // An unplaced instruction leaves a gap in the value numbering.
    b.func
        .dfg
        .make_inst(InstData::Iconst { imm: 5 }, Some(Type::I8));
    let c = b.icmp(IntCC::Slt, x, x);
    b.brif(c, body, join);

    b.switch_to_block(body);
    let y = b.binary(BinaryOp::Add, x, x);
    b.switch(
        y,
        vec![(1, join), (-2, exit), (i64::MIN, body), (i64::MAX, dead)],
        exit,
    );

    b.switch_to_block(join);
    // A φ that refers forward, to a value defined later in the layout.
    let fwd = Value::new(b.func.dfg.num_values() + 1);
    let p = b.phi(Type::I32, vec![(entry, x), (body, y), (join, fwd)]);
    let z = b.binary(BinaryOp::Mul, p, p);
    debug_assert_eq!(z, fwd);
    b.switch(z, vec![], join);

    b.switch_to_block(exit);
    b.phi(Type::F32, vec![]);
    let _ = s;
    b.ret(Some(z));

    b.switch_to_block(dead);
    b.unreachable();
    b.ret(None);
    m.define(f);

    let mut later = Function::new("later", &[], None);
    let mut b = FuncBuilder::new(&mut later);
    let blk = b.create_block();
    b.switch_to_block(blk);
    b.jump(blk);
    m.define(later);
    m
}
