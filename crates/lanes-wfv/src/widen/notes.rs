//! What widening could not turn into plain vector code, and where: the remarks of a
//! vectorized function, as ISPC's performance warnings and LLVM's `-Rpass-missed` give
//! them. A gather or scatter costs one memory access per lane, and a call or atomic run
//! once per active lane costs a scalar loop; the user who knows where and why can often
//! fix the source (a contiguous index, a helper that is not recursive, a `declare simd`).
//!
//! Each note names the scalar function as written (a masked copy or an outlined loop
//! body stands for its [`lanes_ir::Function::origin_name`]), the source line of the instruction
//! ([`lanes_ir::Function::source_lines`], 0 when unknown) and the reason.

use std::fmt;

use lanes_analysis::shapes::VShape;
use lanes_ir::{Inst, InstData};

use super::Widener;

/// What kind of code a note is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WidenNoteKind {
    /// A load became a gather.
    Gather,
    /// A store became a scatter.
    Scatter,
    /// A call, atomic or volatile access runs once per active lane.
    PerLane,
}

/// What widening reports beside the code: its remarks, and PLDI'18 Table 1 for each
/// vector function it made (the function and the callee variants made with it).
#[derive(Clone, Debug, Default)]
pub struct WidenReport {
    pub notes: Vec<WidenNote>,
    pub variants: Vec<crate::stats::VariantStats>,
}

/// One remark of widening.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WidenNote {
    /// The function the code is in, as written.
    pub function: String,
    /// The source line (0 if unknown).
    pub line: u32,
    pub kind: WidenNoteKind,
    pub message: String,
}

impl fmt::Display for WidenNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{}: {}", self.function, self.message)
    }
}

/// Why an access at an address of shape `shape` is a gather or scatter of `bytes`-byte
/// elements.
pub(super) fn scattered_because(shape: VShape, bytes: u32) -> String {
    match shape.stride() {
        Some(s) => format!(
            "its address steps {s} bytes from lane to lane, not the {bytes} bytes of the access"
        ),
        None => "its address is not affine in the instance (an indirect or non-linear index)"
            .to_string(),
    }
}

impl Widener<'_> {
    /// Records a note about old instruction `inst` (once per kind, line and message).
    pub(super) fn note(&mut self, inst: Inst, kind: WidenNoteKind, message: String) {
        let function = self.old.origin_name().to_string();
        let line = self.old.source_lines.get(inst).copied().unwrap_or(0);
        let note = WidenNote {
            function,
            line,
            kind,
            message,
        };
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    /// Records a note about the old instruction being widened.
    pub(super) fn note_here(&mut self, kind: WidenNoteKind, message: String) {
        if let Some(inst) = self.current {
            self.note(inst, kind, message);
        }
    }

    /// Notes that old instruction `inst` runs once per active lane.
    pub(super) fn note_per_lane(&mut self, inst: Inst) {
        let message = match self.old.dfg.inst(inst) {
            InstData::Call { func, .. } => {
                let callee = self.module.funcs[*func].name();
                let why = self
                    .per_lane_why
                    .get(&inst)
                    .cloned()
                    .unwrap_or_else(|| "it has side effects".to_string());
                format!("the call of @{callee} runs once per active lane: {why}")
            }
            InstData::CallIndirect { .. } => {
                "an indirect call runs once per active lane: the callee is not known".to_string()
            }
            InstData::AtomicRmw { .. } | InstData::AtomicCas { .. } => {
                "an atomic operation runs once per active lane, in lane order".to_string()
            }
            InstData::Fence { .. } => "a fence runs once per active lane".to_string(),
            InstData::Load { .. } | InstData::Store { .. } => {
                "a volatile or atomic access runs once per active lane, in lane order".to_string()
            }
            other => format!("`{}` runs once per active lane", other.opcode_name()),
        };
        self.note(inst, WidenNoteKind::PerLane, message);
    }
}
