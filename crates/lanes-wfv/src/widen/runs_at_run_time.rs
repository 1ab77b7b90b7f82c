//! Gathers whose addresses are usually the same over aligned runs of lanes: tested at run
//! time, and a few scalar loads spread over the runs when they are.
//!
//! An address computed from the instance index through an operation that holds its value
//! over runs of consecutive integers — a mask clearing low bits (`in[(gx & -8) + x]`, the
//! first column of an 8×8 block, as CC'12's DCT reads it), a shift right (`tab[gx >> 2]`,
//! upsampling) or a division by a constant — has no stride the shape analysis (PLDI'18
//! §2.3) could state: lanes 0–7 share one address and lanes 8–15 another. A gather of such
//! an address performs one load per lane for two distinct addresses. When the instance
//! index of lane 0 is aligned to the run (work-groups of a multiple of the width make it
//! so), each aligned run of `r` lanes has a single address. Such a load therefore first
//! compares every lane's address with that of the first lane of its run (a shuffle and a
//! compare); if every active lane matches, it loads once per run — `width / r` scalar
//! loads, at most four — and spreads the values over the runs with a shuffle; else it is
//! the gather.
//!
//! Which runs: the address is analysed as for the consecutive test (module
//! `consecutive_at_run_time`); every path from it to the instance index must pass a
//! run-holding operation, and the shortest run those give (capped at the width: a run as
//! long as the vector is one load and a broadcast, `gx & -8` at 8 lanes) is the one
//! tested. Paths through data (`x[idx[i]]`) are not followed. At 8 lanes, DCT 8x8 took
//! 8.2–8.5 ms against 9.7–10.7 ms with runs capped at half the width.
//!
//! Inactive lanes: with a mask, an active lane matches only if the first lane of its run
//! is active too, and the loads are a narrow gather of the runs' first lanes under their
//! own mask bits. So a run whose lanes are all inactive loads nothing, and every address
//! loaded is one an active lane loads.

use lanes_ir::{InstData, IntCC, Type, Value};

use super::{vec_of, Widener};

impl Widener<'_> {
    /// A gather of `ty` from old address `ptr` that first tests whether its lanes' addresses
    /// are the same over aligned runs of `run` lanes (module docs).
    pub(super) fn runs_checked_gather(
        &mut self,
        ptr: Value,
        align: u32,
        ty: Type,
        mask: Option<Value>,
        run: u32,
    ) -> Value {
        let width = u32::from(self.width);
        let vt = vec_of(ty, self.width);
        let ptrs = self.vector(ptr);
        let mask_ty = Type::mask(self.width);
        // Each lane's run's first lane.
        let firsts: Vec<u32> = (0..width).map(|i| i - i % run).collect();
        let firsts_of = |w: &mut Self, v: Value, ty: Type| {
            w.emit_v(
                InstData::Shuffle {
                    args: [v, v],
                    mask: firsts.clone(),
                },
                ty,
            )
        };
        let ptr_vec_ty = self.new.dfg.value_type(ptrs);
        let run_ptrs = firsts_of(self, ptrs, ptr_vec_ty);
        let mut same = self.emit_v(
            InstData::Icmp {
                cond: IntCC::Eq,
                args: [ptrs, run_ptrs],
            },
            mask_ty,
        );
        if let Some(m) = mask {
            // An active lane matches if its run's first lane is active and has its
            // address; an inactive lane always matches.
            let first_active = firsts_of(self, m, mask_ty);
            same = self.binary(lanes_ir::BinaryOp::And, same, first_active, mask_ty);
            let inactive = self.emit_v(
                InstData::Unary {
                    op: lanes_ir::UnaryOp::Not,
                    arg: m,
                },
                mask_ty,
            );
            same = self.binary(lanes_ir::BinaryOp::Or, same, inactive, mask_ty);
        }
        let all = self.emit_v(
            InstData::Intrinsic {
                id: lanes_ir::Intrinsic::All,
                args: vec![same],
            },
            Type::I1,
        );
        // The runs' first lanes (the last run is shorter at a width not a multiple of it).
        let starts: Vec<u32> = (0..width).step_by(run as usize).collect();
        let runs = u16::try_from(starts.len()).expect("runs fit the width");
        let spread: Vec<u32> = (0..width).map(|i| i / run).collect();
        let full_mask = match mask {
            Some(m) => m,
            None => self.all_true(),
        };
        self.either_with(
            all,
            vt,
            |w| {
                let pick = |w: &mut Self, v: Value, ty: Type| {
                    w.emit_v(
                        InstData::Shuffle {
                            args: [v, v],
                            mask: starts.clone(),
                        },
                        ty,
                    )
                };
                let narrow_ptrs = pick(w, ptrs, Type::vector(runs, ptr_vec_ty.elem()));
                let narrow_mask = match mask {
                    Some(m) => pick(w, m, Type::mask(runs)),
                    None => w.emit_v(InstData::Iconst { imm: 1 }, Type::mask(runs)),
                };
                let narrow_ty = Type::vector(runs, ty.elem());
                let zero = w.zeros(ty, runs);
                let loaded = w.emit_v(
                    InstData::Gather {
                        ptrs: narrow_ptrs,
                        mask: narrow_mask,
                        passthru: zero,
                        align,
                    },
                    narrow_ty,
                );
                w.emit_v(
                    InstData::Shuffle {
                        args: [loaded, loaded],
                        mask: spread,
                    },
                    vt,
                )
            },
            |w| {
                let z = w.zero_vec(ty);
                w.emit_v(
                    InstData::Gather {
                        ptrs,
                        mask: full_mask,
                        passthru: z,
                        align,
                    },
                    vt,
                )
            },
        )
    }
}
