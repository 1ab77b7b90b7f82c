//! CFG analyses of lanes IR functions.
//!
//! Each analysis is a data structure in the style of Cranelift's `flowgraph.rs`,
//! `dominator_tree.rs` and `loop_analysis.rs`: `new()` makes an empty, invalid analysis,
//! `compute(..)` fills it from the function and the analyses it depends on (passed
//! explicitly), `clear()` empties it and `is_valid()` says whether it was computed. The
//! dependencies are:
//!
//! ```text
//! ControlFlowGraph ──► DominatorTree ─────► LoopForest
//!        │         └─► PostDominatorTree ─► ControlDependence
//!        └───────────► Liveness
//! ```
//!
//! - [`cfg`](mod@cfg): predecessors, successors, exits, reachability, reverse postorder (PLDI'18 §2.1);
//! - [`dominators`] and [`post_dominators`]: one Semi-NCA engine (`lanes_ir::graph`) over the CFG
//!   and over the reversed CFG with a virtual exit that also handles infinite loops;
//! - [`control_dependence`]: `cdep(k)` of PLDI'18 §2.1 and post-dominance frontiers;
//! - [`loops`]: the natural loop forest and irreducible regions;
//! - [`liveness`]: SSA live-in/live-out sets;
//! - [`call_graph`]: the module's call graph and its SCCs, for interprocedural walks;
//! - [`function_analyses`]: all of the above for one function as one bundle, each computed
//!   once and dropped when a transform says it no longer holds (Cranelift's `Context`).
//!
//! Every analysis is property-tested against a brute-force oracle written from its
//! definition (`tests/`), and has golden filetests (`filetests/`).
//!
//! ```
//! use lanes_analysis::{ControlFlowGraph, DominatorTree, PostDominatorTree};
//! use lanes_ir::{FuncBuilder, Function, Type};
//!
//! let mut func = Function::new("f", &[Type::I1], None);
//! let c = func.params[0].value;
//! let mut b = FuncBuilder::new(&mut func);
//! let (entry, then, join) = (b.create_block(), b.create_block(), b.create_block());
//! b.switch_to_block(entry);
//! b.brif(c, then, join);
//! b.switch_to_block(then);
//! b.jump(join);
//! b.switch_to_block(join);
//! b.ret(None);
//!
//! let cfg = ControlFlowGraph::with_function(&func);
//! let domtree = DominatorTree::with_function(&func, &cfg);
//! let pdt = PostDominatorTree::with_function(&func, &cfg);
//! assert_eq!(domtree.idom(join), Some(entry));
//! assert_eq!(pdt.ipdom(entry), Some(join));
//! assert!(pdt.post_dominates(join, then));
//! ```

pub mod call_graph;
pub mod cfg;
pub mod control_dependence;
pub mod dominators;
pub mod function_analyses;
pub mod liveness;
pub mod loops;
pub mod post_dominators;
pub mod shapes;

pub use call_graph::CallGraph;
pub use cfg::{CfgEdge, ControlFlowGraph};
pub use control_dependence::ControlDependence;
pub use dominators::DominatorTree;
pub use function_analyses::{AnalysisSet, Edits, FunctionAnalyses};
pub use liveness::Liveness;
pub use loops::{IrreducibleRegion, Loop, LoopData, LoopForest};
pub use post_dominators::PostDominatorTree;
