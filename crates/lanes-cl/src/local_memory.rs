//! `__local` memory: one copy per work-group.
//!
//! clang makes a kernel's `__local` variables module globals in address space 3. Run
//! once per group on any thread, they cannot stay globals: each becomes an offset into the
//! group's local memory, whose base the executor puts in the group context
//! ([`crate::group_context::field::LOCAL_MEMORY`]). `__local` pointer arguments are
//! placed after the variables by the executor, which knows their sizes only at launch.

use std::collections::HashMap;

use lanes_ir::{AddrSpace, FuncCursor, Function, GlobalId, InstData, IntFlags, Module, Type};

use crate::group_context::field;

/// Where the `__local` variables of one kernel lie in its group's local memory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LocalLayout {
    /// Bytes the variables take (the arguments' memory starts after it, aligned).
    pub size: u64,
    /// Each variable's name and offset.
    pub offsets: Vec<(String, u64)>,
}

/// Alignment of every `__local` variable and argument: the widest vector access lanes
/// makes (64 bytes) and a cache line.
pub const LOCAL_ALIGN: u64 = 64;

/// Replaces the addresses of `module`'s `__local` globals in `func` (the work-item
/// function, whose context parameter is `ctx`) by offsets into the group's local
/// memory; returns their layout.
pub fn place_local_variables(
    module: &Module,
    func: &mut Function,
    ctx: lanes_ir::Value,
) -> LocalLayout {
    let mut layout = LocalLayout::default();
    let mut offset_of: HashMap<GlobalId, u64> = HashMap::new();
    let blocks: Vec<_> = func.layout.blocks().collect();
    for b in blocks {
        for inst in func.layout.block_insts(b).to_vec() {
            let InstData::GlobalAddr { global } = *func.dfg.inst(inst) else {
                continue;
            };
            let g = &module.globals[global];
            if g.space != AddrSpace::LOCAL {
                continue;
            }
            let off = *offset_of.entry(global).or_insert_with(|| {
                let at = layout
                    .size
                    .next_multiple_of(LOCAL_ALIGN.max(u64::from(g.align)));
                layout.size = at + g.size;
                layout.offsets.push((g.name.clone(), at));
                at
            });
            let Some(addr) = func.dfg.inst_result(inst) else {
                continue;
            };
            let ty = func.dfg.value_type(addr);
            let mut cur = FuncCursor::new(func);
            cur.goto_inst(inst);
            let base = crate::work_items::ctx_field(&mut cur, ctx, field::LOCAL_MEMORY, ty);
            let imm = cur.insert_value(InstData::Iconst { imm: off as i64 }, Type::I64);
            *cur.func.dfg.inst_mut(inst) = InstData::PtrAdd {
                args: [base, imm],
                flags: IntFlags::PTRADD,
            };
        }
    }
    layout.size = layout.size.next_multiple_of(LOCAL_ALIGN);
    layout
}
