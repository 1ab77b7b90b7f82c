//! Value types of the lanes IR.
//!
//! lanes has no aggregates (ARCHITECTURE.md, "The IR"): every value is a scalar of a fixed
//! width, a byte-addressed pointer, or a fixed-length vector of one of those. A mask is a
//! vector of `i1` (`<N x i1>`), which is what the predicates of PLDI'18 §2.4 become once
//! they are widened. Pointers carry an address space so that OpenCL's private, global,
//! constant and local memory (CC'12 §2) stay apart; all pointers are 64 bits wide.

use core::fmt;

/// An OpenCL-style address space, following the numbering clang uses for SPIR and x86
/// OpenCL targets: 0 private, 1 global, 2 constant, 3 local.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct AddrSpace(pub u8);

impl AddrSpace {
    pub const PRIVATE: AddrSpace = AddrSpace(0);
    pub const GLOBAL: AddrSpace = AddrSpace(1);
    pub const CONSTANT: AddrSpace = AddrSpace(2);
    pub const LOCAL: AddrSpace = AddrSpace(3);
}

/// The element types: what a lane holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarType {
    I1,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
    Ptr(AddrSpace),
}

impl ScalarType {
    /// Width in bits (`i1` is 1 bit; its in-memory size is one byte).
    pub fn bits(self) -> u32 {
        match self {
            ScalarType::I1 => 1,
            ScalarType::I8 => 8,
            ScalarType::I16 => 16,
            ScalarType::I32 | ScalarType::F32 => 32,
            ScalarType::I64 | ScalarType::F64 | ScalarType::Ptr(_) => 64,
        }
    }

    /// Size in bytes when stored to memory.
    pub fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }

    pub fn is_int(self) -> bool {
        matches!(
            self,
            ScalarType::I1 | ScalarType::I8 | ScalarType::I16 | ScalarType::I32 | ScalarType::I64
        )
    }

    pub fn is_float(self) -> bool {
        matches!(self, ScalarType::F32 | ScalarType::F64)
    }

    pub fn is_ptr(self) -> bool {
        matches!(self, ScalarType::Ptr(_))
    }

    /// All non-pointer element types plus the private pointer, for generators and tests.
    pub const ALL: [ScalarType; 8] = [
        ScalarType::I1,
        ScalarType::I8,
        ScalarType::I16,
        ScalarType::I32,
        ScalarType::I64,
        ScalarType::F32,
        ScalarType::F64,
        ScalarType::Ptr(AddrSpace::PRIVATE),
    ];
}

/// A value type: a scalar or a fixed vector `<lanes x elem>` with `lanes >= 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Scalar(ScalarType),
    Vector(u16, ScalarType),
}

impl Type {
    pub const I1: Type = Type::Scalar(ScalarType::I1);
    pub const I8: Type = Type::Scalar(ScalarType::I8);
    pub const I16: Type = Type::Scalar(ScalarType::I16);
    pub const I32: Type = Type::Scalar(ScalarType::I32);
    pub const I64: Type = Type::Scalar(ScalarType::I64);
    pub const F32: Type = Type::Scalar(ScalarType::F32);
    pub const F64: Type = Type::Scalar(ScalarType::F64);
    pub const PTR: Type = Type::Scalar(ScalarType::Ptr(AddrSpace::PRIVATE));

    /// A pointer into address space `space`.
    pub fn ptr(space: AddrSpace) -> Type {
        Type::Scalar(ScalarType::Ptr(space))
    }

    /// `<lanes x elem>`.
    pub fn vector(lanes: u16, elem: ScalarType) -> Type {
        Type::Vector(lanes, elem)
    }

    /// The mask type of width `lanes`: `<lanes x i1>`.
    pub fn mask(lanes: u16) -> Type {
        Type::Vector(lanes, ScalarType::I1)
    }

    /// The element type (the type itself for scalars).
    pub fn elem(self) -> ScalarType {
        match self {
            Type::Scalar(s) | Type::Vector(_, s) => s,
        }
    }

    /// Number of lanes, or `None` for a scalar.
    pub fn lanes(self) -> Option<u16> {
        match self {
            Type::Scalar(_) => None,
            Type::Vector(n, _) => Some(n),
        }
    }

    /// Number of lanes, 1 for a scalar.
    pub fn lane_count(self) -> u32 {
        self.lanes().map_or(1, u32::from)
    }

    pub fn is_vector(self) -> bool {
        matches!(self, Type::Vector(..))
    }

    /// The same shape (scalar or vector of the same length) with another element type.
    pub fn with_elem(self, elem: ScalarType) -> Type {
        match self {
            Type::Scalar(_) => Type::Scalar(elem),
            Type::Vector(n, _) => Type::Vector(n, elem),
        }
    }

    /// The type a comparison of two values of this type produces: `i1` or `<N x i1>`.
    pub fn as_bool(self) -> Type {
        self.with_elem(ScalarType::I1)
    }

    pub fn is_int(self) -> bool {
        self.elem().is_int()
    }

    pub fn is_float(self) -> bool {
        self.elem().is_float()
    }

    pub fn is_ptr(self) -> bool {
        self.elem().is_ptr()
    }

    /// Is this `i1` or `<N x i1>`?
    pub fn is_bool(self) -> bool {
        self.elem() == ScalarType::I1
    }

    /// Bytes occupied in memory (vectors are packed, `i1` takes a byte per lane).
    pub fn bytes(self) -> u32 {
        self.elem().bytes() * self.lane_count()
    }
}

impl From<ScalarType> for Type {
    fn from(s: ScalarType) -> Type {
        Type::Scalar(s)
    }
}

impl fmt::Display for AddrSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            AddrSpace::PRIVATE => Ok(()),
            AddrSpace::GLOBAL => f.write_str(".global"),
            AddrSpace::CONSTANT => f.write_str(".constant"),
            AddrSpace::LOCAL => f.write_str(".local"),
            AddrSpace(n) => write!(f, ".as{n}"),
        }
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScalarType::I1 => f.write_str("i1"),
            ScalarType::I8 => f.write_str("i8"),
            ScalarType::I16 => f.write_str("i16"),
            ScalarType::I32 => f.write_str("i32"),
            ScalarType::I64 => f.write_str("i64"),
            ScalarType::F32 => f.write_str("f32"),
            ScalarType::F64 => f.write_str("f64"),
            ScalarType::Ptr(space) => write!(f, "ptr{space}"),
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Scalar(s) => write!(f, "{s}"),
            Type::Vector(n, s) => write!(f, "<{n} x {s}>"),
        }
    }
}

/// Parses a scalar type name as printed by `Display` (`i32`, `ptr`, `ptr.global`, `ptr.as7`).
pub fn parse_scalar_type(s: &str) -> Option<ScalarType> {
    Some(match s {
        "i1" => ScalarType::I1,
        "i8" => ScalarType::I8,
        "i16" => ScalarType::I16,
        "i32" => ScalarType::I32,
        "i64" => ScalarType::I64,
        "f32" => ScalarType::F32,
        "f64" => ScalarType::F64,
        "ptr" => ScalarType::Ptr(AddrSpace::PRIVATE),
        "ptr.global" => ScalarType::Ptr(AddrSpace::GLOBAL),
        "ptr.constant" => ScalarType::Ptr(AddrSpace::CONSTANT),
        "ptr.local" => ScalarType::Ptr(AddrSpace::LOCAL),
        _ => {
            let n = s.strip_prefix("ptr.as")?;
            ScalarType::Ptr(AddrSpace(n.parse().ok()?))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_names_round_trip() {
        for s in ScalarType::ALL.into_iter().chain(
            [
                AddrSpace::GLOBAL,
                AddrSpace::LOCAL,
                AddrSpace::CONSTANT,
                AddrSpace(9),
            ]
            .map(ScalarType::Ptr),
        ) {
            assert_eq!(parse_scalar_type(&s.to_string()), Some(s), "{s}");
        }
        assert_eq!(parse_scalar_type("i33"), None);
        assert_eq!(parse_scalar_type("ptr.as999"), None);
    }

    #[test]
    fn sizes_and_masks() {
        assert_eq!(Type::vector(8, ScalarType::F32).bytes(), 32);
        assert_eq!(Type::mask(16).to_string(), "<16 x i1>");
        assert_eq!(Type::vector(4, ScalarType::I32).as_bool(), Type::mask(4));
        assert_eq!(Type::I1.bytes(), 1);
        assert_eq!(Type::PTR.bytes(), 8);
    }
}
