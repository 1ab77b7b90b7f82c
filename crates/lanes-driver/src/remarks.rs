//! Optimization remarks of [`crate::compile()`], printable as clang prints remarks and
//! serializable as JSON.
//!
//! A compiler user needs to know what the compiler did not do and why, at the source line
//! it concerns, as clang's `-Rpass`/`-Rpass-missed` and ISPC's performance warnings say it:
//! which parallel loops lanes vectorized, which it left to LLVM, which functions it left
//! as LLVM IR because lanes IR cannot express one of their constructs, and where vector
//! code has gathers, scatters or code run once per lane, and why.

use std::fmt;
use std::path::Path;

use serde::Serialize;

use lanes_llvm::import::KeptFunction;
use lanes_wfv::outer_loop::LoopReport;
use lanes_wfv::{WidenNote, WidenNoteKind};

/// Whether a remark reports work done, work not done, or something the user should fix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RemarkKind {
    /// Done (clang's `-Rpass`).
    Passed,
    /// Not done, for a reason stated (clang's `-Rpass-missed`).
    Missed,
    /// Not done although the source asked for it (a marked parallel loop).
    Warning,
}

/// One remark: what, where and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Remark {
    pub kind: RemarkKind,
    /// The lanes stage that speaks (`outer-loop`, `import`).
    pub pass: &'static str,
    /// A stable identifier of the remark (`Vectorized`, `KeptAsLLVM`, …).
    pub name: &'static str,
    pub function: String,
    pub file: String,
    /// Source line, 0 if unknown.
    pub line: u32,
    pub message: String,
}

impl Remark {
    /// The remark for one parallel loop of `file`.
    pub fn parallel_loop(file: &Path, r: LoopReport) -> Remark {
        let (kind, name, message) = match &r.outcome {
            Ok(v) => (
                RemarkKind::Passed,
                "Vectorized",
                format!(
                    "parallel loop vectorized by lanes as an outer loop: width {}, {} reduction(s), {} inner loop(s){}",
                    v.width,
                    v.reductions,
                    v.inner_loops,
                    match v.early_exits {
                        0 => String::new(),
                        n => format!(
                            ", {n} early exit(s) (the exit test is probed ahead within the pages the loop reads)"
                        ),
                    }
                ),
            ),
            Err(why) => (
                RemarkKind::Warning,
                "NotVectorized",
                format!("parallel loop not vectorized by lanes: {why}; left to LLVM's loop vectorizer"),
            ),
        };
        Remark {
            kind,
            pass: "outer-loop",
            name,
            function: r.function,
            file: file.display().to_string(),
            line: r.line.unwrap_or(0),
            message,
        }
    }

    /// The remark for a note of widening code of `file` (gathers, scatters, code run once
    /// per active lane); `line` stands in for a note without a line of its own.
    pub fn widened(file: &Path, line: u32, note: &WidenNote) -> Remark {
        let name = match note.kind {
            WidenNoteKind::Gather => "Gather",
            WidenNoteKind::Scatter => "Scatter",
            WidenNoteKind::PerLane => "PerLane",
        };
        Remark {
            kind: RemarkKind::Missed,
            pass: "vectorize",
            name,
            function: note.function.clone(),
            file: file.display().to_string(),
            line: if note.line != 0 { note.line } else { line },
            message: note.message.clone(),
        }
    }

    /// The remark for a function lanes left as LLVM IR.
    pub fn kept_as_llvm(file: &Path, kept: &KeptFunction) -> Remark {
        let why = &kept.reason;
        let mut message = format!("function left as LLVM IR: {}", why.message);
        if !why.inst.is_empty() {
            message.push_str(&format!(" (`{}`)", why.inst.trim()));
        }
        Remark {
            kind: RemarkKind::Missed,
            pass: "import",
            name: "KeptAsLLVM",
            function: kept.name.clone(),
            file: why
                .file
                .clone()
                .unwrap_or_else(|| file.display().to_string()),
            line: why.line,
            message,
        }
    }
}

impl Remark {
    /// The remark for what SuperVectorization did to one function.
    pub fn slp_packed(file: &Path, function: &str, r: &lanes_slp::SlpReport) -> Remark {
        Remark {
            kind: RemarkKind::Passed,
            pass: "slp",
            name: "Packed",
            function: function.to_string(),
            file: file.display().to_string(),
            line: 0,
            message: format!(
                "{} vector packs of {} instructions ({} trees; {} packs span different predicates)",
                r.packs, r.packed_insts, r.trees, r.cross_predicate_packs
            ),
        }
    }

    /// The remark for adjacent stores SuperVectorization did not pack, and why.
    pub fn slp_not_packed(
        file: &Path,
        function: &str,
        line: u32,
        why: &lanes_slp::packing::Rejection,
    ) -> Remark {
        let message = match why {
            lanes_slp::packing::Rejection::Dependence => "adjacent stores not packed: a \
                 dependence (through memory that may overlap, or values) orders their lanes \
                 (`restrict` on the pointers can tell lanes they do not overlap)"
                .to_string(),
            lanes_slp::packing::Rejection::NotProfitable { saving } => {
                format!("adjacent stores not packed: the cost model expects no saving ({saving})")
            }
        };
        Remark {
            kind: RemarkKind::Missed,
            pass: "slp",
            name: "NotPacked",
            function: function.to_string(),
            file: file.display().to_string(),
            line,
            message,
        }
    }

    /// The remark for a function SuperVectorization could not take.
    pub fn slp_declined(file: &Path, function: &str, why: &lanes_slp::SlpError) -> Remark {
        Remark {
            kind: RemarkKind::Missed,
            pass: "slp",
            name: "NotConverted",
            function: function.to_string(),
            file: file.display().to_string(),
            line: 0,
            message: format!("not SLP-vectorized: {why}"),
        }
    }
}

impl fmt::Display for Remark {
    /// `FILE:LINE: remark: @f: message`, as clang prints remarks.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.kind {
            RemarkKind::Warning => "warning",
            _ => "remark",
        };
        write!(f, "{}", self.file)?;
        if self.line != 0 {
            write!(f, ":{}", self.line)?;
        }
        write!(f, ": {level}: @{}: {}", self.function, self.message)
    }
}
