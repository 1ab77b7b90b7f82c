//! Atomic operations on `__local` memory as plain read-modify-writes.
//!
//! **Why.** `__local` memory belongs to one work-group, and the executor runs a whole
//! work-group on one thread: its work-items take turns (a vector's lanes one after
//! another, continuations between barriers), never at the same time
//! ([`crate::executor`]). An atomic operation on `__local` memory therefore has no other
//! thread to be atomic against, yet as a machine atomic it costs a locked instruction —
//! about 20 cycles on x86-64, and it orders the core's other memory accesses. CC'12's
//! Histogram counts every byte with `atomic_inc` on a `__local` bin; with the lock, those
//! increments are most of the kernel's time.
//!
//! **What.** Every `atomic_rmw` and `atomic_cas` whose address is a scalar `__local`
//! pointer becomes a load, the operation, and a store, in place, with the old value as
//! the result (volatile if the atomic was: OpenCL's atomic functions take `volatile`
//! pointers). Accesses through global or generic pointers stay atomic: other groups run
//! on other threads. A vector of addresses is left alone (lanes widens atomics lane by
//! lane, so none is expected).

use lanes_ir::{
    AddrSpace, AtomicOp, BinaryOp, FuncCursor, Function, InstData, IntCC, IntFlags, MemAccess,
    Module, Type, UnaryOp,
};

/// Rewrites the `__local` atomics of every function of `module`; how many it rewrote.
pub fn plain_local_atomics(module: &mut Module) -> usize {
    let ids: Vec<_> = module.functions().map(|(id, _)| id).collect();
    let mut rewritten = 0;
    for id in ids {
        if let Some(f) = module.function_mut(id) {
            rewritten += plain_local_atomics_in(f);
        }
    }
    rewritten
}

/// Rewrites the `__local` atomics of `func` (module docs); how many it rewrote.
pub fn plain_local_atomics_in(func: &mut Function) -> usize {
    let insts: Vec<_> = func
        .layout
        .blocks()
        .flat_map(|b| func.layout.block_insts(b).to_vec())
        .collect();
    let mut rewritten = 0;
    for inst in insts {
        let data = func.dfg.inst(inst).clone();
        let (ptr, ty, access) = match &data {
            InstData::AtomicRmw {
                ptr, value, access, ..
            } => (*ptr, func.dfg.value_type(*value), access),
            InstData::AtomicCas {
                ptr,
                expected,
                access,
                ..
            } => (*ptr, func.dfg.value_type(*expected), access),
            _ => continue,
        };
        // OpenCL's atomic functions take `volatile` pointers; the accesses stay volatile.
        let access = MemAccess {
            volatile: access.volatile,
            atomic: None,
        };
        if func.dfg.value_type(ptr) != Type::ptr(AddrSpace::LOCAL) || ty.is_vector() {
            continue;
        }
        if matches!(data, InstData::AtomicCas { .. }) && !ty.is_int() {
            continue;
        }
        let align = ty.elem().bytes();
        let mut cur = FuncCursor::new(func);
        cur.goto_inst(inst);
        let old = cur.insert_value(InstData::Load { ptr, align, access }, ty);
        let new = match data {
            InstData::AtomicRmw { op, value, .. } => match binary_op(op) {
                Some(op) => cur.insert_value(
                    InstData::Binary {
                        op,
                        args: [old, value],
                        flags: IntFlags::NONE,
                    },
                    ty,
                ),
                None => value,
            },
            InstData::AtomicCas {
                expected,
                replacement,
                ..
            } => {
                let same = cur.insert_value(
                    InstData::Icmp {
                        cond: IntCC::Eq,
                        args: [old, expected],
                    },
                    Type::I1,
                );
                cur.insert_value(
                    InstData::Select {
                        args: [same, replacement, old],
                    },
                    ty,
                )
            }
            _ => continue,
        };
        cur.insert_inst(
            InstData::Store {
                value: new,
                ptr,
                align,
                access,
            },
            None,
        );
        *cur.func.dfg.inst_mut(inst) = InstData::Unary {
            op: UnaryOp::Copy,
            arg: old,
        };
        rewritten += 1;
    }
    rewritten
}

/// The binary operation an atomic read-modify-write applies; `None` for `xchg`, which
/// stores its operand.
fn binary_op(op: AtomicOp) -> Option<BinaryOp> {
    Some(match op {
        AtomicOp::Xchg => return None,
        AtomicOp::Add => BinaryOp::Add,
        AtomicOp::Sub => BinaryOp::Sub,
        AtomicOp::And => BinaryOp::And,
        AtomicOp::Or => BinaryOp::Or,
        AtomicOp::Xor => BinaryOp::Xor,
        AtomicOp::SMin => BinaryOp::SMin,
        AtomicOp::SMax => BinaryOp::SMax,
        AtomicOp::UMin => BinaryOp::UMin,
        AtomicOp::UMax => BinaryOp::UMax,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanes_interp::{Interpreter, Memory, RtValue};
    use lanes_ir::ScalarType;

    const SOURCE: &str = "function @f(v0: ptr.local, v1: ptr.global, v2: i32) -> i32 {
block0:
    v3: i32 = atomic_rmw add volatile seq_cst v0, v2
    v4: i32 = atomic_rmw umax seq_cst v0, v3
    v5: i32 = iconst 7
    v6: i32 = atomic_cas seq_cst v0, v5, v2
    v7: i32 = atomic_rmw xchg seq_cst v0, v6
    v8: i32 = atomic_rmw sub seq_cst v1, v7
    v9: i32 = add v3, v4
    v10: i32 = add v9, v6
    v11: i32 = add v10, v8
    ret v11
}
";

    /// `f(local, global, x)` on the interpreter: its result and the two cells after.
    fn run(m: &Module, local: i32, global: i32, x: i32) -> (i32, i32, i32) {
        let mut mem = Memory::new();
        let l = mem.alloc(4, 4, AddrSpace::LOCAL).expect("alloc");
        let g = mem.alloc(4, 4, AddrSpace::GLOBAL).expect("alloc");
        mem.write_bytes(l, &local.to_le_bytes()).expect("write");
        mem.write_bytes(g, &global.to_le_bytes()).expect("write");
        let args = [
            RtValue::ptr_of(ScalarType::Ptr(AddrSpace::LOCAL), l),
            RtValue::ptr_of(ScalarType::Ptr(AddrSpace::GLOBAL), g),
            RtValue::int(ScalarType::I32, i64::from(x)),
        ];
        let r = Interpreter::new(m)
            .call_by_name("f", &args, &mut mem)
            .expect("runs")
            .and_then(|v| v.as_i64())
            .expect("result");
        let cell = |p| i32::from_le_bytes(mem.read_bytes(p, 4).expect("read").try_into().unwrap());
        (r as i32, cell(l), cell(g))
    }

    #[test]
    fn local_atomics_become_plain_and_keep_their_values() {
        let before = lanes_ir::parse_module(SOURCE).expect("parses");
        let mut after = before.clone();
        assert_eq!(plain_local_atomics(&mut after), 4);
        lanes_ir::verifier::verify_module(&after).expect("verifies");
        let text = lanes_ir::write::module_to_string(&after);
        // The global atomic stays; the volatile one stays volatile.
        assert_eq!(text.matches("atomic_").count(), 1, "{text}");
        assert!(text.contains("atomic_rmw sub seq_cst v1"), "{text}");
        assert!(text.contains("load volatile"), "{text}");
        for (local, global, x) in [(0, 0, 0), (5, 100, 2), (7, 9, -3), (-1, 3, 7), (1, 1, 6)] {
            assert_eq!(
                run(&after, local, global, x),
                run(&before, local, global, x),
                "local {local}, global {global}, x {x}"
            );
        }
    }
}
