//! What the control-flow half of the vectorizer does to a function: which branches
//! linearization folds (PLDI'18 §3: partial linearization, or full if-conversion to
//! compare against), and which of the two transforms that run before it are on — BOSCC
//! gadgets (PLDI'18 §6.1, module `boscc`) and branch fusion (PACT'11 §IV-A, module
//! `branch_fusion`) — and how private arrays are laid out (module `private_memory`).
//! These are independent choices, so a mode is a record of them rather than one enum of
//! their combinations.

use crate::boscc::BosccPolicy;
use crate::branch_fusion::FusionPolicy;
use crate::private_memory::PrivateLayout;
use crate::reconverge::{BlockOrder, SkipEmpty};

/// Which branches linearization folds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Linearization {
    /// PLDI'18 partial linearization: only divergent branches are folded.
    #[default]
    Partial,
    /// Full if-conversion: every branch but the pure latches' is folded.
    Full,
    /// The reconverging transform (flow blocks, in this block order; module `reconverge`)
    /// and its lowering to execution and re-join masks, which keeps every uniform branch
    /// and takes irreducible cycles; no linearization.
    Reconverge(BlockOrder),
}

/// How one function is vectorized: linearization and the transforms before it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Mode {
    pub linearization: Linearization,
    /// BOSCC gadgets around heavy sides of divergent branches (partial linearization
    /// only: full if-conversion would fold their branches too).
    pub boscc: Option<BosccPolicy>,
    /// Branch fusion of divergent if-then-elses with similar sides.
    pub fusion: FusionPolicy,
    /// Layout of stack arrays whose addresses do not escape.
    pub private_layout: PrivateLayout,
    /// Which divergent branches of a reconverged CFG test for an empty mask
    /// ([`Linearization::Reconverge`] only).
    pub skip_empty: SkipEmpty,
}

impl Mode {
    /// Partial linearization alone.
    pub const PARTIAL: Mode = Mode {
        linearization: Linearization::Partial,
        boscc: None,
        fusion: FusionPolicy::Off,
        private_layout: PrivateLayout::Interleaved,
        skip_empty: SkipEmpty::Auto,
    };
    /// Full if-conversion alone.
    pub const FULL: Mode = Mode {
        linearization: Linearization::Full,
        boscc: None,
        fusion: FusionPolicy::Off,
        private_layout: PrivateLayout::Interleaved,
        skip_empty: SkipEmpty::Auto,
    };

    /// The reconverging transform in `order`, then its lowering to masks.
    pub const fn reconverge(order: BlockOrder) -> Mode {
        Mode {
            linearization: Linearization::Reconverge(order),
            ..Mode::PARTIAL
        }
    }

    /// Partial linearization after BOSCC gadgets inserted by `policy`.
    pub const fn boscc(policy: BosccPolicy) -> Mode {
        Mode {
            boscc: Some(policy),
            ..Mode::PARTIAL
        }
    }

    /// This mode with branch fusion by `policy`.
    pub const fn with_fusion(self, policy: FusionPolicy) -> Mode {
        Mode {
            fusion: policy,
            ..self
        }
    }

    /// This mode with private arrays laid out by `layout`.
    pub const fn with_private_layout(self, layout: PrivateLayout) -> Mode {
        Mode {
            private_layout: layout,
            ..self
        }
    }

    /// This mode with empty-mask skips by `policy` (reconverging mode).
    pub const fn with_skip_empty(self, policy: SkipEmpty) -> Mode {
        Mode {
            skip_empty: policy,
            ..self
        }
    }

    /// Does linearization fold every branch?
    pub fn is_full(self) -> bool {
        self.linearization == Linearization::Full
    }
}
