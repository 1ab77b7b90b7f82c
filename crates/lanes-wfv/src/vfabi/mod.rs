//! Names of the x86 vector-function ABI (Intel's "Vector Function ABI", §2.4 name
//! mangling, as GCC and clang mangle `#pragma omp declare simd`): one place that makes and
//! reads them, for `lanes vectorize`, the `declare simd` variants of `lanes compile`, and
//! the vector math library.
//!
//! A name is `_ZGV`, the ISA (`b` SSE, `c` AVX, `d` AVX2, `e` AVX-512), `N` (unmasked) or
//! `M` (masked), the width `W`, one letter per parameter (`v` vector, `u` uniform,
//! `l`/`R`/`L`/`U` linear), `_` and the scalar function's name. [`masked`] builds the
//! wrapper of a masked variant, whose mask parameter's type the ABI fixes per ISA.

pub mod masked;

use lanes_ir::Shape;

/// One parsed `_ZGV…` name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    pub isa: char,
    pub masked: bool,
    pub width: u16,
    /// One letter per parameter (alignment suffixes dropped).
    pub params: Vec<char>,
    pub function: String,
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
    let mut params = Vec::new();
    let mut it = params_text.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            // Alignment `a<n>` belongs to the previous parameter.
            'a' if !params.is_empty() => {}
            'l' | 'R' | 'L' | 'U' | 'v' | 'u' => params.push(c),
            's' | 'n' | '0'..='9' if !params.is_empty() => {}
            _ => return None,
        }
        while it.peek().is_some_and(|c| c.is_ascii_digit()) {
            it.next();
        }
    }
    (width > 0 && !function.is_empty()).then(|| Variant {
        isa,
        masked,
        width,
        params,
        function: function.to_string(),
    })
}

/// `_ZGV<isa>N<width><params>_<name>`: an unmasked variant's name for parameter shapes
/// (`u` for uniform, `v` for any other).
pub fn mangle(name: &str, isa: char, width: u16, shapes: &[Option<Shape>]) -> String {
    let params: String = shapes
        .iter()
        .map(|s| if *s == Some(Shape::Uniform) { 'u' } else { 'v' })
        .collect();
    format!("_ZGV{isa}N{width}{params}_{name}")
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
        assert_eq!(
            v,
            Variant {
                isa: 'e',
                masked: true,
                width: 16,
                params: vec!['v', 'u', 'l'],
                function: "foo_bar".to_string()
            }
        );
        let v = parse_variant("_ZGVbN4va16ls2u_f").expect("parses");
        assert_eq!(v.params, ['v', 'l', 'u']);
        assert!(parse_variant("_ZGVbX4v_f").is_none());
        assert!(parse_variant("foo").is_none());
        assert!(parse_variant("_ZGVbN4v").is_none());
    }
}
