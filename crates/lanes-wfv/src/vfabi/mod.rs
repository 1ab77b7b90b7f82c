//! Names of the x86 vector-function ABI (Intel's "Vector Function ABI", §2.4 name
//! mangling, as GCC and clang mangle `#pragma omp declare simd`): one place that makes and
//! reads them, for `lanes vectorize`, the `declare simd` variants of `lanes compile`, and
//! the vector math library.
//!
//! A name is `_ZGV`, the ISA (`b` SSE, `c` AVX, `d` AVX2, `e` AVX-512), `N` (unmasked) or
//! `M` (masked), the width `W`, one letter per parameter (`v` vector, `u` uniform,
//! `l`/`R`/`L`/`U` linear, with a step and an alignment `a<n>` after it: [`VParam`]), `_`
//! and the scalar function's name. A linear parameter is passed as lane 0's value. [`masked`] builds the
//! wrapper of a masked variant, whose mask parameter's type the ABI fixes per ISA.

pub mod masked;

use lanes_ir::Shape;

/// The linear step of a parameter: a constant (elements for integers, bytes for pointers,
/// as clang and GCC mangle it), or the value of another parameter (`ls<n>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Const(i64),
    Param(u32),
}

/// One parameter of a `_ZGV…` name: its letter — `v` vector, `u` uniform, `l` linear,
/// `R`/`U`/`L` linear references (C++ `linear(ref(x))`, `uval(x)`, `val(x)`) — the step of
/// a linear one, and the alignment `aligned(…)` promised (0 if none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VParam {
    pub letter: char,
    pub step: Option<Step>,
    pub align: u32,
}

impl VParam {
    /// A parameter of `shape`: uniform `u`, strided (contiguous: step 1) `l<step>` when
    /// `linear` (the variant takes lane 0's value; the ABI's linear parameters), else `v`.
    pub fn of_shape(shape: Option<Shape>, align: u32, linear: bool) -> VParam {
        let (letter, step) = match shape {
            Some(Shape::Uniform) => ('u', None),
            Some(Shape::Contiguous) if linear => ('l', Some(Step::Const(1))),
            Some(Shape::Strided(n)) if linear && n != 0 => ('l', Some(Step::Const(n))),
            _ => ('v', None),
        };
        VParam {
            letter,
            step,
            align,
        }
    }

    /// The shape and alignment of the variant's parameter (`None` for the linear kinds
    /// lanes does not take: variable steps and references).
    pub fn shape(&self) -> Option<(Shape, u32)> {
        let shape = match (self.letter, self.step) {
            ('u', _) => Shape::Uniform,
            ('v', _) => Shape::Varying,
            ('l', Some(Step::Const(0))) => Shape::Uniform,
            ('l', Some(Step::Const(1))) => Shape::Contiguous,
            ('l', Some(Step::Const(n))) => Shape::Strided(n),
            _ => return None,
        };
        Some((shape, self.align))
    }

    /// The mangled text: the letter, a step other than 1 (`n` for negative, `s<i>` for
    /// a parameter), then `a<align>`.
    pub fn mangled(&self) -> String {
        let mut out = String::from(self.letter);
        match self.step {
            Some(Step::Const(1)) | None => {}
            Some(Step::Const(n)) if n < 0 => out.push_str(&format!("n{}", n.unsigned_abs())),
            Some(Step::Const(n)) => out.push_str(&n.to_string()),
            Some(Step::Param(i)) => out.push_str(&format!("s{i}")),
        }
        if self.align > 0 {
            out.push_str(&format!("a{}", self.align));
        }
        out
    }
}

/// One parsed `_ZGV…` name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    pub isa: char,
    pub masked: bool,
    pub width: u16,
    pub params: Vec<VParam>,
    pub function: String,
}

impl Variant {
    /// The parameter letters.
    pub fn letters(&self) -> Vec<char> {
        self.params.iter().map(|p| p.letter).collect()
    }
}

/// Parses `_ZGV<isa><N|M><width><params>_<name>`.
pub fn parse_variant(name: &str) -> Option<Variant> {
    let rest = name.strip_prefix("_ZGV")?;
    let mut chars = rest.chars();
    let isa = chars.next()?;
    let masked = match chars.next()? {
        'N' => false,
        'M' => true,
        _ => return None,
    };
    let rest = chars.as_str();
    let digits = rest.find(|c: char| !c.is_ascii_digit())?;
    let width: u16 = rest[..digits].parse().ok()?;
    let (params_text, function) = rest[digits..].split_once('_')?;
    let mut params: Vec<VParam> = Vec::new();
    let text = params_text.as_bytes();
    let mut at = 0;
    // The decimal number at `at`, if any; advances past it.
    let number = |at: &mut usize| -> Option<u64> {
        let start = *at;
        while *at < text.len() && text[*at].is_ascii_digit() {
            *at += 1;
        }
        (start < *at).then(|| params_text[start..*at].parse().ok())?
    };
    while at < text.len() {
        let letter = char::from(text[at]);
        at += 1;
        let step = match letter {
            'v' | 'u' => None,
            'l' | 'R' | 'U' | 'L' => Some(match text.get(at) {
                Some(b'n') => {
                    at += 1;
                    Step::Const(-i64::try_from(number(&mut at)?).ok()?)
                }
                Some(b's') => {
                    at += 1;
                    Step::Param(u32::try_from(number(&mut at)?).ok()?)
                }
                _ => Step::Const(number(&mut at).map_or(Ok(1), i64::try_from).ok()?),
            }),
            _ => return None,
        };
        let align = if text.get(at) == Some(&b'a') {
            at += 1;
            u32::try_from(number(&mut at)?).ok()?
        } else {
            0
        };
        params.push(VParam {
            letter,
            step,
            align,
        });
    }
    (width > 0 && !function.is_empty()).then(|| Variant {
        isa,
        masked,
        width,
        params,
        function: function.to_string(),
    })
}

/// `_ZGV<isa>N<width><params>_<name>`: an unmasked variant's name.
pub fn mangle(name: &str, isa: char, width: u16, params: &[VParam]) -> String {
    let letters: String = params.iter().map(VParam::mangled).collect();
    format!("_ZGV{isa}N{width}{letters}_{name}")
}

/// The target feature an ISA letter needs.
pub fn isa_feature(isa: char) -> Option<&'static str> {
    match isa {
        'b' => Some("sse2"),
        'c' => Some("avx"),
        'd' => Some("avx2"),
        'e' => Some("avx512f"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_names_parse() {
        let v = parse_variant("_ZGVeM16vul_foo_bar").expect("parses");
        assert_eq!((v.isa, v.masked, v.width), ('e', true, 16));
        assert_eq!(v.letters(), ['v', 'u', 'l']);
        assert_eq!(v.params[2].step, Some(Step::Const(1)));
        assert_eq!(v.function, "foo_bar");
        let v = parse_variant("_ZGVbN4va16ls2u_f").expect("parses");
        assert_eq!(v.letters(), ['v', 'l', 'u']);
        assert_eq!(v.params[0].align, 16);
        assert_eq!(v.params[1].step, Some(Step::Param(2)));
        let v = parse_variant("_ZGVdN8l4ln8ls0R4U8a32L_g").expect("parses");
        let steps: Vec<_> = v.params.iter().map(|p| p.step).collect();
        assert_eq!(
            steps,
            [
                Some(Step::Const(4)),
                Some(Step::Const(-8)),
                Some(Step::Param(0)),
                Some(Step::Const(4)),
                Some(Step::Const(8)),
                Some(Step::Const(1)),
            ]
        );
        assert_eq!(v.params[4].align, 32);
        assert!(parse_variant("_ZGVbX4v_f").is_none());
        assert!(parse_variant("foo").is_none());
        assert!(parse_variant("_ZGVbN4v").is_none());
        assert!(parse_variant("_ZGVbN4x_f").is_none());
    }

    #[test]
    fn names_round_trip() {
        for name in [
            "_ZGVdN8ulv_f",
            "_ZGVbN4va16ls2u_f",
            "_ZGVeN16l4ln8ua64_g",
            "_ZGVcN8R4U8L_h",
        ] {
            let v = parse_variant(name).expect("parses");
            assert_eq!(mangle(&v.function, v.isa, v.width, &v.params), name);
        }
        // Shapes: contiguous and strided become linear only where the variant takes them
        // as scalars.
        let p = |s, linear| VParam::of_shape(Some(s), 0, linear).mangled();
        assert_eq!(p(Shape::Contiguous, true), "l");
        assert_eq!(p(Shape::Strided(-4), true), "ln4");
        assert_eq!(p(Shape::Contiguous, false), "v");
        assert_eq!(
            VParam::of_shape(Some(Shape::Uniform), 32, true).mangled(),
            "ua32"
        );
    }
}
