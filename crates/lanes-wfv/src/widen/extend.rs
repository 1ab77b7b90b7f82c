//! Widening of `sext`/`zext` that shape analysis calls strided because their operand
//! cannot wrap (PLDI'18 §2.3; `lanes_analysis::shapes::no_wrap`), and why widened code
//! carries no integer flags.
//!
//! The analysis proves `sext(x) = Σ cⱼ·ext(leafⱼ)` in every lane where `x` is not poison.
//! Widening `sext` lane-wise would give lane `i` the extension of its own wrapped `i32`,
//! and a contiguous access then takes its base from lane 0 — whose `x` may have
//! overflowed (an `add nsw` speculated for a lane that is inactive there) while the active
//! lanes' did not. So the vector is built from the leaves instead:
//!
//! ```text
//! base = Σ cⱼ·ext(leafⱼ of lane 0)      (scalar, in the wide type, no flags)
//! ext  = broadcast(base) + lane_id·stride
//! ```
//!
//! which is each non-poison lane's exact value, and lane 0's address the one the active
//! lanes' addresses count from; `base` itself is lane 0 for contiguous accesses (module
//! `lane0`). Leaves are uniform values, `lane_id` and declared
//! parameters, whose lane 0 is exact by their contract.
//!
//! Widened code runs instructions for lanes that would not have run them (linearization,
//! PLDI'18 §3) and combines lanes (masks, lane 0's address). A flag that fails in such a
//! lane makes LLVM's result poison, which `and`/`or` of masks and `extract` would spread to
//! lanes that matter; so every instruction widening emits states no flag but `inrange`,
//! whose failure gives an unspecified value, not poison ([`lanes_ir::flags`]). The
//! analysis of the scalar function still uses them.

use lanes_analysis::shapes::no_wrap::{Ext, ExtForm};
use lanes_ir::{BinaryOp, CastOp, Inst, InstData, IntFlags, Type, Value};

use super::{vec_of, Widener};

impl Widener<'_> {
    /// Widens non-uniform extension `inst` (old `data`, vector result type `out_ty`): from
    /// its leaves if the analysis gives an exact form, else lane-wise.
    pub(super) fn extension(
        &mut self,
        inst: Inst,
        data: &InstData,
        out_ty: Option<Type>,
    ) -> Option<Value> {
        let res = self.old.dfg.inst_result(inst)?;
        let strided = self.info.shape(res).stride().is_some_and(|s| s != 0);
        let form = strided
            .then(|| self.info.extension_form(self.old, inst))
            .flatten();
        let ty = self.old.dfg.value_type(res);
        if let Some((v, base)) = form.and_then(|f| self.exact_extension(&f, ty)) {
            self.lane0_exact[res] = base.into();
            return Some(v);
        }
        self.lanewise(data, false, out_ty)
    }

    /// The exact widening of an extension of scalar result type `ty` with the analysis'
    /// `form` and its scalar lane 0 (`base`), or `None` if a leaf is not narrower than `ty`
    /// (then the lane-wise cast is used).
    fn exact_extension(&mut self, form: &ExtForm, ty: Type) -> Option<(Value, Value)> {
        let bits = ty.elem().bits();
        if form
            .terms
            .iter()
            .any(|t| self.old.dfg.value_type(t.value).elem().bits() > bits)
        {
            return None;
        }
        let mut base: Option<Value> = None;
        for t in &form.terms {
            let lane0 = self.lane0_scalar(t.value);
            let from = self.old.dfg.value_type(t.value);
            let x = if from.elem().bits() < bits {
                let op = match t.ext {
                    Ext::Signed => CastOp::Sext,
                    Ext::Unsigned => CastOp::Zext,
                };
                self.plain_cast(op, lane0, ty)
            } else {
                lane0
            };
            let x = if t.coeff == 1 {
                x
            } else {
                let c = self.iconst_of(ty, t.coeff);
                self.plain_binary(BinaryOp::Mul, x, c, ty)
            };
            base = Some(match base {
                None => x,
                Some(b) => self.plain_binary(BinaryOp::Add, b, x, ty),
            });
        }
        let base = match base {
            Some(b) => b,
            None => self.iconst_of(ty, 0),
        };
        let vb = self.broadcast(base);
        let vty = vec_of(ty, self.width);
        let lanes = self.lane_id(ty);
        let step = if form.stride == 1 {
            lanes
        } else {
            let s = self.iconst_of(vty, form.stride);
            self.plain_binary(BinaryOp::Mul, lanes, s, vty)
        };
        Some((self.plain_binary(BinaryOp::Add, vb, step, vty), base))
    }

    /// Lane 0's value of old value `v`: the scalar if it stayed uniform or is known exactly
    /// (a linear parameter), else element 0.
    fn lane0_scalar(&mut self, v: Value) -> Value {
        let nv = self.scalar(v);
        if self.is_uniform(v) {
            return nv;
        }
        if let Some(s) = self.lane0_exact[v].expand() {
            return s;
        }
        let elem = Type::Scalar(self.old.dfg.value_type(v).elem());
        self.extract0(nv, elem)
    }

    /// `iconst` of (the low bits of) `k` in `ty`, splatted for vectors.
    fn iconst_of(&mut self, ty: Type, k: i64) -> Value {
        let bits = ty.elem().bits();
        let imm = lanes_analysis::shapes::lattice::normalize_stride(k, bits);
        self.emit_v(InstData::Iconst { imm }, ty)
    }

    fn plain_binary(&mut self, op: BinaryOp, a: Value, b: Value, ty: Type) -> Value {
        let flags = IntFlags::NONE;
        self.emit_v(
            InstData::Binary {
                op,
                args: [a, b],
                flags,
            },
            ty,
        )
    }

    fn plain_cast(&mut self, op: CastOp, arg: Value, ty: Type) -> Value {
        let flags = IntFlags::NONE;
        self.emit_v(InstData::Cast { op, arg, flags }, ty)
    }
}
