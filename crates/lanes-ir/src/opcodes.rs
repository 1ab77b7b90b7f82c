//! The operation enumerations of the lanes IR and their text-format names.
//!
//! Operations are grouped the way ARCHITECTURE.md lists them: arithmetic and bitwise
//! binary operations, unary operations, integer and float comparisons, casts, atomics,
//! work-item queries and the enumerated intrinsics (math, lane and mask queries,
//! reductions, vector element operations, barrier). Every enum has one table mapping each
//! variant to its name, from which both `Display` and `FromStr` are derived, so the printer
//! and the parser cannot disagree.

use core::fmt;
use core::str::FromStr;

use crate::flags::IntFlags;

/// Declares a fieldless enum with its text name per variant, `ALL`, `name()`, `Display`
/// and `FromStr`.
macro_rules! named_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal,)* }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name { $($(#[$vmeta])* $variant,)* }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The spelling in the text format.
            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $text,)* }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }

        impl FromStr for $name {
            type Err = ();
            fn from_str(s: &str) -> Result<Self, ()> {
                match s { $($text => Ok($name::$variant),)* _ => Err(()) }
            }
        }
    };
}

named_enum!(
    /// Two-operand arithmetic and bitwise operations. Both operands and the result have the
    /// same type. Integer division and remainder trap on a zero divisor (and `sdiv`/`srem`
    /// on `MIN / -1`); shifts take the amount modulo the bit width.
    BinaryOp {
        Add = "add",
        Sub = "sub",
        Mul = "mul",
        SDiv = "sdiv",
        UDiv = "udiv",
        SRem = "srem",
        URem = "urem",
        And = "and",
        Or = "or",
        Xor = "xor",
        Shl = "shl",
        LShr = "lshr",
        AShr = "ashr",
        SMin = "smin",
        SMax = "smax",
        UMin = "umin",
        UMax = "umax",
        FAdd = "fadd",
        FSub = "fsub",
        FMul = "fmul",
        FDiv = "fdiv",
        FRem = "frem",
        /// IEEE minNum: a NaN operand yields the other operand.
        FMin = "fmin",
        /// IEEE maxNum: a NaN operand yields the other operand.
        FMax = "fmax",
    }
);

impl BinaryOp {
    /// Does the operation work on floats (else integers; `and`/`or`/`xor` also on `i1`)?
    pub fn is_float(self) -> bool {
        matches!(
            self,
            BinaryOp::FAdd
                | BinaryOp::FSub
                | BinaryOp::FMul
                | BinaryOp::FDiv
                | BinaryOp::FRem
                | BinaryOp::FMin
                | BinaryOp::FMax
        )
    }

    /// Can the operation trap (integer division and remainder)?
    pub fn can_trap(self) -> bool {
        matches!(
            self,
            BinaryOp::SDiv | BinaryOp::UDiv | BinaryOp::SRem | BinaryOp::URem
        )
    }

    /// The [`IntFlags`] the operation may carry (as in LLVM).
    pub fn allowed_flags(self) -> IntFlags {
        match self {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Shl => {
                IntFlags::NUW.union(IntFlags::NSW)
            }
            BinaryOp::UDiv | BinaryOp::SDiv | BinaryOp::LShr | BinaryOp::AShr => IntFlags::EXACT,
            BinaryOp::Or => IntFlags::DISJOINT,
            _ => IntFlags::NONE,
        }
    }
}

named_enum!(
    /// One-operand operations whose result has the operand's type.
    UnaryOp {
        /// Two's complement negation.
        Ineg = "ineg",
        /// Bitwise complement (logical not on `i1`).
        Not = "not",
        /// Float negation (flips the sign bit, also of NaN and zero).
        Fneg = "fneg",
        /// Identity; what LLVM's `freeze` becomes, since lanes IR has no poison.
        Copy = "copy",
        /// Identity, exported as LLVM's `freeze`: a value LLVM's combiner must not look
        /// through (lane-width masks spread over several registers, whose sign-extended
        /// compares it would otherwise combine back into `<W x i1>` logic, which x86
        /// without mask registers legalizes as packed bytes).
        Freeze = "freeze",
    }
);

named_enum!(
    /// Integer (and pointer) comparison conditions.
    IntCC {
        Eq = "eq",
        Ne = "ne",
        Slt = "slt",
        Sle = "sle",
        Sgt = "sgt",
        Sge = "sge",
        Ult = "ult",
        Ule = "ule",
        Ugt = "ugt",
        Uge = "uge",
    }
);

impl IntCC {
    /// The condition with the operands exchanged: `b cc a` ⇔ `a cc.swapped() b`.
    pub fn swapped(self) -> IntCC {
        use IntCC::*;
        match self {
            Eq | Ne => self,
            Slt => Sgt,
            Sle => Sge,
            Sgt => Slt,
            Sge => Sle,
            Ult => Ugt,
            Ule => Uge,
            Ugt => Ult,
            Uge => Ule,
        }
    }

    /// The opposite condition: `!(a cc b)` ⇔ `a cc.negated() b`.
    pub fn negated(self) -> IntCC {
        use IntCC::*;
        match self {
            Eq => Ne,
            Ne => Eq,
            Slt => Sge,
            Sle => Sgt,
            Sgt => Sle,
            Sge => Slt,
            Ult => Uge,
            Ule => Ugt,
            Ugt => Ule,
            Uge => Ult,
        }
    }
}

named_enum!(
    /// Float comparison conditions: ordered (false if either is NaN) and unordered (true
    /// if either is NaN), as in LLVM.
    FloatCC {
        Oeq = "oeq",
        One = "one",
        Olt = "olt",
        Ole = "ole",
        Ogt = "ogt",
        Oge = "oge",
        Ord = "ord",
        Uno = "uno",
        Ueq = "ueq",
        Une = "une",
        Ult = "ult",
        Ule = "ule",
        Ugt = "ugt",
        Uge = "uge",
    }
);

named_enum!(
    /// Conversions. The result type is the instruction's result type; vectors convert lane
    /// by lane and keep their length (except `bitcast`, which keeps the total size).
    CastOp {
        Trunc = "trunc",
        Zext = "zext",
        Sext = "sext",
        FpTrunc = "fptrunc",
        FpExt = "fpext",
        /// Float to signed int, saturating; NaN gives 0 (LLVM's `fptosi.sat`). With
        /// `inrange`, an unspecified value out of range (LLVM's `freeze (fptosi x)`).
        FpToSi = "fptosi",
        /// Float to unsigned int, saturating; NaN gives 0 (LLVM's `fptoui.sat`). With
        /// `inrange`, an unspecified value out of range.
        FpToUi = "fptoui",
        SiToFp = "sitofp",
        UiToFp = "uitofp",
        Bitcast = "bitcast",
        PtrToInt = "ptrtoint",
        IntToPtr = "inttoptr",
        AddrSpaceCast = "addrspacecast",
    }
);

impl CastOp {
    /// The [`IntFlags`] the conversion may carry: `nneg` on `zext`; `nuw` and `nsw` on
    /// `trunc` (LLVM 19's: the bits dropped are zeros, respectively copies of the result's
    /// sign bit, so that `zext`, respectively `sext`, gives the operand back); `inrange` on
    /// `fptosi` and `fptoui` (no saturation).
    pub fn allowed_flags(self) -> IntFlags {
        match self {
            CastOp::Zext => IntFlags::NNEG,
            CastOp::FpToSi | CastOp::FpToUi => IntFlags::INRANGE,
            CastOp::Trunc => IntFlags::NUW.union(IntFlags::NSW),
            _ => IntFlags::NONE,
        }
    }
}

named_enum!(
    /// Read-modify-write atomic operations; the instruction returns the old value.
    AtomicOp {
        Xchg = "xchg",
        Add = "add",
        Sub = "sub",
        And = "and",
        Or = "or",
        Xor = "xor",
        SMin = "smin",
        SMax = "smax",
        UMin = "umin",
        UMax = "umax",
    }
);

named_enum!(
    /// OpenCL work-item queries (`get_global_id(d)` and friends), with the dimension as an
    /// immediate. PLDI'18 §2.3 and CC'12 §3.2 seed shape analysis from these: dimension 0
    /// of the global and local id is contiguous, everything else uniform.
    WorkItemQuery {
        GlobalId = "global_id",
        LocalId = "local_id",
        GroupId = "group_id",
        GlobalSize = "global_size",
        LocalSize = "local_size",
        NumGroups = "num_groups",
        GlobalOffset = "global_offset",
    }
);

named_enum!(
    /// The enumerated intrinsics. Their operand and result types are checked by the
    /// verifier (`Intrinsic::signature_class`) and their semantics defined by the
    /// interpreter.
    Intrinsic {
        // Math, lane-wise on scalars or vectors of floats.
        Sqrt = "sqrt",
        Fabs = "fabs",
        Floor = "floor",
        Ceil = "ceil",
        Trunc = "ftrunc",
        Round = "round",
        Rint = "rint",
        Exp = "exp",
        Exp2 = "exp2",
        Log = "log",
        Log2 = "log2",
        Log10 = "log10",
        Sin = "sin",
        Cos = "cos",
        Tan = "tan",
        Asin = "asin",
        Acos = "acos",
        Atan = "atan",
        Sinh = "sinh",
        Cosh = "cosh",
        Tanh = "tanh",
        Pow = "pow",
        Atan2 = "atan2",
        Fmod = "fmod",
        Copysign = "copysign",
        /// `a·b + c` rounded once (C `fma`, `llvm.fma`).
        Fma = "fma",
        /// `a·b + c`, fused or not as the target chooses: LLVM's `llvm.fmuladd`, which
        /// clang emits for `a * b + c` under `-ffp-contract=on` (its default) and which the
        /// backend fuses exactly where the target has FMA. The interpreter fuses.
        FMulAdd = "fmuladd",
        // Integer math.
        Abs = "abs",
        Ctpop = "ctpop",
        Ctlz = "ctlz",
        Cttz = "cttz",
        // Lane queries (RV's rv_lane_id / rv_num_lanes): scalar at width 1.
        LaneId = "lane_id",
        NumLanes = "num_lanes",
        // Mask queries over `<N x i1>` (or `i1` at width 1).
        Any = "any",
        All = "all",
        Popcount = "popcount",
        Ballot = "ballot",
        // Cross-lane values (RV's rv_extract / rv_broadcast, `include/lanes.h`) on scalars:
        // `lane_extract x, lane` is `x` as lane `lane mod W` computed it, `lane_broadcast x`
        // is `x` of the first active lane. At width 1 both are `x`.
        LaneExtract = "lane_extract",
        LaneBroadcast = "lane_broadcast",
        // Reductions of a vector to its element type.
        ReduceAdd = "reduce_add",
        ReduceMul = "reduce_mul",
        ReduceAnd = "reduce_and",
        ReduceOr = "reduce_or",
        ReduceXor = "reduce_xor",
        ReduceSMin = "reduce_smin",
        ReduceSMax = "reduce_smax",
        ReduceUMin = "reduce_umin",
        ReduceUMax = "reduce_umax",
        ReduceFAdd = "reduce_fadd",
        ReduceFMul = "reduce_fmul",
        ReduceFMin = "reduce_fmin",
        ReduceFMax = "reduce_fmax",
        // Vector element operations.
        Broadcast = "broadcast",
        Extract = "extract",
        Insert = "insert",
        // Work-group barrier (OpenCL `barrier`), CC'12 §2.3.
        Barrier = "barrier",
        // The start and the end of an unmasked region (`lanes_unmasked { … }` of
        // `include/lanes.h`, ISPC's `unmasked`): the vectorizer runs the memory
        // operations, calls and mask queries between them on every lane that entered the
        // function, not only on those active there. No-ops at width 1.
        UnmaskedBegin = "unmasked_begin",
        UnmaskedEnd = "unmasked_end",
        // Speculation of a parallel loop's exit test (PLDI'18 §7 with early exits):
        // `page_probe ptr, size` is whether the `size` bytes at `ptr` lie on the 4 KiB page
        // of the same access by lane 0 of the SIMD group while lane 0 is active here (true
        // at width 1); `speculative_load ptr, mask` reads the active lanes (contiguously
        // from a scalar `ptr` or from a vector of pointers) where the bytes need not belong
        // to any object, provided each lies on a page the program accesses (so it cannot
        // fault): outside every allocation the interpreter reads zero.
        PageProbe = "page_probe",
        SpeculativeLoad = "speculative_load",
    }
);

/// How an intrinsic's operands and result relate; the verifier checks each class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntrinsicClass {
    /// `n` float operands of the result type (scalar or vector).
    FloatMath(usize),
    /// `n` integer operands of the result type.
    IntMath(usize),
    /// No operands; an integer scalar or vector result.
    LaneQuery,
    /// One mask operand (`i1` or `<N x i1>`); result `i1` (any/all) or integer.
    MaskQuery,
    /// A scalar and `n - 1` scalar integer lane indices; the scalar's type. Reads the
    /// scalar of another lane of the SIMD group (identity at width 1).
    CrossLane(usize),
    /// One vector operand; the result is its element type.
    Reduction { float: bool },
    /// One scalar operand; a vector result of that element type.
    Broadcast,
    /// A vector and an integer lane index; the element type.
    Extract,
    /// A vector, an element and an integer lane index; the vector type.
    Insert,
    /// No operands and no result: a work-group barrier, or a bound of an unmasked region.
    Barrier,
    /// A scalar pointer and a scalar integer size; `i1`.
    PageProbe,
    /// A pointer (scalar or vector) and a mask (`i1` or `<N x i1>`); the loaded type.
    SpeculativeLoad,
}

impl Intrinsic {
    pub fn class(self) -> IntrinsicClass {
        use Intrinsic::*;
        match self {
            Sqrt | Fabs | Floor | Ceil | Trunc | Round | Rint | Exp | Exp2 | Log | Log2 | Log10
            | Sin | Cos | Tan | Asin | Acos | Atan | Sinh | Cosh | Tanh => {
                IntrinsicClass::FloatMath(1)
            }
            Pow | Atan2 | Fmod | Copysign => IntrinsicClass::FloatMath(2),
            Fma | FMulAdd => IntrinsicClass::FloatMath(3),
            Abs | Ctpop | Ctlz | Cttz => IntrinsicClass::IntMath(1),
            LaneId | NumLanes => IntrinsicClass::LaneQuery,
            Any | All | Popcount | Ballot => IntrinsicClass::MaskQuery,
            LaneExtract => IntrinsicClass::CrossLane(2),
            LaneBroadcast => IntrinsicClass::CrossLane(1),
            ReduceAdd | ReduceMul | ReduceAnd | ReduceOr | ReduceXor | ReduceSMin | ReduceSMax
            | ReduceUMin | ReduceUMax => IntrinsicClass::Reduction { float: false },
            ReduceFAdd | ReduceFMul | ReduceFMin | ReduceFMax => {
                IntrinsicClass::Reduction { float: true }
            }
            Broadcast => IntrinsicClass::Broadcast,
            Extract => IntrinsicClass::Extract,
            Insert => IntrinsicClass::Insert,
            Barrier | UnmaskedBegin | UnmaskedEnd => IntrinsicClass::Barrier,
            PageProbe => IntrinsicClass::PageProbe,
            SpeculativeLoad => IntrinsicClass::SpeculativeLoad,
        }
    }

    /// Does the intrinsic have an effect beyond its result (and so must not be removed,
    /// duplicated or executed for inactive lanes)?
    pub fn has_side_effects(self) -> bool {
        matches!(
            self,
            Intrinsic::Barrier | Intrinsic::UnmaskedBegin | Intrinsic::UnmaskedEnd
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_parse_back() {
        let mut seen = std::collections::HashSet::new();
        for op in Intrinsic::ALL {
            assert!(seen.insert(op.name()), "duplicate intrinsic name {op}");
            assert_eq!(op.name().parse::<Intrinsic>(), Ok(*op));
        }
        for op in BinaryOp::ALL {
            assert_eq!(op.name().parse::<BinaryOp>(), Ok(*op));
        }
        assert!("frobnicate".parse::<CastOp>().is_err());
    }
}
