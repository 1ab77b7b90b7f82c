//! Unmasked regions: `lanes_unmasked { … }` of `include/lanes.h`, ISPC's `unmasked`.
//!
//! Whole-function vectorization (CC'12 §3; PLDI'18 §3) runs every block under the mask of
//! the lanes that reach it, so that the vector code does what the instances would do one
//! by one. ISPC lets a programmer step outside that on purpose: in an `unmasked` block
//! every program instance runs, whatever the enclosing control flow — to store a whole
//! vector without a masked store, to take part in a cross-lane exchange, or to count all
//! lanes. lanes gives C the same through the header's `lanes_unmasked { … }`, which
//! clang sees as a call of `__lanes_unmasked_begin` before the block and of
//! `__lanes_unmasked_end` after it (the `unmasked_begin` / `unmasked_end` intrinsics).
//!
//! Between the two, the widened code takes the function's *entry mask* wherever it would
//! take the block's mask: loads, stores, calls and atomics run for every lane that entered
//! the function, and `lanes_any` / `lanes_popcount` / the reductions count those lanes.
//! That is where it is safe: lanes that entered the function are instances that exist —
//! an `omp simd` loop's remainder group or an SPMD launcher's last partial group enters
//! with only its instances active — so an unmasked block never runs an instance past the
//! end of the iteration space (ISPC's `unmasked` inside a `foreach` tail does). What it
//! runs is the programmer's responsibility, as in ISPC: a lane that did not take the
//! branch around the block computes with the values it has there.
//!
//! The values computed inside keep their lanes only where the enclosing code is active:
//! after the block, a variable the block assigned reads as the enclosing control flow
//! decides (ISPC would keep the inactive lanes' assignments too). The region must be
//! straight-line code — the two calls in one block after clang — and is reported
//! otherwise; the region is reached only when the enclosing code is (a uniform branch not
//! taken, or a BOSCC skip with no lane active, skips it). Compiled without lanes, and at
//! width 1, the block is an ordinary compound statement.

use lanes_ir::{Block, Inst, Intrinsic};

use super::Widener;
use crate::WfvError;

impl Widener<'_> {
    /// Enters (`unmasked_begin`) or leaves (`unmasked_end`) an unmasked region.
    pub(super) fn enter_or_leave_unmasked(&mut self, id: Intrinsic) -> Result<(), WfvError> {
        let entering = id == Intrinsic::UnmaskedBegin;
        if entering == self.unmasked.is_some() {
            let what = if entering {
                "an unmasked region starts inside another one"
            } else {
                "an unmasked region ends without having started"
            };
            return Err(self.unmasked_error(self.current, what));
        }
        self.unmasked = if entering { self.current } else { None };
        Ok(())
    }

    /// Checks, after old instruction `inst` of block `b`, that an open unmasked region does
    /// not reach the block's terminator: its statements must be straight-line code.
    pub(super) fn unmasked_region_stays_in(
        &mut self,
        b: Block,
        inst: Inst,
    ) -> Result<(), WfvError> {
        let is_terminator = self.old.layout.last_inst(b) == Some(inst);
        match self.unmasked.take() {
            Some(begin) if is_terminator => Err(self.unmasked_error(
                Some(begin),
                "the statements of an unmasked region (`lanes_unmasked { … }`) must be \
                 straight-line code, compiled with optimization (-O1 or above): move \
                 branches and loops out of it, or put the region inside each branch",
            )),
            open => {
                self.unmasked = open;
                Ok(())
            }
        }
    }

    /// An error at old instruction `at` (its source line, where known).
    fn unmasked_error(&self, at: Option<Inst>, what: &str) -> WfvError {
        let line = at
            .and_then(|i| self.old.source_lines.get(i).copied())
            .filter(|&l| l > 0)
            .map_or(String::new(), |l| format!("line {l}: "));
        WfvError::Unsupported(format!("{line}{what}"))
    }
}
