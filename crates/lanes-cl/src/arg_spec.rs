//! Kernel arguments written as text, for `lanes cl run` and scripts:
//!
//! - `float[1024]`: a buffer of 1024 zero floats (any OpenCL scalar or vector type:
//!   `uchar`, `int4`, `double`, …; `float4[256]` is 256 `float4`s);
//! - `float[1024]=2.5`: every element 2.5;
//! - `float[1024]=rand` or `=rand:SEED`: seeded pseudo-random elements (floats in
//!   [0, 1), integers in [0, 1000)), the same on every machine;
//! - `int[1024]=seq` or `=seq:STEP`: element `i` is `i · STEP` (sorted tables), wrapped
//!   to the type's width as C converts (`uchar[300]=seq` counts 0…255, 0…43);
//! - `float[1024]=@data.bin`: the raw little-endian contents of a file (exactly the
//!   buffer's size), or `float[]=@data.bin` for as many elements as the file holds;
//! - `int:100`, `float:0.5`: a value;
//! - `local:4096` or `local:float[256]`: a `__local` buffer of that many bytes.

use std::path::PathBuf;

use crate::error::ClError;
use crate::host::{Arg, Buffer};

/// One scalar element type of OpenCL C.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElemType {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
}

impl ElemType {
    /// The OpenCL C name's type (`uint` → U32).
    pub fn from_name(name: &str) -> Option<ElemType> {
        Some(match name {
            "char" => ElemType::I8,
            "uchar" | "bool" => ElemType::U8,
            "short" => ElemType::I16,
            "ushort" => ElemType::U16,
            "int" => ElemType::I32,
            "uint" => ElemType::U32,
            "long" => ElemType::I64,
            "ulong" | "size_t" => ElemType::U64,
            "float" => ElemType::F32,
            "double" => ElemType::F64,
            _ => return None,
        })
    }

    pub fn bytes(self) -> usize {
        match self {
            ElemType::I8 | ElemType::U8 => 1,
            ElemType::I16 | ElemType::U16 => 2,
            ElemType::I32 | ElemType::U32 | ElemType::F32 => 4,
            ElemType::I64 | ElemType::U64 | ElemType::F64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, ElemType::F32 | ElemType::F64)
    }

    /// `text` as this type's little-endian bytes.
    fn encode(self, text: &str) -> Option<Vec<u8>> {
        let int = || text.parse::<i128>().ok();
        Some(match self {
            ElemType::I8 => i8::try_from(int()?).ok()?.to_le_bytes().to_vec(),
            ElemType::U8 => u8::try_from(int()?).ok()?.to_le_bytes().to_vec(),
            ElemType::I16 => i16::try_from(int()?).ok()?.to_le_bytes().to_vec(),
            ElemType::U16 => u16::try_from(int()?).ok()?.to_le_bytes().to_vec(),
            ElemType::I32 => i32::try_from(int()?).ok()?.to_le_bytes().to_vec(),
            ElemType::U32 => u32::try_from(int()?).ok()?.to_le_bytes().to_vec(),
            ElemType::I64 => i64::try_from(int()?).ok()?.to_le_bytes().to_vec(),
            ElemType::U64 => u64::try_from(int()?).ok()?.to_le_bytes().to_vec(),
            ElemType::F32 => text.parse::<f32>().ok()?.to_le_bytes().to_vec(),
            ElemType::F64 => text.parse::<f64>().ok()?.to_le_bytes().to_vec(),
        })
    }
}

impl ElemType {
    /// Appends `v` as this type's little-endian bytes: an integer type keeps its low bits
    /// (C's conversion to unsigned types, two's complement for signed ones), a float type
    /// the nearest value.
    fn push_wrapped(self, v: i64, out: &mut Vec<u8>) {
        match self {
            ElemType::F32 => out.extend_from_slice(&(v as f32).to_le_bytes()),
            ElemType::F64 => out.extend_from_slice(&(v as f64).to_le_bytes()),
            int => out.extend_from_slice(&v.to_le_bytes()[..int.bytes()]),
        }
    }
}

/// A type as written: a scalar type and a vector length (1 for scalars).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClType {
    pub elem: ElemType,
    pub lanes: usize,
}

impl ClType {
    /// `float`, `int4`, `uchar16`.
    pub fn parse(name: &str) -> Option<ClType> {
        let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (base, n) = name.split_at(name.len() - digits);
        let lanes = if n.is_empty() { 1 } else { n.parse().ok()? };
        if ![1, 2, 3, 4, 8, 16].contains(&lanes) {
            return None;
        }
        Some(ClType {
            elem: ElemType::from_name(base)?,
            lanes,
        })
    }

    /// Bytes of one element (a 3-vector takes 4 lanes' room, as in OpenCL).
    pub fn bytes(self) -> usize {
        self.elem.bytes() * if self.lanes == 3 { 4 } else { self.lanes }
    }
}

/// How a buffer starts.
#[derive(Clone, Debug, PartialEq)]
pub enum Fill {
    Zero,
    Value(String),
    Random(u64),
    /// Element `i` is `i` times this step.
    Sequence(i64),
    File(PathBuf),
}

/// One argument as written.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgSpec {
    /// `count` elements of `ty`; `None` for `T[]=@file`.
    Buffer {
        ty: ClType,
        count: Option<usize>,
        fill: Fill,
    },
    Scalar {
        ty: ClType,
        text: String,
    },
    Local {
        bytes: usize,
    },
}

fn bad(text: &str, why: &str) -> ClError {
    ClError::ArgSpec {
        text: text.to_string(),
        message: why.to_string(),
    }
}

impl ArgSpec {
    /// Parses one argument (module docs).
    pub fn parse(text: &str) -> Result<ArgSpec, ClError> {
        if let Some(rest) = text.strip_prefix("local:") {
            let bytes = match rest.split_once('[') {
                Some((ty, n)) => {
                    let ty = ClType::parse(ty).ok_or_else(|| bad(text, "unknown element type"))?;
                    let n: usize = n
                        .strip_suffix(']')
                        .and_then(|n| n.parse().ok())
                        .ok_or_else(|| bad(text, "expected local:TYPE[COUNT]"))?;
                    n * ty.bytes()
                }
                None => rest
                    .parse()
                    .map_err(|_| bad(text, "expected local:BYTES or local:TYPE[COUNT]"))?,
            };
            return Ok(ArgSpec::Local { bytes });
        }
        if let Some((ty, rest)) = text.split_once('[') {
            let ty = ClType::parse(ty).ok_or_else(|| bad(text, "unknown element type"))?;
            let (count, fill) = rest
                .split_once(']')
                .ok_or_else(|| bad(text, "missing `]`"))?;
            let count = if count.is_empty() {
                None
            } else {
                Some(
                    count
                        .parse()
                        .map_err(|_| bad(text, "the count is not a number"))?,
                )
            };
            let fill = match fill.strip_prefix('=') {
                None if fill.is_empty() => Fill::Zero,
                None => return Err(bad(text, "expected `=` after `]`")),
                Some("rand") => Fill::Random(1),
                Some(f) if f.starts_with("rand:") => Fill::Random(
                    f[5..]
                        .parse()
                        .map_err(|_| bad(text, "the seed is not a number"))?,
                ),
                Some("seq") => Fill::Sequence(1),
                Some(f) if f.starts_with("seq:") => Fill::Sequence(
                    f[4..]
                        .parse()
                        .map_err(|_| bad(text, "the step is not an integer"))?,
                ),
                Some(f) if f.starts_with('@') => Fill::File(PathBuf::from(&f[1..])),
                Some(v) => {
                    ty.elem
                        .encode(v)
                        .ok_or_else(|| bad(text, "the fill value does not fit the element type"))?;
                    Fill::Value(v.to_string())
                }
            };
            if count.is_none() && !matches!(fill, Fill::File(_)) {
                return Err(bad(
                    text,
                    "only a file fill (`=@PATH`) may leave the count out",
                ));
            }
            return Ok(ArgSpec::Buffer { ty, count, fill });
        }
        if let Some((ty, value)) = text.split_once(':') {
            let ty = ClType::parse(ty).ok_or_else(|| bad(text, "unknown type"))?;
            if ty.lanes != 1 {
                return Err(bad(
                    text,
                    "vector values are not supported as arguments yet",
                ));
            }
            ty.elem
                .encode(value)
                .ok_or_else(|| bad(text, "the value does not fit the type"))?;
            return Ok(ArgSpec::Scalar {
                ty,
                text: value.to_string(),
            });
        }
        Err(bad(
            text,
            "expected TYPE[COUNT][=FILL], TYPE:VALUE or local:BYTES (see `lanes cl run --help`)",
        ))
    }
}

/// An argument made from its spec: owns its buffer.
pub enum HostArg {
    Buffer { ty: ClType, buffer: Buffer },
    Scalar(Vec<u8>),
    Local(usize),
}

impl HostArg {
    /// Builds the argument `spec` describes.
    pub fn new(spec: &ArgSpec) -> Result<HostArg, ClError> {
        Ok(match spec {
            ArgSpec::Local { bytes } => HostArg::Local(*bytes),
            ArgSpec::Scalar { ty, text } => HostArg::Scalar(encode(*ty, text)?),
            ArgSpec::Buffer { ty, count, fill } => {
                let bytes = match fill {
                    Fill::File(path) => {
                        let data = std::fs::read(path).map_err(|e| ClError::Io {
                            path: path.clone(),
                            message: e.to_string(),
                        })?;
                        let want = count.map(|n| n * ty.bytes());
                        if want.is_some_and(|w| w != data.len()) || data.len() % ty.bytes() != 0 {
                            return Err(ClError::ArgSpec {
                                text: path.display().to_string(),
                                message: format!(
                                    "the file has {} bytes, not {} (whole elements of {} bytes)",
                                    data.len(),
                                    want.map_or("a multiple".into(), |w| w.to_string()),
                                    ty.bytes()
                                ),
                            });
                        }
                        data
                    }
                    Fill::Zero => vec![0; count.unwrap_or(0) * ty.bytes()],
                    Fill::Value(v) => {
                        let one = encode(*ty, v)?;
                        let n = count.unwrap_or(0) * ty.bytes() / ty.elem.bytes();
                        one.repeat(n)
                    }
                    Fill::Sequence(step) => {
                        let n = count.unwrap_or(0) * ty.bytes() / ty.elem.bytes();
                        let mut out = Vec::with_capacity(n * ty.elem.bytes());
                        for i in 0..n as i64 {
                            ty.elem.push_wrapped(i.wrapping_mul(*step), &mut out);
                        }
                        out
                    }
                    Fill::Random(seed) => random_bytes(
                        ty.elem,
                        count.unwrap_or(0) * ty.bytes() / ty.elem.bytes(),
                        *seed,
                    ),
                };
                let buffer = Buffer::from_slice(&bytes);
                HostArg::Buffer { ty: *ty, buffer }
            }
        })
    }

    /// The argument to pass.
    pub fn arg(&self) -> Arg<'_> {
        match self {
            HostArg::Buffer { buffer, .. } => Arg::Buffer(buffer),
            HostArg::Scalar(b) => Arg::Scalar(b.clone()),
            HostArg::Local(n) => Arg::Local(*n),
        }
    }
}

/// `text` as a value of `ty`'s element type (specs may be built without [`ArgSpec::parse`]).
fn encode(ty: ClType, text: &str) -> Result<Vec<u8>, ClError> {
    ty.elem
        .encode(text)
        .ok_or_else(|| bad(text, "the value does not fit the type"))
}

/// `n` elements of `elem` from a seeded xorshift generator.
fn random_bytes(elem: ElemType, n: usize, seed: u64) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut out = Vec::with_capacity(n * elem.bytes());
    for _ in 0..n {
        let r = next();
        let unit = (r >> 11) as f64 / (1u64 << 53) as f64;
        let v = match elem {
            ElemType::F32 => (unit as f32).to_le_bytes().to_vec(),
            ElemType::F64 => unit.to_le_bytes().to_vec(),
            _ => (r % 1000).to_le_bytes()[..elem.bytes()].to_vec(),
        };
        out.extend(v);
    }
    out
}

/// Checks `spec` against argument `index` of `kernel` as declared: a buffer of the
/// pointer's element type, a value of the parameter's type, `local:` for a `__local`
/// pointer. Types lanes cannot name (structs) are not compared.
pub fn check_against(
    spec: &ArgSpec,
    decl: &lanes_llvm::opencl::KernelArg,
    index: usize,
    kernel: &str,
) -> Result<(), ClError> {
    use lanes_llvm::opencl::ArgSpace;
    let bad = |message: String| ClError::Argument {
        kernel: kernel.to_string(),
        index,
        name: decl.name.clone(),
        message,
    };
    let declared = decl.type_name.trim_end_matches('*').trim();
    let declared_ty = ClType::parse(declared);
    let written = &decl.type_name;
    match (spec, decl.space) {
        (ArgSpec::Buffer { ty, .. }, ArgSpace::Global | ArgSpace::Constant) => {
            if declared_ty.is_some_and(|d| d != *ty) {
                return Err(bad(format!(
                    "it is `{written}`, the buffer given holds another type (write `{declared}[COUNT]`)"
                )));
            }
        }
        (ArgSpec::Scalar { ty, .. }, ArgSpace::Private) => {
            if declared_ty.is_some_and(|d| d != *ty) {
                return Err(bad(format!(
                    "it is `{written}`, the value given has another type (write `{declared}:VALUE`)"
                )));
            }
        }
        (ArgSpec::Local { .. }, ArgSpace::Local) => {}
        (_, ArgSpace::Local) => {
            return Err(bad(format!(
                "`{written}` is a __local pointer: write local:BYTES"
            )))
        }
        (_, ArgSpace::Private) => {
            return Err(bad(format!(
                "`{written}` is a value: write {declared}:VALUE"
            )))
        }
        _ => {
            return Err(bad(format!(
                "`{written}` is a buffer: write {declared}[COUNT]"
            )))
        }
    }
    Ok(())
}

/// FNV-1a of `bytes`: the checksum `lanes cl run` prints, and the builtin library's
/// cache key (a stable name for content, not a security measure).
pub fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_build() {
        let b = HostArg::new(&ArgSpec::parse("float4[3]=2.5").unwrap()).unwrap();
        let HostArg::Buffer { buffer, ty } = b else {
            panic!()
        };
        assert_eq!(ty.bytes(), 16);
        assert_eq!(buffer.to_vec::<f32>(), vec![2.5; 12]);
        let s = HostArg::new(&ArgSpec::parse("int[4]=seq:3").unwrap()).unwrap();
        let HostArg::Buffer { buffer, .. } = s else {
            panic!()
        };
        assert_eq!(buffer.to_vec::<i32>(), vec![0, 3, 6, 9]);
        let wrapped = HostArg::new(&ArgSpec::parse("uchar[300]=seq").unwrap()).unwrap();
        let HostArg::Buffer { buffer, .. } = wrapped else {
            panic!()
        };
        let bytes = buffer.to_vec::<u8>();
        assert_eq!(bytes.len(), 300);
        assert_eq!((bytes[255], bytes[256], bytes[299]), (255, 0, 43));
        let floats = HostArg::new(&ArgSpec::parse("float2[2]=seq:-2").unwrap()).unwrap();
        let HostArg::Buffer { buffer, .. } = floats else {
            panic!()
        };
        assert_eq!(buffer.to_vec::<f32>(), vec![0.0, -2.0, -4.0, -6.0]);
        let r = HostArg::new(&ArgSpec::parse("int[5]=rand:7").unwrap()).unwrap();
        let HostArg::Buffer { buffer, .. } = r else {
            panic!()
        };
        assert!(buffer
            .to_vec::<i32>()
            .iter()
            .all(|&v| (0..1000).contains(&v)));
        assert_eq!(
            ArgSpec::parse("uint:7").unwrap(),
            ArgSpec::Scalar {
                ty: ClType::parse("uint").unwrap(),
                text: "7".into()
            }
        );
        assert_eq!(
            ArgSpec::parse("local:float[64]").unwrap(),
            ArgSpec::Local { bytes: 256 }
        );
        for bad in [
            "float[x]",
            "quux[3]",
            "int:1.5",
            "uchar:300",
            "float[]",
            "float[4]=",
            "x",
        ] {
            assert!(ArgSpec::parse(bad).is_err(), "{bad}");
        }
    }
}
