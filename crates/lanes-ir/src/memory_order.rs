//! How a memory operation may be observed: `volatile`, and atomicity with its ordering and
//! synchronization scope — LLVM's memory model (LangRef, "Memory Model for Concurrent
//! Operations"), which is C11's.
//!
//! lanes must keep these through its passes because they are the program's meaning, not
//! hints: a `volatile` load of a flag polled in a loop may not be hoisted or merged, and an
//! `acquire` load orders the accesses after it. They matter to the vectorizer in one way:
//! an access that is volatile or atomic is *observable*, so it must be performed once per
//! active instance, in instance order, and never for an inactive one — exactly how a call
//! is treated (PLDI'18 §4: side effects are guarded, not speculated). A plain access may
//! instead be widened to a vector or masked load/store.
//!
//! | ordering    | load | store | rmw / cas | fence |
//! |-------------|------|-------|-----------|-------|
//! | `unordered` | yes  | yes   | no        | no    |
//! | `monotonic` | yes  | yes   | yes       | no    |
//! | `acquire`   | yes  | no    | yes       | yes   |
//! | `release`   | no   | yes   | yes       | yes   |
//! | `acq_rel`   | no   | no    | yes       | yes   |
//! | `seq_cst`   | yes  | yes   | yes       | yes   |
//!
//! The verifier enforces the table. The interpreter runs one instance at a time, so every
//! ordering is trivially met there; volatile accesses are ordinary accesses that it never
//! elides.

use core::fmt;
use core::str::FromStr;

/// The ordering of an atomic operation (C11's `memory_order`, LLVM's spelling with `_`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ordering {
    Unordered,
    Monotonic,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

impl Ordering {
    pub const ALL: [Ordering; 6] = [
        Ordering::Unordered,
        Ordering::Monotonic,
        Ordering::Acquire,
        Ordering::Release,
        Ordering::AcqRel,
        Ordering::SeqCst,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Ordering::Unordered => "unordered",
            Ordering::Monotonic => "monotonic",
            Ordering::Acquire => "acquire",
            Ordering::Release => "release",
            Ordering::AcqRel => "acq_rel",
            Ordering::SeqCst => "seq_cst",
        }
    }

    /// May a load have this ordering?
    pub fn valid_for_load(self) -> bool {
        !matches!(self, Ordering::Release | Ordering::AcqRel)
    }

    /// May a store have this ordering?
    pub fn valid_for_store(self) -> bool {
        !matches!(self, Ordering::Acquire | Ordering::AcqRel)
    }

    /// May a read-modify-write (or the success case of a compare-and-swap) have it?
    pub fn valid_for_rmw(self) -> bool {
        self != Ordering::Unordered
    }

    /// May a fence have it?
    pub fn valid_for_fence(self) -> bool {
        self > Ordering::Monotonic
    }

    /// The failure ordering LLVM derives from a compare-and-swap's success ordering when
    /// none is given: the strongest one that does not release.
    pub fn default_failure(self) -> Ordering {
        match self {
            Ordering::AcqRel => Ordering::Acquire,
            Ordering::Release => Ordering::Monotonic,
            o => o,
        }
    }

    /// May a compare-and-swap fail with this ordering? (No release, and no `unordered`.)
    pub fn valid_for_cas_failure(self) -> bool {
        matches!(
            self,
            Ordering::Monotonic | Ordering::Acquire | Ordering::SeqCst
        )
    }
}

impl fmt::Display for Ordering {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Ordering {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        Ordering::ALL.into_iter().find(|o| o.name() == s).ok_or(())
    }
}

/// With which threads an atomic operation synchronizes: all of them (LLVM's default), or
/// only the current one (`syncscope("singlethread")`: C11's `atomic_signal_fence`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SyncScope {
    #[default]
    System,
    SingleThread,
}

/// The atomicity of an access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Atomic {
    pub ordering: Ordering,
    pub scope: SyncScope,
}

impl Atomic {
    /// System-wide with `ordering`.
    pub fn new(ordering: Ordering) -> Atomic {
        Atomic {
            ordering,
            scope: SyncScope::System,
        }
    }
}

/// How a memory access may be observed besides its value: plain (the default), volatile,
/// atomic, or both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MemAccess {
    pub volatile: bool,
    pub atomic: Option<Atomic>,
}

impl MemAccess {
    /// An ordinary access, which passes may widen, merge, speculate or drop.
    pub const PLAIN: MemAccess = MemAccess {
        volatile: false,
        atomic: None,
    };

    /// A volatile, non-atomic access.
    pub const VOLATILE: MemAccess = MemAccess {
        volatile: true,
        atomic: None,
    };

    /// A sequentially consistent, system-wide atomic access.
    pub fn seq_cst() -> MemAccess {
        MemAccess::atomic(Ordering::SeqCst)
    }

    /// A system-wide atomic access with `ordering`.
    pub fn atomic(ordering: Ordering) -> MemAccess {
        MemAccess {
            volatile: false,
            atomic: Some(Atomic::new(ordering)),
        }
    }

    pub fn is_plain(&self) -> bool {
        *self == MemAccess::PLAIN
    }

    pub fn ordering(&self) -> Option<Ordering> {
        self.atomic.map(|a| a.ordering)
    }

    /// Reads `word` as one of the access's words (`volatile`, an ordering, `singlethread`)
    /// into `self`; false if it is none of them.
    pub fn absorb_word(&mut self, word: &str) -> bool {
        if word == "volatile" {
            self.volatile = true;
        } else if word == "singlethread" {
            let a = self.atomic.get_or_insert(Atomic::new(Ordering::SeqCst));
            a.scope = SyncScope::SingleThread;
        } else if let Ok(o) = word.parse::<Ordering>() {
            let a = self.atomic.get_or_insert(Atomic::new(o));
            a.ordering = o;
        } else {
            return false;
        }
        true
    }
}

/// Prints ` volatile`, ` singlethread` and the ordering, each preceded by a space, in that
/// order (nothing for a plain access) — the words [`MemAccess::absorb_word`] reads back.
impl fmt::Display for MemAccess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.volatile {
            f.write_str(" volatile")?;
        }
        if let Some(a) = self.atomic {
            if a.scope == SyncScope::SingleThread {
                f.write_str(" singlethread")?;
            }
            write!(f, " {}", a.ordering)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip() {
        let cases = [
            MemAccess::PLAIN,
            MemAccess::VOLATILE,
            MemAccess::seq_cst(),
            MemAccess {
                volatile: true,
                atomic: Some(Atomic {
                    ordering: Ordering::Acquire,
                    scope: SyncScope::SingleThread,
                }),
            },
        ];
        for access in cases {
            let text = access.to_string();
            let mut back = MemAccess::PLAIN;
            for w in text.split_whitespace() {
                assert!(back.absorb_word(w), "{w}");
            }
            assert_eq!(back, access, "{text:?}");
        }
        let mut plain = MemAccess::PLAIN;
        assert!(!plain.absorb_word("align"));
    }

    #[test]
    fn the_table_of_valid_orderings_holds() {
        use Ordering::*;
        assert!(Acquire.valid_for_load() && !Release.valid_for_load());
        assert!(Release.valid_for_store() && !AcqRel.valid_for_store());
        assert!(!Unordered.valid_for_rmw() && Monotonic.valid_for_rmw());
        assert!(!Monotonic.valid_for_fence() && Acquire.valid_for_fence());
        assert_eq!(AcqRel.default_failure(), Acquire);
        assert_eq!(Release.default_failure(), Monotonic);
        assert!(!Release.valid_for_cas_failure() && SeqCst.valid_for_cas_failure());
    }
}
