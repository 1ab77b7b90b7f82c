//! The packs one seed grows into (SuperVectorization, PLDI'22 §3.2): a tree of nodes,
//! each either a pack that becomes one vector instruction or an operand vector made
//! another way (a splat, a vector built from scalars, an earlier tree's pack). The
//! packer builds these, the cost model prices them, and code generation emits them.

use lanes_ir::{Inst, Value};

/// A node of a pack tree.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// Isomorphic instructions, one per lane, with one operand node per operand.
    Pack {
        insts: Vec<Inst>,
        operands: Vec<usize>,
    },
    /// Loads of adjacent addresses: lane `i` reads element `perm[i]` of the vector at
    /// the lowest address (lane `first`'s); `perm` is the identity unless lanes are
    /// permuted, which a shuffle then undoes.
    Load {
        insts: Vec<Inst>,
        first: usize,
        perm: Vec<u32>,
        mask: Option<Mask>,
    },
    /// Stores to adjacent addresses of the values of node `value`.
    Store {
        insts: Vec<Inst>,
        value: usize,
        mask: Option<Mask>,
    },
    /// Gated φs with as many incoming values each, position by position; where gates
    /// differ between lanes, `masks[j]` packs the lanes' gates of incoming `j`.
    Phi {
        insts: Vec<Inst>,
        incoming: Vec<usize>,
        masks: Vec<Option<Mask>>,
    },
    /// μ-nodes of the list's loop, one per lane: a vector μ-node (Fig. 11) starting as
    /// node `init` (built before the loop from the lanes' initial values) and taking
    /// node `rec` (the lanes' recursive values, packed in the loop) from one iteration to
    /// the next.
    Mu {
        insts: Vec<Inst>,
        init: usize,
        rec: usize,
    },
    /// A pack of an earlier tree of the same list with exactly these lanes: its vector.
    Shared { tree: usize, node: usize },
    /// A vector the function already has whose lanes are these values: a pack of a loop
    /// nested in this list (read after that loop, so its last iteration's), or of the
    /// list itself, whose lanes scalar code extracted.
    Vector(Value),
    /// One value in every lane.
    Splat(Value),
    /// Scalars put into a vector one by one.
    Build(Vec<Value>),
}

impl Node {
    /// The instructions this node replaces.
    pub fn insts(&self) -> &[Inst] {
        match self {
            Node::Pack { insts, .. }
            | Node::Load { insts, .. }
            | Node::Store { insts, .. }
            | Node::Phi { insts, .. }
            | Node::Mu { insts, .. } => insts,
            Node::Shared { .. } | Node::Vector(_) | Node::Splat(_) | Node::Build(_) => &[],
        }
    }
}

/// The lanes' own predicates as packed vectors of conditions: when each lane's
/// predicate is the predicates' common part and as many more conditions as every other
/// lane's, taken the same way position by position (in the order the conditions are
/// defined), part `k` is node `parts[k].0` holding every lane's `k`-th condition —
/// usually isomorphic compares, packed like any operand — complemented if `parts[k].1`;
/// the mask is the conjunction of the parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mask {
    pub parts: Vec<(usize, bool)>,
}

impl Mask {
    /// Does the mask read node `k`?
    pub fn reads(&self, k: usize) -> bool {
        self.parts.iter().any(|p| p.0 == k)
    }
}

/// Packs grown from one seed; node 0 is the root (the seed).
#[derive(Clone, Debug)]
pub struct PackTree {
    pub nodes: Vec<Node>,
    /// Scalar cost minus vector cost, as the cost model estimated it.
    pub saving: i64,
}
