//! From a skeleton to a function in SSA form, with terminating loops.
//!
//! Two phases, both linear in the size of the function:
//! 1. **φ placement.** Every loop `L` has a counter variable threaded through the blocks of
//!    its interval. Its value on entry to a block `b` of `L` is zero if all of `b`'s
//!    predecessors lie outside `L` (the loop is being entered), the value at the end of
//!    the single predecessor if `b` has one and it lies in `L`, and a φ otherwise — the
//!    φ-at-every-join construction, which is valid SSA for any CFG, irreducible ones
//!    included, since the value at the end of a block is always defined in a dominator of
//!    it. Every join block also gets up to `max_phis` data φs of random types.
//! 2. **Emission** in a preorder walk of the dominator tree ([`super::dom`]), with the
//!    scoped [`Pool`] of usable values. At the end of each block, the φs of its successors
//!    get their incoming value for this block: the loop counter, or a random value
//!    available here. The φ incoming lists are created with one entry per distinct
//!    predecessor block, ascending, as the verifier requires.
//!
//! Termination: a latch of `L` computes `next = counter + 1` and takes its back edge only
//! if `next < bound` (possibly also a data condition); `next` flows along all its edges.
//! Within one stay in `L` the counter never decreases, so at most `bound - 1` back edges of
//! `L` are taken; a stay ends by leaving `L`, and `L` can only be re-entered through a back
//! edge of an enclosing loop (all other edges go forward). So the number of stays of `L` is
//! bounded by the product of its ancestors' bounds, and every run terminates.

use arbitrary::{Result, Unstructured};
use cranelift_entity::packed_option::ReservedValue;
use cranelift_entity::EntityRef;

use super::cfg_shape::{Skeleton, Term};
use super::dom::SkeletonDominance;
use super::pool::{Pool, Slot};
use super::{buffer_ptr_type, chance, range, GenConfig, GenInfo, GenParam, BUFFER_ALIGN};
use crate::entities::{Block, FuncId, GlobalId, Inst, Value};
use crate::flags::IntFlags;
use crate::function::Function;
use crate::instructions::InstData;
use crate::opcodes::{BinaryOp, IntCC};
use crate::types::{AddrSpace, Type};

/// The signature of the helper function the main function may call.
#[derive(Clone, Debug)]
pub(super) struct HelperSig {
    pub id: FuncId,
    pub params: Vec<Type>,
    pub ret: Type,
}

/// A module global the function may access.
#[derive(Clone, Copy, Debug)]
pub(super) struct GlobalRef {
    pub id: GlobalId,
    pub bytes: u64,
    pub space: AddrSpace,
    pub writable: bool,
}

/// What the module offers a generated function besides its parameters.
#[derive(Clone, Debug, Default)]
pub(super) struct Env {
    pub helper: Option<HelperSig>,
    pub globals: Vec<GlobalRef>,
}

/// A memory region every access must stay inside.
#[derive(Clone, Copy, Debug)]
pub(super) struct Buffer {
    pub base: Value,
    pub bytes: u64,
    /// False for constant tables: only loads.
    pub writable: bool,
    /// A typed stack array: only scalar accesses of this slot.
    pub elem: Option<super::pool::Slot>,
}

/// The generator's state while emitting one function.
pub(super) struct Gen<'u, 'a> {
    pub u: &'u mut Unstructured<'a>,
    pub cfg: &'u GenConfig,
    pub func: Function,
    /// The block instructions are appended to.
    pub cur: Block,
    pub pool: Pool,
    /// The slots in use (all present in the pool from the entry block on).
    pub slots: Vec<Slot>,
    /// Vector width (1 without vectors; vector slots are then unused).
    pub width: u16,
    pub buffers: Vec<Buffer>,
    pub env: &'u Env,
}

/// A loop counter's value on entry to a block.
#[derive(Clone, Copy, Debug)]
enum CounterIn {
    Zero,
    /// The value at the end of the single predecessor.
    Out(usize),
    Phi(Value),
}

/// The φs and counter entry values of one block.
#[derive(Default)]
struct BlockPhis {
    counters: Vec<(usize, CounterIn)>,
    counter_phis: Vec<(Inst, usize)>,
    data_phis: Vec<(Inst, Slot)>,
}

/// Generates a function named `name` with `params` returning `ret`.
pub(super) fn gen_function(
    u: &mut Unstructured,
    cfg: &GenConfig,
    name: &str,
    params: &[GenParam],
    ret: Type,
    env: &Env,
) -> Result<(Function, GenInfo)> {
    let types: Vec<Type> = params
        .iter()
        .map(|p| match p {
            GenParam::Int(t) | GenParam::Float(t) => *t,
            GenParam::Buffer { .. } => buffer_ptr_type(),
        })
        .collect();
    let mut func = Function::new(name, &types, Some(ret));
    for (p, kind) in func.params.iter_mut().zip(params) {
        if let GenParam::Buffer { .. } = kind {
            p.attrs.align = BUFFER_ALIGN;
        }
    }
    let lo = cfg.min_blocks.max(1);
    let n = range(u, lo, cfg.max_blocks.max(lo))?;
    let sk = Skeleton::generate(u, cfg, n)?;
    let width = cfg.vector_width.filter(|&w| w >= 1);
    let mut slots = vec![Slot::I1, Slot::I8, Slot::I16, Slot::I32, Slot::I64];
    if cfg.floats {
        slots.extend([Slot::F32, Slot::F64]);
    }
    if width.is_some() {
        slots.extend([Slot::VI32, Slot::VI64, Slot::Mask]);
        if cfg.floats {
            slots.extend([Slot::VF32, Slot::VF64]);
        }
    }
    let mut g = Gen {
        u,
        cfg,
        func,
        cur: Block::new(0),
        pool: Pool::default(),
        slots,
        width: width.unwrap_or(1),
        buffers: vec![],
        env,
    };
    let dominance = SkeletonDominance::new(&sk.succs);
    let children = dominance.children();
    g.emit(&sk, &children, params)?;
    let info = GenInfo {
        irreducible: dominance.is_irreducible(),
        blocks: sk.len(),
        loops: sk.loops.len(),
        max_loop_depth: sk.loops.iter().map(|l| l.depth).max().unwrap_or(0),
        side_entries: side_entries(&sk)
            .iter()
            .map(|&(a, b)| (Block::new(a), Block::new(b)))
            .collect(),
        helper: None,
    };
    Ok((g.func, info))
}

impl Gen<'_, '_> {
    /// Appends an instruction with a result of type `ty` to the current block.
    pub(super) fn ins(&mut self, data: InstData, ty: Type) -> Value {
        let inst = self.func.dfg.make_inst(data, Some(ty));
        self.func.layout.append_inst(inst, self.cur);
        self.func
            .dfg
            .inst_result(inst)
            .expect("created with a result")
    }

    /// Appends an instruction without result.
    pub(super) fn ins_void(&mut self, data: InstData) {
        let inst = self.func.dfg.make_inst(data, None);
        self.func.layout.append_inst(inst, self.cur);
    }

    /// Appends an instruction and makes its result usable.
    pub(super) fn def(&mut self, data: InstData, slot: Slot) -> Value {
        let v = self.ins(data, slot.ty(self.width));
        self.pool.push(slot, v);
        v
    }

    pub(super) fn has(&self, slot: Slot) -> bool {
        self.slots.contains(&slot)
    }

    /// A usable value of `slot`, preferring recent ones.
    pub(super) fn pick(&mut self, slot: Slot) -> Result<Value> {
        let n = self.pool.get(slot).len();
        if n == 0 {
            // Unreachable after seeding; stay total anyway.
            return Ok(self.constant(slot, 0));
        }
        let idx = if chance(self.u, 3, 4)? {
            n - 1 - range(self.u, 0, n.min(8) - 1)?
        } else {
            range(self.u, 0, n - 1)?
        };
        Ok(self.pool.get(slot)[idx])
    }

    /// A φ operand for the edge leaving the current block: mostly a value defined in this
    /// block, so that a join merges different values from different paths.
    fn pick_incoming(&mut self, slot: Slot) -> Result<Value> {
        let n = self.pool.local(slot).len();
        if n > 0 && chance(self.u, 3, 4)? {
            let k = range(self.u, 0, n - 1)?;
            return Ok(self.pool.local(slot)[k]);
        }
        self.pick(slot)
    }

    /// A usable value of `slot`, different from `other` when the pool allows it.
    pub(super) fn pick_other(&mut self, slot: Slot, other: Value) -> Result<Value> {
        for _ in 0..3 {
            let v = self.pick(slot)?;
            if v != other {
                return Ok(v);
            }
        }
        Ok(other)
    }

    /// Two usable values of `slot`, distinct when the pool allows it.
    pub(super) fn pick2(&mut self, slot: Slot) -> Result<[Value; 2]> {
        let a = self.pick(slot)?;
        Ok([a, self.pick_other(slot, a)?])
    }

    /// A random slot among those in use, satisfying `keep`.
    pub(super) fn pick_slot(&mut self, keep: impl Fn(Slot) -> bool) -> Result<Option<Slot>> {
        let cands: Vec<Slot> = self.slots.iter().copied().filter(|&s| keep(s)).collect();
        if cands.is_empty() {
            return Ok(None);
        }
        Ok(Some(cands[range(self.u, 0, cands.len() - 1)?]))
    }

    fn emit(&mut self, sk: &Skeleton, children: &[Vec<usize>], params: &[GenParam]) -> Result<()> {
        let n = sk.len();
        let blocks: Vec<Block> = (0..n).map(|_| self.func.append_new_block()).collect();
        let mut counter_ty = Vec::with_capacity(sk.loops.len());
        for _ in &sk.loops {
            counter_ty.push(if chance(self.u, 1, 2)? {
                Slot::I32
            } else {
                Slot::I64
            });
        }
        let phis = self.place_phis(sk, &blocks, &counter_ty)?;

        let mut couts: Vec<Vec<(usize, Value)>> = vec![vec![]; n];
        let mut zero = [Value::reserved_value(); 2];
        // Preorder walk; `None` closes the scope of the last opened block.
        let mut stack = vec![Some(0usize)];
        while let Some(item) = stack.pop() {
            let Some(b) = item else {
                self.pool.leave();
                continue;
            };
            self.pool.enter();
            self.cur = blocks[b];
            if b == 0 {
                self.seed(params)?;
                zero = [self.constant(Slot::I32, 0), self.constant(Slot::I64, 0)];
            }
            let zero_of = |s: Slot| if s == Slot::I32 { zero[0] } else { zero[1] };
            // Values on entry: counters (usable as induction variables) and data φs.
            let mut out = Vec::with_capacity(phis[b].counters.len());
            for &(lp, cin) in &phis[b].counters {
                let v = match cin {
                    CounterIn::Zero => zero_of(counter_ty[lp]),
                    CounterIn::Phi(v) => v,
                    CounterIn::Out(p) => lookup(&couts[p], lp),
                };
                self.pool.push(counter_ty[lp], v);
                out.push((lp, v));
            }
            for &(inst, slot) in &phis[b].data_phis {
                let v = self.func.dfg.inst_result(inst).expect("φ has a result");
                self.pool.push(slot, v);
            }
            for _ in 0..range(self.u, 0, self.cfg.max_insts_per_block)? {
                self.gen_inst()?;
            }
            self.terminate(sk, b, &blocks, &mut out, &counter_ty)?;
            // Incoming values of the successors' φs for the edge from `b`.
            for &s in &sk.succs[b] {
                for &(inst, lp) in &phis[s].counter_phis {
                    let v = if sk.loops[lp].contains(b) {
                        lookup(&out, lp)
                    } else {
                        zero_of(counter_ty[lp])
                    };
                    self.set_incoming(inst, blocks[b], v);
                }
                for &(inst, slot) in &phis[s].data_phis {
                    let v = self.pick_incoming(slot)?;
                    self.set_incoming(inst, blocks[b], v);
                }
            }
            couts[b] = out;
            stack.push(None);
            stack.extend(children[b].iter().rev().map(|&c| Some(c)));
        }
        Ok(())
    }

    /// Phase 1: creates the φs of every block at its top, with placeholder values.
    fn place_phis(
        &mut self,
        sk: &Skeleton,
        blocks: &[Block],
        counter_ty: &[Slot],
    ) -> Result<Vec<BlockPhis>> {
        let mut all = Vec::with_capacity(sk.len());
        for b in 0..sk.len() {
            let mut phis = BlockPhis::default();
            let preds = &sk.preds[b];
            let placeholder: Vec<(Block, Value)> = preds
                .iter()
                .map(|&p| (blocks[p], Value::reserved_value()))
                .collect();
            self.cur = blocks[b];
            for lp in sk.loops_of(b) {
                let inside = preds.iter().filter(|&&p| sk.loops[lp].contains(p)).count();
                let cin = if inside == 0 {
                    CounterIn::Zero
                } else if preds.len() == 1 {
                    CounterIn::Out(preds[0])
                } else {
                    let (inst, v) = self.phi(placeholder.clone(), counter_ty[lp]);
                    phis.counter_phis.push((inst, lp));
                    CounterIn::Phi(v)
                };
                phis.counters.push((lp, cin));
            }
            if preds.len() >= 2 {
                for _ in 0..range(self.u, 0, self.cfg.max_phis)? {
                    let Some(slot) = self.pick_slot(|_| true)? else {
                        break;
                    };
                    let (inst, _) = self.phi(placeholder.clone(), slot);
                    phis.data_phis.push((inst, slot));
                }
            }
            all.push(phis);
        }
        Ok(all)
    }

    /// Appends a φ of `slot` with the given incoming list to the current block.
    fn phi(&mut self, incoming: Vec<(Block, Value)>, slot: Slot) -> (Inst, Value) {
        let inst = self
            .func
            .dfg
            .make_inst(InstData::Phi { incoming }, Some(slot.ty(self.width)));
        self.func.layout.append_inst(inst, self.cur);
        let v = self
            .func
            .dfg
            .inst_result(inst)
            .expect("created with a result");
        (inst, v)
    }

    fn set_incoming(&mut self, phi: Inst, pred: Block, v: Value) {
        if let InstData::Phi { incoming } = self.func.dfg.inst_mut(phi) {
            if let Ok(k) = incoming.binary_search_by_key(&pred, |&(b, _)| b) {
                incoming[k].1 = v;
            }
        }
    }

    /// Emits the terminator of block `b` and the instructions computing its operands;
    /// updates the loop counters flowing out of `b` (`out`) at a latch.
    fn terminate(
        &mut self,
        sk: &Skeleton,
        b: usize,
        blocks: &[Block],
        out: &mut [(usize, Value)],
        counter_ty: &[Slot],
    ) -> Result<()> {
        let data = match &sk.terms[b] {
            Term::Ret => {
                let ret = self.func.ret.unwrap_or(Type::I32);
                let v = self.checksum(ret)?;
                InstData::Return { value: Some(v) }
            }
            Term::Jump(t) => InstData::Jump { dest: blocks[*t] },
            Term::Brif(t, e) => {
                let cond = self.condition()?;
                InstData::Brif {
                    cond,
                    then_dest: blocks[*t],
                    else_dest: blocks[*e],
                }
            }
            Term::Switch { cases, default } => {
                let (arg, values) = self.selector(cases.len())?;
                let cases = values
                    .into_iter()
                    .zip(cases)
                    .map(|(k, &t)| (k, blocks[t]))
                    .collect();
                InstData::Switch {
                    arg,
                    cases,
                    default: blocks[*default],
                }
            }
            &Term::Latch { lp, header, exit } => {
                let slot = counter_ty[lp];
                let k = out.iter().position(|&(l, _)| l == lp).unwrap_or(0);
                let count = out
                    .get(k)
                    .map_or_else(|| self.constant(slot, 0), |&(_, v)| v);
                let one = self.constant(slot, 1);
                let next = self.def(
                    InstData::Binary {
                        op: BinaryOp::Add,
                        args: [count, one],
                        flags: IntFlags::NONE,
                    },
                    slot,
                );
                if let Some(o) = out.get_mut(k) {
                    o.1 = next;
                }
                let bound = self.constant(slot, i64::from(sk.loops[lp].bound));
                let (cc, flip) = *self.u.choose(&[
                    (IntCC::Slt, false),
                    (IntCC::Ult, false),
                    (IntCC::Sge, true),
                    (IntCC::Uge, true),
                ])?;
                let mut guard = self.ins(
                    InstData::Icmp {
                        cond: cc,
                        args: [next, bound],
                    },
                    Type::I1,
                );
                if chance(self.u, 1, 3)? {
                    // A data-dependent exit on top of the counter.
                    let extra = self.condition()?;
                    let op = if flip { BinaryOp::Or } else { BinaryOp::And };
                    guard = self.ins(
                        InstData::Binary {
                            op,
                            args: [guard, extra],
                            flags: IntFlags::NONE,
                        },
                        Type::I1,
                    );
                }
                let (then_dest, else_dest) = if flip {
                    (blocks[exit], blocks[header])
                } else {
                    (blocks[header], blocks[exit])
                };
                InstData::Brif {
                    cond: guard,
                    then_dest,
                    else_dest,
                }
            }
        };
        self.ins_void(data);
        Ok(())
    }
}

/// The distinct side entries, in order.
fn side_entries(sk: &Skeleton) -> Vec<(usize, usize)> {
    let mut edges = sk.side_entries.clone();
    edges.sort_unstable();
    edges.dedup();
    edges
}

fn lookup(out: &[(usize, Value)], lp: usize) -> Value {
    out.iter()
        .find(|&&(l, _)| l == lp)
        .map_or(Value::reserved_value(), |&(_, v)| v)
}
