//! Test support shared by the parser tests: a random *module* builder and seeded
//! `Unstructured` bytes.
//!
//! Unlike the library's generator (`lanes_ir::generator`), which makes well-formed,
//! verifiable and terminating functions for differential tests, this builder makes modules
//! that are only *printable*: any instruction of any group with any operand and any result
//! type, terminators in the middle of blocks, empty blocks, blocks laid out out of number
//! order, value and block numbers with gaps, globals and declarations interleaved with
//! definitions, names that need quoting. That is exactly the space the text format must
//! round-trip, and much of it the generator never produces.

#![allow(dead_code)]

pub mod everything;

use arbitrary::{Result, Unstructured};
use lanes_ir::dfg::ValueDef;
use lanes_ir::{
    AddrSpace, Atomic, AtomicOp, BinaryOp, Block, CastOp, EntityRef, FloatCC, FuncId, Function,
    GlobalData, GlobalId, InstData, IntCC, IntFlags, Intrinsic, IntrinsicClass, MemAccess, Module,
    Ordering, ParamAttrs, ScalarType, Shape, Signature, SyncScope, Type, UnaryOp, Value,
    WorkItemQuery,
};

/// Seeded case bytes; used by the round-trip and parser tests built with `fuzzing`.
#[allow(unused_imports)]
pub use lanes_test_support::seeded_bytes;

/// The number of value operands of an intrinsic.
pub fn intrinsic_arity(id: Intrinsic) -> usize {
    match id.class() {
        IntrinsicClass::FloatMath(n)
        | IntrinsicClass::IntMath(n)
        | IntrinsicClass::CrossLane(n) => n,
        IntrinsicClass::LaneQuery | IntrinsicClass::Barrier => 0,
        IntrinsicClass::MaskQuery
        | IntrinsicClass::Reduction { .. }
        | IntrinsicClass::Broadcast => 1,
        IntrinsicClass::Extract | IntrinsicClass::PageProbe | IntrinsicClass::SpeculativeLoad => 2,
        IntrinsicClass::Insert => 3,
    }
}

/// Float bit patterns that stress the printer: NaNs with payloads and signs, infinities,
/// signed zeros, subnormals, extremes, and values whose shortest decimal has an exponent.
pub const SPECIAL_F32: &[u32] = &[
    0x7fc0_0000,
    0xffc0_0000,
    0x7f80_0001,
    0xff80_1234,
    0x7f80_0000,
    0xff80_0000,
    0x0000_0000,
    0x8000_0000,
    0x0000_0001,
    0x8000_0001,
    0x007f_ffff,
    0x0080_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x3dcc_cccd,
    0x3380_0000,
    0x5a0e_1bca,
];
pub const SPECIAL_F64: &[u64] = &[
    0x7ff8_0000_0000_0000,
    0xfff8_0000_0000_0001,
    0x7ff0_0000_0000_0001,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x0000_0000_0000_0000,
    0x8000_0000_0000_0000,
    0x0000_0000_0000_0001,
    0x000f_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0x7fef_ffff_ffff_ffff,
    0x3fb9_9999_9999_999a,
    0x4341_c379_37e0_8000,
    0x3e7a_d7f2_9abc_af48,
];

/// A name that may need quoting; `i` makes it unique.
pub fn random_name(u: &mut Unstructured, prefix: &str, i: usize) -> Result<String> {
    const ODD: &[&str] = &[
        "",
        " ",
        "\"",
        "\\",
        "()",
        "é",
        "\u{1}",
        "\u{7f}",
        "\u{10ffff}",
        ".$",
        "\t",
        "-",
    ];
    Ok(match u.int_in_range(0..=3)? {
        0 | 1 => format!("{prefix}{i}"),
        2 => format!("{}{prefix}{i}{}", u.choose(ODD)?, u.choose(ODD)?),
        _ => format!("{i}{}", u.choose(ODD)?),
    })
}

pub fn random_scalar(u: &mut Unstructured) -> Result<ScalarType> {
    Ok(match u.int_in_range(0..=9)? {
        8 => ScalarType::Ptr(AddrSpace(u.arbitrary()?)),
        9 => ScalarType::Ptr(AddrSpace(u.int_in_range(0..=3)?)),
        _ => *u.choose(&ScalarType::ALL)?,
    })
}

pub fn random_type(u: &mut Unstructured) -> Result<Type> {
    let elem = random_scalar(u)?;
    Ok(match u.int_in_range(0..=5)? {
        0..=2 => Type::Scalar(elem),
        3 | 4 => Type::Vector(*u.choose(&[1, 2, 4, 8, 16])?, elem),
        _ => Type::Vector(u.int_in_range(1..=u16::MAX)?, elem),
    })
}

fn random_float_bits(u: &mut Unstructured, ty: Type) -> Result<u64> {
    Ok(match (u.int_in_range(0..=2)?, ty.elem()) {
        (0, ScalarType::F32) => u64::from(*u.choose(SPECIAL_F32)?),
        (0, _) => *u.choose(SPECIAL_F64)?,
        (1, ScalarType::F32) => u64::from(u.arbitrary::<u32>()?),
        _ => u.arbitrary()?,
    })
}

fn random_imm(u: &mut Unstructured) -> Result<i64> {
    Ok(match u.int_in_range(0..=3)? {
        0 => *u.choose(&[i64::MIN, i64::MAX, -1, 0, 1])?,
        1 => u.arbitrary()?,
        _ => u.int_in_range(-300..=300)?,
    })
}

fn random_align(u: &mut Unstructured) -> Result<u32> {
    Ok(match u.int_in_range(0..=3)? {
        0 => 0,
        1 => u.arbitrary()?,
        _ => *u.choose(&[1, 2, 4, 8, 16])?,
    })
}

/// A random access whose ordering (if any) `valid` allows; always atomic if `atomic`.
fn random_access(
    u: &mut Unstructured,
    valid: fn(Ordering) -> bool,
    atomic: bool,
) -> Result<MemAccess> {
    let orderings: Vec<Ordering> = Ordering::ALL.into_iter().filter(|&o| valid(o)).collect();
    let atomic = if atomic || u.ratio(1, 3)? {
        Some(Atomic {
            ordering: *u.choose(&orderings)?,
            scope: if u.ratio(1, 4)? {
                SyncScope::SingleThread
            } else {
                SyncScope::System
            },
        })
    } else {
        None
    };
    Ok(MemAccess {
        volatile: u.ratio(1, 3)?,
        atomic,
    })
}

/// Placeholder operand, replaced once all values exist.
fn v0() -> Value {
    Value::new(0)
}

fn b0() -> Block {
    Block::new(0)
}

/// A random instruction with placeholder operands and targets, and its result type.
fn random_inst(
    u: &mut Unstructured,
    funcs: &[(FuncId, bool)],
    globals: usize,
) -> Result<(InstData, Option<Type>)> {
    let ty = random_type(u)?;
    let n = u.int_in_range(0..=3)?;
    let data = match u.int_in_range(0..=32)? {
        0 => InstData::Iconst {
            imm: random_imm(u)?,
        },
        1 => {
            let ty = Type::Scalar(*u.choose(&[ScalarType::F32, ScalarType::F64])?);
            let ty = if u.ratio(1, 3)? {
                Type::Vector(4, ty.elem())
            } else {
                ty
            };
            let ty = if u.ratio(1, 8)? { random_type(u)? } else { ty };
            return Ok((
                InstData::Fconst {
                    bits: random_float_bits(u, ty)?,
                },
                Some(ty),
            ));
        }
        2 => InstData::Unary {
            op: *u.choose(UnaryOp::ALL)?,
            arg: v0(),
        },
        3 | 4 => {
            let op = *u.choose(BinaryOp::ALL)?;
            InstData::Binary {
                op,
                args: [v0(); 2],
                flags: random_flags(u, op.allowed_flags())?,
            }
        }
        5 => InstData::Icmp {
            cond: *u.choose(IntCC::ALL)?,
            args: [v0(); 2],
        },
        6 => InstData::Fcmp {
            cond: *u.choose(FloatCC::ALL)?,
            args: [v0(); 2],
        },
        7 => InstData::Select { args: [v0(); 3] },
        8 => {
            let op = *u.choose(CastOp::ALL)?;
            InstData::Cast {
                op,
                arg: v0(),
                flags: random_flags(u, op.allowed_flags())?,
            }
        }
        9 => InstData::Phi {
            incoming: vec![(b0(), v0()); n],
        },
        10 => InstData::PtrAdd {
            args: [v0(); 2],
            flags: random_flags(u, IntFlags::PTRADD)?,
        },
        11 => InstData::Alloca {
            size: u.arbitrary()?,
            align: random_align(u)?,
        },
        12 if globals > 0 => InstData::GlobalAddr {
            global: GlobalId::new(u.choose_index(globals)?),
        },
        13 => InstData::Load {
            ptr: v0(),
            align: random_align(u)?,
            access: random_access(u, Ordering::valid_for_load, false)?,
        },
        14 => InstData::Store {
            value: v0(),
            ptr: v0(),
            align: random_align(u)?,
            access: random_access(u, Ordering::valid_for_store, false)?,
        },
        15 => InstData::MaskedLoad {
            ptr: v0(),
            mask: v0(),
            passthru: v0(),
            align: random_align(u)?,
        },
        16 => InstData::MaskedStore {
            value: v0(),
            ptr: v0(),
            mask: v0(),
            align: random_align(u)?,
        },
        17 => InstData::Gather {
            ptrs: v0(),
            mask: v0(),
            passthru: v0(),
            align: random_align(u)?,
        },
        18 => InstData::Scatter {
            value: v0(),
            ptrs: v0(),
            mask: v0(),
            align: random_align(u)?,
        },
        19 => InstData::AtomicRmw {
            op: *u.choose(AtomicOp::ALL)?,
            ptr: v0(),
            value: v0(),
            access: random_access(u, Ordering::valid_for_rmw, true)?,
        },
        20 => InstData::AtomicCas {
            ptr: v0(),
            expected: v0(),
            replacement: v0(),
            access: random_access(u, Ordering::valid_for_rmw, true)?,
            failure: *u.choose(&[Ordering::Monotonic, Ordering::Acquire, Ordering::SeqCst])?,
        },
        21 if !funcs.is_empty() => {
            let &(func, returns) = u.choose(funcs)?;
            let data = InstData::Call {
                func,
                args: vec![v0(); n],
            };
            return Ok((data, returns.then_some(ty)));
        }
        22 | 23 => {
            let id = *u.choose(Intrinsic::ALL)?;
            let args = vec![v0(); intrinsic_arity(id)];
            let result = (id.class() != IntrinsicClass::Barrier).then_some(ty);
            return Ok((InstData::Intrinsic { id, args }, result));
        }
        24 => InstData::WorkItem {
            query: *u.choose(WorkItemQuery::ALL)?,
            dim: u.arbitrary()?,
        },
        25 => {
            let len = u.int_in_range(0..=8)?;
            let mask = (0..len).map(|_| u.arbitrary()).collect::<Result<_>>()?;
            InstData::Shuffle {
                args: [v0(); 2],
                mask,
            }
        }
        26 => InstData::Jump { dest: b0() },
        27 => InstData::Brif {
            cond: v0(),
            then_dest: b0(),
            else_dest: b0(),
        },
        28 => {
            let cases = (0..n)
                .map(|_| Ok((random_imm(u)?, b0())))
                .collect::<Result<_>>()?;
            InstData::Switch {
                arg: v0(),
                cases,
                default: b0(),
            }
        }
        30 => {
            let ordering = *u.choose(&Ordering::ALL[2..])?;
            let scope = if u.ratio(1, 2)? {
                SyncScope::SingleThread
            } else {
                SyncScope::System
            };
            InstData::Fence { ordering, scope }
        }
        31 if !funcs.is_empty() => InstData::FuncAddr {
            func: u.choose(funcs)?.0,
        },
        32 => {
            let variadic = if u.ratio(1, 2)? {
                Some(u.int_in_range(0..=n as u32)?)
            } else {
                None
            };
            let data = InstData::CallIndirect {
                callee: v0(),
                args: vec![v0(); n],
                variadic,
            };
            return Ok((data, u.ratio(1, 2)?.then_some(ty)));
        }
        29 if u.ratio(1, 2)? => InstData::Unreachable,
        _ => InstData::Return {
            value: u.ratio(1, 2)?.then(v0),
        },
    };
    let result = match &data {
        InstData::Store { .. }
        | InstData::MaskedStore { .. }
        | InstData::Scatter { .. }
        | InstData::Fence { .. }
        | InstData::Jump { .. }
        | InstData::Brif { .. }
        | InstData::Switch { .. }
        | InstData::Return { .. }
        | InstData::Unreachable => None,
        _ => Some(ty),
    };
    Ok((data, result))
}

fn random_shape(u: &mut Unstructured) -> Result<Option<Shape>> {
    Ok(match u.int_in_range(0..=4)? {
        0 => None,
        1 => Some(Shape::Uniform),
        2 => Some(Shape::Contiguous),
        3 => Some(Shape::Varying),
        _ => Some(Shape::Strided(random_imm(u)?)),
    })
}

/// A random function body over `funcs` (callee id, returns a value) and `globals`.
fn random_function(
    u: &mut Unstructured,
    name: String,
    funcs: &[(FuncId, bool)],
    globals: usize,
) -> Result<Function> {
    let nparams = u.int_in_range(0..=4)?;
    let params = (0..nparams)
        .map(|_| random_type(u))
        .collect::<Result<Vec<_>>>()?;
    let ret = if u.arbitrary()? {
        Some(random_type(u)?)
    } else {
        None
    };
    let mut func = Function::new(name, &params, ret);
    func.attrs.kernel = u.arbitrary()?;
    for p in &mut func.params {
        p.attrs = ParamAttrs {
            shape: random_shape(u)?,
            align: random_align(u)?,
        };
    }
    // Blocks: some only created (gaps in the numbering), the rest laid out in random order.
    let nblocks = u.int_in_range(0..=8)?;
    let mut placed = Vec::new();
    for _ in 0..nblocks {
        let b = func.dfg.make_block();
        if u.ratio(5, 6)? {
            placed.push(b);
        }
    }
    for i in (1..placed.len()).rev() {
        placed.swap(i, u.int_in_range(0..=i)?);
    }
    for &b in &placed {
        func.layout.append_block(b);
    }
    // Instructions; the first placed block starts with a constant so operands exist.
    for (i, &b) in placed.iter().enumerate() {
        if i == 0 {
            let c = func
                .dfg
                .make_inst(InstData::Iconst { imm: 7 }, Some(Type::I32));
            func.layout.append_inst(c, b);
        }
        for _ in 0..u.int_in_range(0..=10)? {
            let (data, result) = random_inst(u, funcs, globals)?;
            let inst = func.dfg.make_inst(data, result);
            // An unplaced instruction leaves a gap in the value numbering.
            if u.ratio(9, 10)? {
                func.layout.append_inst(inst, b);
            }
        }
    }
    // Operands: any defined value (parameter or placed result); targets: any placed block.
    let mut defined: Vec<Value> = func.param_values().collect();
    let mut insts = Vec::new();
    for &b in &placed {
        for &inst in func.layout.block_insts(b) {
            insts.push(inst);
            defined.extend(func.dfg.inst_result(inst));
        }
    }
    for inst in insts {
        let mut data = func.dfg.inst(inst).clone();
        let mut err = Ok(());
        data.for_each_arg_mut(|v| match u.choose(&defined) {
            Ok(&x) => *v = x,
            Err(e) => err = Err(e),
        });
        data.for_each_target_mut(|t| match u.choose(&placed) {
            Ok(&x) => *t = x,
            Err(e) => err = Err(e),
        });
        if let InstData::Phi { incoming } = &mut data {
            for (blk, _) in incoming {
                *blk = *u.choose(&placed)?;
            }
        }
        err?;
        *func.dfg.inst_mut(inst) = data;
    }
    debug_assert!(func.dfg.values().all(|v| match func.dfg.value_def(v) {
        ValueDef::Param(i) => i < func.params.len(),
        ValueDef::Result(_) => true,
    }));
    Ok(func)
}

/// A random printable module: globals, declarations and definitions interleaved.
pub fn random_module(u: &mut Unstructured) -> Result<Module> {
    let mut module = Module::new();
    let nglobals = u.int_in_range(0..=3)?;
    for i in 0..nglobals {
        let size = u.int_in_range(0..=12)?;
        let init = if u.arbitrary()? {
            Some(
                (0..size)
                    .map(|_| u.arbitrary())
                    .collect::<Result<Vec<u8>>>()?,
            )
        } else {
            None
        };
        module.add_global(GlobalData {
            name: random_name(u, "g", i)?,
            size,
            align: random_align(u)?,
            init,
            constant: u.arbitrary()?,
            space: AddrSpace(if u.arbitrary()? { u.arbitrary()? } else { 0 }),
        });
    }
    // Decide every entry's kind and signature first so calls may go anywhere.
    let nfuncs = u.int_in_range(1..=4)?;
    let mut entries = Vec::new();
    for i in 0..nfuncs {
        let defined = u.ratio(2, 3)?;
        let ret = if u.arbitrary()? {
            Some(random_type(u)?)
        } else {
            None
        };
        entries.push((defined, ret, random_name(u, "f", i)?));
    }
    let callees: Vec<(FuncId, bool)> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (FuncId::new(i), e.1.is_some()))
        .collect();
    for (defined, ret, name) in entries {
        if defined {
            let mut f = random_function(u, name, &callees, nglobals)?;
            f.ret = ret;
            module.define(f);
        } else {
            let nparams = u.int_in_range(0..=3)?;
            let params = (0..nparams)
                .map(|_| random_type(u))
                .collect::<Result<_>>()?;
            let variadic = u.ratio(1, 4)?;
            module.declare(
                name,
                Signature {
                    params,
                    ret,
                    variadic,
                },
            );
        }
    }
    Ok(module)
}

/// A random subset of `allowed` (flags print after the mnemonic, so every subset must
/// read back).
fn random_flags(u: &mut Unstructured, allowed: IntFlags) -> Result<IntFlags> {
    let mut out = IntFlags::NONE;
    for f in [
        IntFlags::NUW,
        IntFlags::NSW,
        IntFlags::EXACT,
        IntFlags::DISJOINT,
        IntFlags::NNEG,
        IntFlags::INRANGE,
    ] {
        if allowed.contains(f) && u.arbitrary::<bool>()? {
            out = out.union(f);
        }
    }
    Ok(out)
}
