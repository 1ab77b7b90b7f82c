//! The vector shape lattice (PLDI'18 §2.3; CC'12 §3.2).
//!
//! A *shape* says how one SSA value relates across the SIMD instances (lanes) that execute
//! it together. Writing `v_i` for the value in lane `i`:
//!
//! ```text
//!                 varying(a)            v_i arbitrary; every v_i a multiple of a
//!                     |
//!      … strided(s, a) strided(0, a) …  v_i - v_j = (i - j)·s  (mod 2^bits); v_0 ≡ 0 mod a
//!                     |
//!                   undef               not yet known (no definition reached)
//! ```
//!
//! `uniform` is `strided(0, a)` and `contiguous` is `strided(1, a)` (one element for
//! integers; for pointers strides count *bytes*, so a contiguous `f32` pointer is
//! `strided(4, a)`). The alignment `a` is a power of two; 1 means "unknown". Strides are
//! kept normalized to the value's bit width (sign-extended), because lane arithmetic wraps.
//!
//! The order is `undef < strided(s, a) < varying(a')` with alignments ordered the other way
//! (a larger known alignment is more information, so `strided(s, 8) < strided(s, 4)`). Two
//! different strides only meet in `varying`. [`VShape::join`] is the least upper bound. The
//! lattice has finite height per value (one stride change, then alignment can only shrink
//! through at most 31 powers of two), which bounds the fixpoint iteration in
//! [`super::ShapeAnalysis`].

use core::fmt;

use lanes_ir::Shape as ParamShape;

/// The largest alignment tracked (constants such as 0 are "infinitely" aligned).
pub const MAX_ALIGN: u32 = 1 << 30;

/// A vector shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VShape {
    /// No information yet (bottom).
    Undef,
    /// Lane `i` holds `base + i * stride`; `base` is a multiple of `align`.
    Strided { stride: i64, align: u32 },
    /// Arbitrary per lane; every lane's value is a multiple of `align` (top, for `align` 1).
    Varying { align: u32 },
}

/// The largest power of two dividing `x` (capped at [`MAX_ALIGN`]; 0 gives the cap).
pub fn low_bit(x: i64) -> u32 {
    if x == 0 {
        return MAX_ALIGN;
    }
    let tz = x.trailing_zeros().min(MAX_ALIGN.trailing_zeros());
    1u32 << tz
}

/// Sign-extends the low `bits` bits of `x` (the canonical form of a stride of that width).
pub fn normalize_stride(x: i64, bits: u32) -> i64 {
    if bits == 0 || bits >= 64 {
        return x;
    }
    let shift = 64 - bits;
    (x << shift) >> shift
}

impl VShape {
    pub const UNDEF: VShape = VShape::Undef;
    /// Uniform with unknown alignment.
    pub const UNIFORM: VShape = VShape::Strided {
        stride: 0,
        align: 1,
    };
    /// Varying with unknown alignment (top).
    pub const VARYING: VShape = VShape::Varying { align: 1 };

    pub fn uniform(align: u32) -> VShape {
        VShape::Strided {
            stride: 0,
            align: clamp_align(align),
        }
    }

    pub fn strided(stride: i64, align: u32) -> VShape {
        VShape::Strided {
            stride,
            align: clamp_align(align),
        }
    }

    pub fn varying(align: u32) -> VShape {
        VShape::Varying {
            align: clamp_align(align),
        }
    }

    pub fn is_undef(self) -> bool {
        self == VShape::Undef
    }

    /// The same value in every lane.
    pub fn is_uniform(self) -> bool {
        matches!(self, VShape::Strided { stride: 0, .. })
    }

    /// Not uniform: lanes may differ (strided with a nonzero stride, or varying).
    pub fn is_divergent(self) -> bool {
        !self.is_undef() && !self.is_uniform()
    }

    pub fn stride(self) -> Option<i64> {
        match self {
            VShape::Strided { stride, .. } => Some(stride),
            _ => None,
        }
    }

    /// The alignment stated by the shape (of lane 0 for strided shapes).
    pub fn align(self) -> u32 {
        match self {
            VShape::Undef => MAX_ALIGN,
            VShape::Strided { align, .. } | VShape::Varying { align } => align,
        }
    }

    /// An alignment every lane's value has.
    pub fn lane_align(self) -> u32 {
        match self {
            VShape::Undef => MAX_ALIGN,
            VShape::Strided { stride, align } => align.min(low_bit(stride)),
            VShape::Varying { align } => align,
        }
    }

    /// The same shape forgetting strides: varying with the lanes' common alignment
    /// (undef stays undef).
    pub fn to_varying(self) -> VShape {
        match self {
            VShape::Undef => VShape::Undef,
            s => VShape::varying(s.lane_align()),
        }
    }

    /// The least upper bound.
    pub fn join(self, other: VShape) -> VShape {
        match (self, other) {
            (VShape::Undef, x) | (x, VShape::Undef) => x,
            (
                VShape::Strided {
                    stride: s1,
                    align: a1,
                },
                VShape::Strided {
                    stride: s2,
                    align: a2,
                },
            ) if s1 == s2 => VShape::strided(s1, a1.min(a2)),
            (a, b) => VShape::varying(a.lane_align().min(b.lane_align())),
        }
    }

    /// `self ⊑ other` in the lattice order.
    pub fn le(self, other: VShape) -> bool {
        self.join(other) == other
    }

    /// The parameter attribute and alignment that give this shape back through
    /// [`VShape::from_param`]: how a call site's argument shapes become the argument
    /// shapes of the callee's vector variant. Undefined values are passed as uniform.
    pub fn to_param(self) -> (ParamShape, u32) {
        match self {
            VShape::Undef => (ParamShape::Uniform, 0),
            VShape::Strided { stride: 0, align } => (ParamShape::Uniform, align),
            VShape::Strided { stride: 1, align } => (ParamShape::Contiguous, align),
            VShape::Strided { stride, align } => (ParamShape::Strided(stride), align),
            VShape::Varying { align } => (ParamShape::Varying, align),
        }
    }

    /// A shape from a parameter attribute and alignment (PLDI'18 §2.3 argument shapes).
    /// `Contiguous` is one unit: one element for integers, one byte for pointers (strides
    /// of pointers are in bytes).
    pub fn from_param(shape: ParamShape, align: u32) -> VShape {
        let align = if align == 0 { 1 } else { align };
        match shape {
            ParamShape::Uniform => VShape::uniform(align),
            ParamShape::Contiguous => VShape::strided(1, align),
            ParamShape::Strided(n) => VShape::strided(n, align),
            ParamShape::Varying => VShape::varying(align),
        }
    }
}

/// Rounds an alignment down to a power of two in `1..=MAX_ALIGN`.
pub fn clamp_align(a: u32) -> u32 {
    if a <= 1 {
        1
    } else {
        (1u32 << (31 - a.leading_zeros())).min(MAX_ALIGN)
    }
}

impl fmt::Display for VShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let al = |f: &mut fmt::Formatter<'_>, a: u32| {
            if a > 1 && a < MAX_ALIGN {
                write!(f, " a{a}")
            } else {
                Ok(())
            }
        };
        match *self {
            VShape::Undef => f.write_str("undef"),
            VShape::Strided { stride: 0, align } => {
                f.write_str("uniform")?;
                al(f, align)
            }
            VShape::Strided { stride: 1, align } => {
                f.write_str("contiguous")?;
                al(f, align)
            }
            VShape::Strided { stride, align } => {
                write!(f, "strided({stride})")?;
                al(f, align)
            }
            VShape::Varying { align } => {
                f.write_str("varying")?;
                al(f, align)
            }
        }
    }
}

/// Why a `--shapes` list could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShapeSyntaxError {
    #[error("shape {index}: empty")]
    Empty { index: usize },
    #[error("shape {index}: `{text}` is not one of u, c, s<n>, v (optionally followed by a<n>)")]
    Unknown { index: usize, text: String },
    #[error("shape {index}: alignment {align} is not a power of two")]
    BadAlign { index: usize, align: String },
}

/// Parses one shape: `u`, `c`, `s<n>` (stride `n`, may be negative), `v`, each optionally
/// followed by `a<n>` (alignment `n` bytes, a power of two), e.g. `ua16`, `s4a4`, `v`.
pub fn parse_shape(text: &str, index: usize) -> Result<(ParamShape, u32), ShapeSyntaxError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(ShapeSyntaxError::Empty { index });
    }
    let unknown = || ShapeSyntaxError::Unknown {
        index,
        text: t.to_string(),
    };
    let (body, align) = match t.find('a') {
        Some(pos) => {
            let digits = &t[pos + 1..];
            let a: u32 = digits.parse().map_err(|_| unknown())?;
            if a == 0 || !a.is_power_of_two() {
                return Err(ShapeSyntaxError::BadAlign {
                    index,
                    align: digits.to_string(),
                });
            }
            (&t[..pos], a)
        }
        None => (t, 0),
    };
    let shape = match body {
        "u" => ParamShape::Uniform,
        "c" => ParamShape::Contiguous,
        "v" => ParamShape::Varying,
        s => {
            let n = s.strip_prefix('s').ok_or_else(unknown)?;
            let n: i64 = n.parse().map_err(|_| unknown())?;
            match n {
                0 => ParamShape::Uniform,
                1 => ParamShape::Contiguous,
                n => ParamShape::Strided(n),
            }
        }
    };
    Ok((shape, align))
}

/// Parses a comma-separated `--shapes` list, one entry per argument.
pub fn parse_shape_list(text: &str) -> Result<Vec<(ParamShape, u32)>, ShapeSyntaxError> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .enumerate()
        .map(|(i, s)| parse_shape(s, i))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_is_a_least_upper_bound() {
        let u = VShape::uniform(8);
        let c = VShape::strided(1, 4);
        assert_eq!(VShape::Undef.join(u), u);
        assert_eq!(u.join(VShape::uniform(4)), VShape::uniform(4));
        assert_eq!(u.join(c), VShape::varying(1));
        assert_eq!(
            VShape::strided(4, 16).join(VShape::strided(8, 16)),
            VShape::varying(4)
        );
        assert!(u.le(VShape::VARYING) && VShape::Undef.le(u) && !c.le(u));
        assert!(c.is_divergent() && VShape::strided(-2, 1).is_divergent() && !u.is_divergent());
    }

    #[test]
    fn a_shape_survives_the_trip_through_parameter_attributes() {
        for s in [
            VShape::uniform(8),
            VShape::strided(1, 16),
            VShape::strided(-3, 4),
            VShape::varying(2),
        ] {
            let (shape, align) = s.to_param();
            assert_eq!(VShape::from_param(shape, align), s, "{s}");
        }
        assert_eq!(VShape::Undef.to_param(), (ParamShape::Uniform, 0));
    }

    #[test]
    fn shape_syntax() {
        assert_eq!(parse_shape("u", 0), Ok((ParamShape::Uniform, 0)));
        assert_eq!(parse_shape("ca16", 0), Ok((ParamShape::Contiguous, 16)));
        assert_eq!(parse_shape("s-4a4", 0), Ok((ParamShape::Strided(-4), 4)));
        assert_eq!(parse_shape("s1", 0), Ok((ParamShape::Contiguous, 0)));
        assert!(matches!(
            parse_shape("va3", 2),
            Err(ShapeSyntaxError::BadAlign { index: 2, .. })
        ));
        assert!(parse_shape("x", 0).is_err());
        assert_eq!(parse_shape_list("u, c,v").unwrap().len(), 3);
        assert_eq!(normalize_stride(255, 8), -1);
        assert_eq!(low_bit(12), 4);
    }
}
