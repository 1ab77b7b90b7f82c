//! Choosing vector packs (SuperVectorization, PLDI'22 §3.2): bottom-up SLP over one
//! item list of Predicated SSA.
//!
//! Seeds are runs of stores to adjacent addresses. From each seed the packer follows the
//! use-def chains, packing the operands of a pack when they are isomorphic instructions
//! of the same list (same operation, types and immediates, one per lane, commutative
//! operands swapped to match), adjacent loads, or gated φs, and stopping at anything
//! else, which becomes a vector built from scalars (or a splat of one value). Because
//! items carry their predicates, lanes may sit under different control predicates — in
//! the paper's words, packs span basic blocks: pure operations are then executed under
//! the predicates' common part (speculated), loads and stores become masked, gated φs
//! blends; only operations that can trap need equal predicates.
//!
//! A tree is kept when it is legal — no lane of a pack depends on another, and the list
//! stays schedulable with every kept pack as one node (§3.4) — and when the cost model
//! says it pays (§4.3): the scalar instructions it replaces outweigh the vector ones,
//! the vectors built from scalars and the extractions of lanes still used as scalars.

use std::collections::{HashMap, HashSet};

use lanes_ir::{Inst, InstData, Type};

use crate::address::Address;
use crate::cost::CostModel;
use crate::dependence::{ListDeps, MemEffect};
use crate::grow::Grower;
pub use crate::pack_tree::{Mask, Node, PackTree};
use crate::pssa::{Item, LoopId, Pssa};
pub use crate::schedule::{schedule, schedule_groups, Grouped, Scheduled};

/// Why a candidate tree was not kept, for remarks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejection {
    /// The packs would have to run in an order the list's dependences forbid.
    Dependence,
    /// The cost model found no saving (`saving` ≤ 0).
    NotProfitable { saving: i64 },
}

/// The outcome of packing one list.
#[derive(Clone, Debug, Default)]
pub struct ListPacking {
    pub trees: Vec<PackTree>,
    /// Seeds tried and not kept: the first store of the seed, and why.
    pub rejected: Vec<(Inst, Rejection)>,
}

/// Finds the packs of the list of `l` (`None`: the function's).
///
/// Seeds are first grown together, later trees reusing earlier trees' packs, and kept
/// together when their joint saving pays — a value two trees read (the two sides of an
/// if-else both updating one element, say) then needs no extraction. Where that fails,
/// each seed is tried alone, greedily.
pub fn pack_list(pssa: &Pssa, l: Option<LoopId>, cost: &dyn CostModel) -> ListPacking {
    let deps = ListDeps::of(pssa, l);
    let reach = deps.reachability();
    let mut seeds = store_seeds(pssa, &deps, cost);
    seeds.extend(mu_seeds(pssa, l, cost));
    if seeds.len() > 1 {
        if let Some(joint) = pack_jointly(pssa, l, &deps, &reach, &seeds, cost) {
            return joint;
        }
    }
    let mut out = ListPacking::default();
    let mut packed: HashSet<Inst> = HashSet::new();
    for seed in seeds {
        if seed.insts().iter().any(|i| packed.contains(i)) {
            continue;
        }
        let mut grower = Grower::new(pssa, l, &deps, &reach, &packed, &[]);
        if grower.seed_tree(&seed).is_none() {
            // A lane's store depends on another's (through memory or values).
            out.rejected.push((seed.insts()[0], Rejection::Dependence));
            continue;
        }
        let nodes = grower.nodes;
        let saving = cost.saving(pssa, l, &nodes, &HashSet::new());
        if saving <= 0 {
            out.rejected
                .push((seed.insts()[0], Rejection::NotProfitable { saving }));
            continue;
        }
        let mut trial: Vec<&[Node]> = out.trees.iter().map(|t| &t.nodes[..]).collect();
        trial.push(&nodes);
        if schedule(&deps, &trial).is_none() {
            out.rejected.push((seed.insts()[0], Rejection::Dependence));
            continue;
        }
        packed.extend(nodes.iter().flat_map(|n| n.insts().iter().copied()));
        out.trees.push(PackTree { nodes, saving });
    }
    out
}

/// Every seed grown, each tree reusing the packs of the trees before it; the set if it
/// is schedulable and its joint saving is positive.
fn pack_jointly(
    pssa: &Pssa,
    l: Option<LoopId>,
    deps: &ListDeps,
    reach: &[Vec<u64>],
    seeds: &[Seed],
    cost: &dyn CostModel,
) -> Option<ListPacking> {
    let mut trees: Vec<Vec<Node>> = Vec::new();
    let mut packed: HashSet<Inst> = HashSet::new();
    for seed in seeds {
        if seed.insts().iter().any(|i| packed.contains(i)) {
            continue;
        }
        let prior: Vec<&[Node]> = trees.iter().map(|t| t.as_slice()).collect();
        let mut grower = Grower::new(pssa, l, deps, reach, &packed, &prior);
        grower.seed_tree(seed)?;
        let nodes = grower.nodes;
        packed.extend(nodes.iter().flat_map(|n| n.insts().iter().copied()));
        trees.push(nodes);
    }
    if trees.len() < 2 {
        return None;
    }
    let savings: Vec<i64> = trees
        .iter()
        .map(|t| {
            let mine: HashSet<Inst> = t.iter().flat_map(|n| n.insts().iter().copied()).collect();
            let others: HashSet<Inst> = packed.difference(&mine).copied().collect();
            cost.saving(pssa, l, t, &others)
        })
        .collect();
    if savings.iter().sum::<i64>() <= 0 {
        return None;
    }
    let refs: Vec<&[Node]> = trees.iter().map(|t| &t[..]).collect();
    schedule(deps, &refs)?;
    Some(ListPacking {
        trees: trees
            .into_iter()
            .zip(savings)
            .map(|(nodes, saving)| PackTree { nodes, saving })
            .collect(),
        rejected: Vec::new(),
    })
}

/// Where a tree starts (§3.2): stores to adjacent addresses, or μ-nodes of one loop
/// that are copies of one another.
#[derive(Clone, Debug)]
pub(crate) enum Seed {
    Stores(Vec<Inst>),
    Mus(Vec<Inst>),
}

impl Seed {
    fn insts(&self) -> &[Inst] {
        match self {
            Seed::Stores(i) | Seed::Mus(i) => i,
        }
    }
}

impl Grower<'_> {
    fn seed_tree(&mut self, seed: &Seed) -> Option<usize> {
        match seed {
            Seed::Stores(s) => self.store_tree(s),
            Seed::Mus(m) => self.mu_tree(m),
        }
    }
}

/// The columns of μ-nodes of the loop `l` (the copies of one μ-node in loops merged into
/// it), cut into chunks of as many lanes as a register holds.
fn mu_seeds(pssa: &Pssa, l: Option<LoopId>, cost: &dyn CostModel) -> Vec<Seed> {
    let Some(l) = l else { return Vec::new() };
    let f = &pssa.func;
    let mut seeds = Vec::new();
    for col in &pssa.loops[l].columns {
        let Some(ty) = f.dfg.inst_result(col[0]).map(|v| f.dfg.value_type(v)) else {
            continue;
        };
        seeds.extend(chunks(col, cost.max_lanes(ty)).into_iter().map(Seed::Mus));
    }
    seeds
}

/// `run` cut into chunks of a power of two lanes, at most `max`, at least 2.
fn chunks(run: &[Inst], max: usize) -> Vec<Vec<Inst>> {
    let mut out = Vec::new();
    let mut rest = run;
    while rest.len() >= 2 {
        let lanes = (rest.len().min(max)).next_power_of_two();
        let lanes = if lanes > rest.len() { lanes / 2 } else { lanes };
        out.push(rest[..lanes].to_vec());
        rest = &rest[lanes..];
    }
    out
}

/// Stores of one type to one symbolic address: (address, type, (offset, store)s).
type StoreGroup = (Address, Type, Vec<(i64, Inst)>);

/// Runs of stores to adjacent addresses, cut into chunks of as many lanes as a vector
/// register holds (a power of two, at least 2), longest first.
fn store_seeds(pssa: &Pssa, deps: &ListDeps, cost: &dyn CostModel) -> Vec<Seed> {
    let func = &pssa.func;
    // Group by symbolic address and stored type.
    let mut groups: Vec<StoreGroup> = Vec::new();
    for (pos, &item) in deps.items.iter().enumerate() {
        let Item::Inst(inst) = item else { continue };
        let MemEffect::Access {
            addr, write: true, ..
        } = &deps.effects[pos]
        else {
            continue;
        };
        let InstData::Store { value, .. } = *func.dfg.inst(inst) else {
            continue;
        };
        let ty = func.dfg.value_type(value);
        if ty.is_vector() || ty.is_bool() {
            continue;
        }
        match groups
            .iter_mut()
            .find(|g| g.1 == ty && g.0.same_symbolic(addr))
        {
            Some(g) => g.2.push((addr.offset, inst)),
            None => groups.push((addr.clone(), ty, vec![(addr.offset, inst)])),
        }
    }
    let mut seeds = Vec::new();
    for (_, ty, stores) in groups {
        let size = i64::from(ty.bytes());
        let max = cost.max_lanes(ty);
        // Several stores to one address (one per branch of an if-else chain, say) make
        // layers: the k-th store to each address, in list order, belongs to layer k, so
        // that unrolled copies of one branch's store line up.
        let mut layers: Vec<Vec<(i64, Inst)>> = Vec::new();
        let mut seen: HashMap<i64, usize> = HashMap::new();
        for (off, inst) in stores {
            let layer = seen.entry(off).or_insert(0);
            if layers.len() <= *layer {
                layers.push(Vec::new());
            }
            layers[*layer].push((off, inst));
            *layer += 1;
        }
        for mut layer in layers {
            layer.sort_by_key(|s| s.0);
            let mut run: Vec<Inst> = Vec::new();
            let mut last: Option<i64> = None;
            let flush = |run: &mut Vec<Inst>, seeds: &mut Vec<Seed>| {
                seeds.extend(chunks(run, max).into_iter().map(Seed::Stores));
                run.clear();
            };
            for (off, inst) in layer {
                if last.is_some_and(|l| off != l + size) {
                    flush(&mut run, &mut seeds);
                }
                run.push(inst);
                last = Some(off);
            }
            flush(&mut run, &mut seeds);
        }
    }
    seeds.sort_by_key(|s| std::cmp::Reverse(s.insts().len()));
    seeds
}
