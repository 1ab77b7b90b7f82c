//! Vector μ-nodes (SuperVectorization, PLDI'22 §3.4, Fig. 11): a pack of a loop's
//! μ-nodes becomes one μ-node of vector type, whose initial vector is built before the
//! loop from the lanes' initial values and whose recursive vector is the pack of the
//! lanes' recursive values. Scalar code that still reads a lane reads it extracted at
//! the top of the iteration (after the loop, the last iteration's, as a scalar μ-node's
//! value would be). A loop that goes on while any lane of a pack holds — a co-iterated
//! loop's `active` flags — tests the vector once (`vreduce or` in Fig. 11).

use std::collections::HashSet;

use lanes_ir::{Inst, InstData, Intrinsic, Type, Value};

use super::Emitter;
use crate::pack_tree::{Node, PackTree};
use crate::pssa::{Item, LoopId, Mu};

/// A vector μ-node opened for a μ pack: (tree, node, its φ instruction).
pub(super) type OpenMu = (usize, usize, Inst);

impl Emitter<'_> {
    /// Vector μ-nodes for the μ packs of `trees`, with the lanes scalar code reads
    /// extracted: the first items of the loop's list.
    pub(super) fn open_mus(
        &mut self,
        trees: &[PackTree],
        read_outside: &HashSet<Value>,
    ) -> Vec<OpenMu> {
        let mut opened = Vec::new();
        for (t, tree) in trees.iter().enumerate() {
            for (k, node) in tree.nodes.iter().enumerate() {
                let Node::Mu { insts, .. } = node else {
                    continue;
                };
                let dfg = &self.e.pssa.func.dfg;
                let elem = dfg
                    .value_type(dfg.inst_result(insts[0]).expect("a μ"))
                    .elem();
                let ty = Type::vector(insts.len() as u16, elem);
                let (phi, v) = self.e.pssa.new_phi(ty);
                self.vectors.insert((t, k), v);
                let always = self.e.pssa.preds.always();
                self.extract_read(insts, v, always, read_outside);
                opened.push((t, k, phi));
            }
        }
        opened
    }

    /// Each opened vector μ-node completed: its recursive vector at the end of the
    /// iteration, its initial one built by the returned items (for the list holding the
    /// loop, before it), the scalar μ-nodes it replaces gone from loop `l`.
    pub(super) fn close_mus(
        &mut self,
        l: LoopId,
        trees: &[PackTree],
        opened: &[OpenMu],
    ) -> Vec<Item> {
        let always = self.e.pssa.preds.always();
        let outside = self.e.pssa.loops[l].pred;
        let mut before = Vec::new();
        let mut replaced: HashSet<Inst> = HashSet::new();
        for &(t, k, phi) in opened {
            let nodes = &trees[t].nodes;
            let Node::Mu { insts, init, rec } = &nodes[k] else {
                unreachable!("opened for a μ pack")
            };
            let rec = self.operand(nodes, t, *rec, always);
            let inside = std::mem::take(&mut self.e.items);
            let init = self.operand(nodes, t, *init, outside);
            before.extend(std::mem::replace(&mut self.e.items, inside));
            let value = self.vectors[&(t, k)];
            self.e.pssa.loops[l].mus.push(Mu {
                inst: phi,
                value,
                init,
                rec,
            });
            replaced.extend(insts.iter().copied());
        }
        self.e.pssa.loops[l]
            .mus
            .retain(|m| !replaced.contains(&m.inst));
        before
    }

    /// Loop `l`'s continue predicate as one `any` of a packed vector of `i1`, where it is
    /// the disjunction of exactly that pack's lanes.
    pub(super) fn any_cont(&mut self, l: LoopId, trees: &[PackTree]) {
        let Some(conds) = self.e.pssa.preds.disjoined_conds(self.e.pssa.loops[l].cont) else {
            return;
        };
        let conds: HashSet<Value> = conds.into_iter().collect();
        let f = &self.e.pssa.func;
        let found = trees.iter().enumerate().find_map(|(t, tree)| {
            tree.nodes.iter().enumerate().find_map(|(k, n)| {
                let lanes: HashSet<Value> = n
                    .insts()
                    .iter()
                    .filter_map(|&i| f.dfg.inst_result(i))
                    .collect();
                (!lanes.is_empty() && lanes == conds)
                    .then(|| self.vectors.get(&(t, k)).copied())
                    .flatten()
            })
        });
        let Some(vector) = found else { return };
        if !self.e.pssa.func.dfg.value_type(vector).is_bool() {
            return;
        }
        let always = self.e.pssa.preds.always();
        let any = self.e.value(
            InstData::Intrinsic {
                id: Intrinsic::Any,
                args: vec![vector],
            },
            Type::I1,
            always,
        );
        self.e.pssa.loops[l].cont = self.e.pssa.preds.lit(any, false);
    }
}
