//! Facts about operations that the producer asserts: LLVM's integer flags `nuw`, `nsw`,
//! `exact`, `disjoint` and `nneg` ([`IntFlags`]), and its fast-math flags ([`FastMath`]).
//!
//! Shape analysis needs them (PLDI'18 §2.3: a strided `i32` index stays strided through
//! `sext` only if its computation cannot wrap), so the importer keeps them and the
//! exporter gives them back to LLVM:
//!
//! | flag       | on                          | asserts                                          |
//! |------------|-----------------------------|--------------------------------------------------|
//! | `nuw`      | `add` `sub` `mul` `shl`     | no unsigned overflow                             |
//! | `nsw`      | `add` `sub` `mul` `shl`     | no signed overflow (`shl`: the result, read as signed, is `a·2^k`) |
//! | `exact`    | `udiv` `sdiv` `lshr` `ashr` | no nonzero bit is lost                           |
//! | `disjoint` | `or`                        | the operands share no set bit (`or` = `add`)     |
//! | `nneg`     | `zext`                      | the operand is not negative (`zext` = `sext`)    |
//! | `inbounds` | `ptradd`                    | base and result lie in one allocated object, and the offset does not overflow as a signed number (LLVM's `getelementptr inbounds`) |
//! | `nuw`      | `ptradd`                    | base + offset does not wrap as unsigned numbers  |
//! | `inrange`  | `fptosi` `fptoui`           | the operand, rounded toward zero, fits the result type (not NaN): no saturation happens |
//!
//! **Semantics.** As in LLVM, an operation whose flag does not hold yields *poison*: a value
//! the program must not depend on (a memory access or branch on it is undefined). lanes IR
//! does not model poison otherwise; the interpreter ignores the flags and computes the
//! wrapped result, which is one permitted outcome. Transformations may compute another one
//! for a lane where a flag fails (the vectorizer sign-extends an `add nsw` exactly, see
//! `lanes_analysis::shapes::no_wrap`), so differential tests must only state flags that
//! hold. Code a transformation creates carries no flags unless it proves them. Widened code
//! carries none at all: it runs instructions for lanes that would not have run them and
//! combines lanes (masks, lane 0's address), so LLVM's poison of one lane would spread to
//! others; the linearized scalar form before widening keeps them, for the shape analysis
//! that widening consults (`lanes_wfv::widen`).
//!
//! `inrange` is the exception: where it fails, the conversion yields an *unspecified
//! value* of the result type, not poison — LLVM's `freeze (fptosi x)`, what C's
//! out-of-range conversion may give, what `llvm.lrint` gives out of range. Nothing can
//! spread from one lane to another, so widened code keeps it, and the exporter can use the
//! target's one-instruction conversion (`vcvttps2dq`, whose out-of-range answer is
//! `INT_MIN`) instead of lanes' saturating one, which costs a compare and a blend for each
//! bound and one for NaN around it. The interpreter saturates, one permitted outcome.

use core::fmt;

/// A set of integer-operation flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct IntFlags(u8);

/// Each flag with its text spelling, in printing order (LLVM's: `nuw` before `nsw`).
const NAMES: [(IntFlags, &str); 7] = [
    (IntFlags::INBOUNDS, "inbounds"),
    (IntFlags::NUW, "nuw"),
    (IntFlags::NSW, "nsw"),
    (IntFlags::EXACT, "exact"),
    (IntFlags::DISJOINT, "disjoint"),
    (IntFlags::NNEG, "nneg"),
    (IntFlags::INRANGE, "inrange"),
];

impl IntFlags {
    /// No flag: what every transformation that cannot prove one must state.
    pub const NONE: IntFlags = IntFlags(0);
    pub const NUW: IntFlags = IntFlags(1);
    pub const NSW: IntFlags = IntFlags(2);
    pub const EXACT: IntFlags = IntFlags(4);
    pub const DISJOINT: IntFlags = IntFlags(8);
    pub const NNEG: IntFlags = IntFlags(16);
    pub const INBOUNDS: IntFlags = IntFlags(32);
    pub const INRANGE: IntFlags = IntFlags(64);

    /// The flags `ptradd` takes.
    pub const PTRADD: IntFlags = IntFlags(32 | 1);

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Are all flags of `other` set in `self`?
    pub fn contains(self, other: IntFlags) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn union(self, other: IntFlags) -> IntFlags {
        IntFlags(self.0 | other.0)
    }

    /// The flags of `self` not in `other`.
    pub fn without(self, other: IntFlags) -> IntFlags {
        IntFlags(self.0 & !other.0)
    }

    pub fn nuw(self) -> bool {
        self.contains(IntFlags::NUW)
    }

    pub fn nsw(self) -> bool {
        self.contains(IntFlags::NSW)
    }

    pub fn exact(self) -> bool {
        self.contains(IntFlags::EXACT)
    }

    pub fn disjoint(self) -> bool {
        self.contains(IntFlags::DISJOINT)
    }

    pub fn nneg(self) -> bool {
        self.contains(IntFlags::NNEG)
    }

    pub fn inrange(self) -> bool {
        self.contains(IntFlags::INRANGE)
    }

    /// The flags that stay true of code that speculates (widened code): `inrange`, whose
    /// failure gives an unspecified value rather than poison (module docs).
    pub fn speculable(self) -> IntFlags {
        IntFlags(self.0 & IntFlags::INRANGE.0)
    }

    /// The flag spelled `word` in the text format.
    pub fn from_word(word: &str) -> Option<IntFlags> {
        NAMES.iter().find(|(_, w)| *w == word).map(|&(f, _)| f)
    }

    /// The spellings of the flags set, in printing order.
    pub fn words(self) -> impl Iterator<Item = &'static str> {
        NAMES
            .into_iter()
            .filter(move |(f, _)| self.contains(*f))
            .map(|(_, w)| w)
    }
}

/// Prints ` nuw nsw` (each set flag preceded by a space; nothing for no flag).
impl fmt::Display for IntFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for w in self.words() {
            write!(f, " {w}")?;
        }
        Ok(())
    }
}

/// LLVM's fast-math flags: permissions a floating-point operation was compiled with
/// (`-ffast-math`, `-ffinite-math-only`, `-fno-signed-zeros`, `#pragma clang fp`).
///
/// | flag       | permits                                                          |
/// |------------|------------------------------------------------------------------|
/// | `nnan`     | assuming no operand or result is NaN (poison otherwise)           |
/// | `ninf`     | assuming no operand or result is infinite (poison otherwise)      |
/// | `nsz`      | ignoring the sign of a zero                                       |
/// | `arcp`     | `x / y` as `x * (1 / y)`                                         |
/// | `contract` | fusing with a neighbouring operation (`fmul` + `fadd` → `fma`)   |
/// | `afn`      | approximate library functions (`sin`, `sqrt`, …)                 |
/// | `reassoc`  | reassociating                                                     |
///
/// They live beside the instruction in the data-flow graph
/// ([`crate::dfg::DataFlowGraph::fast_math`]), on floating-point arithmetic, `fneg`,
/// `fcmp`, and `select`, φ, calls and intrinsics of a floating-point type, as in LLVM.
/// The interpreter computes the exact IEEE result, one permitted outcome; code a
/// transformation creates carries none unless the transformation keeps the operation it
/// was given (widened code carries none, like [`IntFlags`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FastMath(u8);

/// Each fast-math flag with its spelling, in LLVM's printing order.
const FAST_MATH_NAMES: [(FastMath, &str); 7] = [
    (FastMath::REASSOC, "reassoc"),
    (FastMath::NNAN, "nnan"),
    (FastMath::NINF, "ninf"),
    (FastMath::NSZ, "nsz"),
    (FastMath::ARCP, "arcp"),
    (FastMath::CONTRACT, "contract"),
    (FastMath::AFN, "afn"),
];

impl FastMath {
    pub const NONE: FastMath = FastMath(0);
    pub const NNAN: FastMath = FastMath(1);
    pub const NINF: FastMath = FastMath(2);
    pub const NSZ: FastMath = FastMath(4);
    pub const ARCP: FastMath = FastMath(8);
    pub const CONTRACT: FastMath = FastMath(16);
    pub const AFN: FastMath = FastMath(32);
    pub const REASSOC: FastMath = FastMath(64);
    /// All of them: LLVM's `fast`.
    pub const FAST: FastMath = FastMath(127);

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn contains(self, other: FastMath) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn union(self, other: FastMath) -> FastMath {
        FastMath(self.0 | other.0)
    }

    /// The raw bits, `NNAN` = 1 … `REASSOC` = 64.
    pub fn bits(self) -> u8 {
        self.0
    }

    /// The flags of `word` (`fast` is all of them).
    pub fn from_word(word: &str) -> Option<FastMath> {
        if word == "fast" {
            return Some(FastMath::FAST);
        }
        FAST_MATH_NAMES
            .iter()
            .find(|(_, w)| *w == word)
            .map(|&(f, _)| f)
    }
}

/// Prints ` fast` for all flags, else each set flag preceded by a space.
impl fmt::Display for FastMath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == FastMath::FAST {
            return f.write_str(" fast");
        }
        for (flag, w) in FAST_MATH_NAMES {
            if self.contains(flag) {
                write!(f, " {w}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_math_words_round_trip() {
        for bits in 0..=127u8 {
            let flags = FastMath(bits);
            let back = flags
                .to_string()
                .split_whitespace()
                .map(|w| FastMath::from_word(w).expect("a flag word"))
                .fold(FastMath::NONE, FastMath::union);
            assert_eq!(back, flags);
        }
        assert_eq!(FastMath::FAST.to_string(), " fast");
        assert_eq!(FastMath::NNAN.union(FastMath::NSZ).to_string(), " nnan nsz");
        assert_eq!(FastMath::from_word("nsw"), None);
    }

    #[test]
    fn words_round_trip_in_llvm_order() {
        let f = IntFlags::NSW.union(IntFlags::NUW);
        assert_eq!(f.to_string(), " nuw nsw");
        assert!(f.nsw() && f.nuw() && !f.exact());
        for (flag, word) in NAMES {
            assert_eq!(IntFlags::from_word(word), Some(flag));
        }
        assert_eq!(IntFlags::from_word("inbounds"), Some(IntFlags::INBOUNDS));
        assert_eq!(IntFlags::from_word("fast"), None);
        assert_eq!(f.without(IntFlags::NSW), IntFlags::NUW);
        assert!(IntFlags::NONE.is_empty() && IntFlags::default().is_empty());
    }
}
