//! The call graph of a module, with its strongly connected components.
//!
//! Interprocedural questions — does a helper (or anything it calls) query its work item or
//! read other lanes, may a callee's shape summary be used, in which order to visit callees
//! before callers — are walks over this graph. Asking them by recursing over call
//! instructions overflows the stack on a cycle of helpers; the graph instead answers them
//! by a worklist over its nodes, and [`CallGraph::is_recursive`] names the functions whose
//! summaries would have to be fixpoints, so that callers fall back to the conservative
//! answer for them (CC'12 §3.3 vectorizes callees bottom-up; recursion is where that stops).
//!
//! Edges: a `call` to a defined or declared function is an edge to it. A `call_indirect`
//! may reach any function whose address the module takes (`func_addr`), the usual
//! conservative answer without points-to information.

use cranelift_entity::{EntityRef, EntitySet, SecondaryMap};
use lanes_ir::{FuncId, InstData, Module};

use lanes_ir::graph::strongly_connected_components;
use lanes_ir::graph::Adjacency;

/// Callees, callers and SCCs of a module's functions.
#[derive(Clone, Debug, Default)]
pub struct CallGraph {
    callees: SecondaryMap<FuncId, Vec<FuncId>>,
    callers: SecondaryMap<FuncId, Vec<FuncId>>,
    /// Components in reverse topological order: callees before callers.
    sccs: Vec<Vec<FuncId>>,
    scc_of: SecondaryMap<FuncId, u32>,
    recursive: EntitySet<FuncId>,
    address_taken: EntitySet<FuncId>,
    valid: bool,
}

impl CallGraph {
    /// An empty, invalid call graph.
    pub fn new() -> Self {
        Self::default()
    }

    /// The call graph of `module`.
    pub fn with_module(module: &Module) -> Self {
        let mut g = Self::new();
        g.compute(module);
        g
    }

    pub fn clear(&mut self) {
        *self = Self::new();
    }

    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// Fills the graph from `module`.
    pub fn compute(&mut self, module: &Module) {
        self.clear();
        let n = module.funcs.len();
        let mut indirect_callers = Vec::new();
        for (f, body) in module.functions() {
            let mut out: Vec<FuncId> = Vec::new();
            let mut indirect = false;
            for i in body.dfg.insts() {
                match body.dfg.inst(i) {
                    InstData::Call { func, .. } if func.index() < n => out.push(*func),
                    InstData::CallIndirect { .. } => indirect = true,
                    InstData::FuncAddr { func } if func.index() < n => {
                        self.address_taken.insert(*func);
                    }
                    _ => {}
                }
            }
            if indirect {
                indirect_callers.push(f);
            }
            self.callees[f] = out;
        }
        let taken: Vec<FuncId> = (0..n)
            .map(FuncId::new)
            .filter(|&g| self.address_taken.contains(g))
            .collect();
        for f in indirect_callers {
            self.callees[f].extend(taken.iter().copied());
        }
        let mut adjacency = Adjacency::new();
        for k in 0..n {
            let f = FuncId::new(k);
            let list = &mut self.callees[f];
            list.sort_unstable();
            list.dedup();
            adjacency.push_node(list.iter().map(|c| c.index() as u32));
            for &c in list.iter() {
                self.callers[c].push(f);
            }
        }
        for (k, component) in strongly_connected_components(&adjacency, |_| true)
            .into_iter()
            .enumerate()
        {
            let members: Vec<FuncId> = component.iter().map(|&x| FuncId::new(x as usize)).collect();
            for &f in &members {
                self.scc_of[f] = k as u32;
                if members.len() > 1 || self.callees[f].contains(&f) {
                    self.recursive.insert(f);
                }
            }
            self.sccs.push(members);
        }
        self.valid = true;
    }

    /// The functions `f` calls directly (or may call through a pointer), each once.
    pub fn callees(&self, f: FuncId) -> &[FuncId] {
        &self.callees[f]
    }

    /// The functions that call `f`.
    pub fn callers(&self, f: FuncId) -> &[FuncId] {
        &self.callers[f]
    }

    /// Is `f` part of a cycle of calls (itself included)?
    pub fn is_recursive(&self, f: FuncId) -> bool {
        self.recursive.contains(f)
    }

    /// Is the address of `f` taken (so that an indirect call may reach it)?
    pub fn is_address_taken(&self, f: FuncId) -> bool {
        self.address_taken.contains(f)
    }

    /// The strongly connected components, callees before callers: visiting them in this
    /// order sees every callee outside a cycle before its callers.
    pub fn sccs_bottom_up(&self) -> &[Vec<FuncId>] {
        &self.sccs
    }

    /// The index of `f`'s component in [`Self::sccs_bottom_up`].
    pub fn scc_of(&self, f: FuncId) -> usize {
        self.scc_of[f] as usize
    }

    /// Every function `f` calls, directly or transitively (not `f` itself unless it is
    /// recursive), each once, in breadth-first order.
    pub fn reachable_callees(&self, f: FuncId) -> Vec<FuncId> {
        let mut seen: EntitySet<FuncId> = EntitySet::new();
        let mut order = Vec::new();
        let mut work: Vec<FuncId> = self.callees[f].clone();
        let mut next = 0;
        while next < work.len() {
            let g = work[next];
            next += 1;
            if seen.insert(g) {
                order.push(g);
                work.extend(self.callees[g].iter().copied());
            }
        }
        order
    }

    /// Does `f` or any function it may call satisfy `hit`?
    pub fn reaches(&self, f: FuncId, mut hit: impl FnMut(FuncId) -> bool) -> bool {
        hit(f) || self.reachable_callees(f).into_iter().any(hit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanes_ir::parse_module;

    const CYCLE: &str = "\
declare @ext(i32) -> i32

function @a(v0: i32) -> i32 {
block0:
    v1: i32 = call @b(v0)
    ret v1
}

function @b(v0: i32) -> i32 {
block0:
    v1: i32 = call @c(v0)
    ret v1
}

function @c(v0: i32) -> i32 {
block0:
    v1: i32 = call @a(v0)
    v2: i32 = call @ext(v1)
    ret v2
}

function @leaf(v0: i32) -> i32 {
block0:
    ret v0
}

function @top(v0: i32) -> i32 {
block0:
    v1: i32 = call @a(v0)
    v2: ptr = func_addr @leaf
    v3: i32 = call_indirect v2(v1)
    ret v3
}
";

    #[test]
    fn a_cycle_of_three_helpers_is_one_recursive_component() {
        let m = parse_module(CYCLE).unwrap();
        let g = CallGraph::with_module(&m);
        assert!(g.is_valid());
        let id = |n: &str| m.func_by_name(n).unwrap();
        let (a, b, c, leaf, top, ext) =
            (id("a"), id("b"), id("c"), id("leaf"), id("top"), id("ext"));
        for f in [a, b, c] {
            assert!(g.is_recursive(f));
            assert_eq!(g.scc_of(f), g.scc_of(a));
        }
        assert!(!g.is_recursive(top) && !g.is_recursive(leaf) && !g.is_recursive(ext));
        // The indirect call may reach the function whose address is taken.
        assert!(g.is_address_taken(leaf));
        assert_eq!(g.callees(top), &[a, leaf]);
        assert_eq!(g.callers(a), &[c, top]);
        // Bottom-up: callees' components before callers'.
        assert!(g.scc_of(ext) < g.scc_of(a) && g.scc_of(a) < g.scc_of(top));
        assert!(g.scc_of(leaf) < g.scc_of(top));
        // Transitive callees, each once, and no endless walk around the cycle.
        let mut all = g.reachable_callees(top);
        all.sort();
        let mut want = vec![a, b, c, ext, leaf];
        want.sort();
        assert_eq!(all, want);
        assert!(g.reaches(a, |f| f == ext));
        assert!(!g.reaches(leaf, |f| f == ext));
    }
}
