//! `printf`, `puts` and `putchar`: the C output functions that test programs (csmith's
//! checksum, a kernel's debugging line) call, written to [`Memory`]'s standard output.
//!
//! They are why lanes IR has calls to variadic functions: `printf` is the variadic callee
//! every C program has. The arguments arrive as the C front end passed them — default
//! argument promotions done (`float` as `double`, `char` and `short` as `int`) — so a
//! conversion reads its argument's bits and narrows them as its length modifier says
//! (`%hhd` an `i8`, `%ld` an `i64`), as the C library does on x86-64. Formatting follows
//! C11 §7.21.6.1 for the flags `-+ #0`, field width and precision (`*` included), and the
//! conversions `d i u o x X c s p f F e E g G a A %`; `%n` is refused, as a hardened libc
//! does. A mismatched or missing argument is an error, never a guess.

use lanes_ir::Type;

use crate::arith::malformed;
use crate::error::ErrorKind;
use crate::memory::Memory;
use crate::value::RtValue;

/// Is `name` one of the output functions implemented here?
pub fn is_stdio(name: &str) -> bool {
    matches!(name, "printf" | "puts" | "putchar")
}

/// Calls `printf`, `puts` or `putchar` on `args`; the C return value (`int`).
pub fn call_stdio(
    mem: &mut Memory,
    name: &str,
    args: &[RtValue],
    ret: Option<Type>,
) -> Result<Option<RtValue>, ErrorKind> {
    let ptr_arg = |i: usize| {
        args.get(i)
            .filter(|a| a.elem().is_ptr())
            .and_then(RtValue::as_u64)
            .ok_or_else(|| {
                ErrorKind::BadArgument(format!("@{name}: argument {i} is not a pointer"))
            })
    };
    let written: i64 = match name {
        "printf" => {
            let fmt = mem.read_c_string(ptr_arg(0)?)?;
            let out = format(mem, &fmt, &args[1..])?;
            mem.write_stdout(&out);
            out.len() as i64
        }
        "puts" => {
            let mut s = mem.read_c_string(ptr_arg(0)?)?;
            s.push(b'\n');
            mem.write_stdout(&s);
            s.len() as i64
        }
        "putchar" => {
            let c = args
                .first()
                .and_then(RtValue::as_i64)
                .ok_or_else(|| ErrorKind::BadArgument("@putchar: argument is not an int".into()))?;
            mem.write_stdout(&[c as u8]);
            i64::from(c as u8)
        }
        _ => return Err(ErrorKind::UnknownExternal(name.to_string())),
    };
    match ret {
        None => Ok(None),
        Some(t) if t.is_int() && !t.is_vector() => {
            Ok(Some(RtValue::from_bits(t.elem(), written as u64)))
        }
        Some(t) => Err(malformed(format!("@{name} declared to return {t}"))),
    }
}

/// One conversion specification.
#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    /// Bits of the integer argument the length modifier names (`hh` 8 … `l` 64).
    int_bits: u32,
}

/// The arguments of a `printf` call, taken in order.
struct Args<'a> {
    args: &'a [RtValue],
    next: usize,
}

impl Args<'_> {
    fn take(&mut self, conv: char) -> Result<&RtValue, ErrorKind> {
        let a = self
            .args
            .get(self.next)
            .ok_or_else(|| ErrorKind::BadArgument(format!("printf: no argument for %{conv}")))?;
        self.next += 1;
        Ok(a)
    }

    fn int(&mut self, conv: char) -> Result<u64, ErrorKind> {
        let a = self.take(conv)?;
        a.as_u64()
            .ok_or_else(|| ErrorKind::BadArgument(format!("printf: %{conv} given {}", a.ty())))
    }

    fn float(&mut self, conv: char) -> Result<f64, ErrorKind> {
        let a = self.take(conv)?;
        a.as_f64()
            .ok_or_else(|| ErrorKind::BadArgument(format!("printf: %{conv} given {}", a.ty())))
    }
}

/// Formats `fmt` with `args` as C's `printf` does.
fn format(mem: &Memory, fmt: &[u8], args: &[RtValue]) -> Result<Vec<u8>, ErrorKind> {
    let mut out = Vec::new();
    let mut args = Args { args, next: 0 };
    let mut i = 0;
    let bad = |why: &str| ErrorKind::BadArgument(format!("printf: {why}"));
    while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        let mut spec = Spec {
            int_bits: 32,
            ..Spec::default()
        };
        while let Some(&f) = fmt.get(i) {
            match f {
                b'-' => spec.left = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alt = true,
                b'0' => spec.zero = true,
                _ => break,
            }
            i += 1;
        }
        if fmt.get(i) == Some(&b'*') {
            i += 1;
            let w = args.int('*')? as i32;
            spec.left |= w < 0;
            spec.width = w.unsigned_abs() as usize;
        } else {
            while let Some(d) = fmt.get(i).filter(|d| d.is_ascii_digit()) {
                spec.width = spec.width * 10 + usize::from(d - b'0');
                i += 1;
            }
        }
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            if fmt.get(i) == Some(&b'*') {
                i += 1;
                let p = args.int('*')? as i32;
                spec.precision = usize::try_from(p).ok();
            } else {
                let mut p = 0;
                while let Some(d) = fmt.get(i).filter(|d| d.is_ascii_digit()) {
                    p = p * 10 + usize::from(d - b'0');
                    i += 1;
                }
                spec.precision = Some(p);
            }
        }
        loop {
            match fmt.get(i) {
                Some(b'h') if spec.int_bits == 16 => spec.int_bits = 8,
                Some(b'h') => spec.int_bits = 16,
                Some(b'l' | b'j' | b'z' | b't' | b'q') => spec.int_bits = 64,
                Some(b'L') => {}
                _ => break,
            }
            i += 1;
        }
        let conv = *fmt
            .get(i)
            .ok_or_else(|| bad("format ends inside a conversion"))? as char;
        i += 1;
        let field = match conv {
            '%' => b"%".to_vec(),
            'd' | 'i' => {
                let v = args.int(conv)?;
                let v = sign_extend(v, spec.int_bits);
                let digits = with_precision(v.unsigned_abs().to_string(), spec.precision);
                return_numeric(&spec, sign(v < 0, &spec), &digits, true)
            }
            'u' | 'o' | 'x' | 'X' => {
                let v = args.int(conv)? & mask(spec.int_bits);
                let digits = match conv {
                    'u' => v.to_string(),
                    'o' => format!("{v:o}"),
                    'x' => format!("{v:x}"),
                    _ => format!("{v:X}"),
                };
                let mut digits = with_precision(digits, spec.precision);
                let mut prefix = "";
                if spec.alt && conv == 'o' && !digits.starts_with('0') {
                    digits.insert(0, '0');
                } else if spec.alt && v != 0 && conv == 'x' {
                    prefix = "0x";
                } else if spec.alt && v != 0 && conv == 'X' {
                    prefix = "0X";
                }
                return_numeric(&spec, prefix, &digits, true)
            }
            'c' => pad(&spec, vec![args.int(conv)? as u8]),
            's' => {
                let p = args.int(conv)?;
                let mut s = mem.read_c_string(p)?;
                if let Some(n) = spec.precision {
                    s.truncate(n);
                }
                pad(&spec, s)
            }
            'p' => {
                let v = args.int(conv)?;
                let s = if v == 0 {
                    "(nil)".to_string()
                } else {
                    format!("0x{v:x}")
                };
                pad(&spec, s.into_bytes())
            }
            'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'a' | 'A' => {
                let v = args.float(conv)?;
                let (negative, body) = float_body(v, conv, &spec);
                return_numeric(&spec, sign(negative, &spec), &body, v.is_finite())
            }
            'n' => return Err(bad("%n is not supported")),
            other => return Err(bad(&format!("unknown conversion %{other}"))),
        };
        out.extend_from_slice(&field);
    }
    Ok(out)
}

/// The sign a signed conversion prints: `-`, or `+`/` ` as the flags ask, or nothing.
fn sign(negative: bool, spec: &Spec) -> &'static str {
    if negative {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    }
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

fn sign_extend(v: u64, bits: u32) -> i64 {
    let shift = 64 - bits.min(64);
    ((v << shift) as i64) >> shift
}

/// Integer digits padded with zeros to the precision; precision 0 prints 0 as nothing.
fn with_precision(digits: String, precision: Option<usize>) -> String {
    match precision {
        Some(0) if digits == "0" => String::new(),
        Some(p) if digits.len() < p => format!("{}{digits}", "0".repeat(p - digits.len())),
        _ => digits,
    }
}

/// Sign or prefix, zero padding (flag `0`, unless `-` or, for integers, a precision), the
/// digits, then space padding to the width.
fn return_numeric(spec: &Spec, prefix: &str, digits: &str, zero_ok: bool) -> Vec<u8> {
    let len = prefix.len() + digits.len();
    let zero_pad = spec.zero && !spec.left && zero_ok && spec.width > len;
    if zero_pad {
        let mut s = prefix.to_string();
        s.push_str(&"0".repeat(spec.width - len));
        s.push_str(digits);
        return s.into_bytes();
    }
    pad(spec, format!("{prefix}{digits}").into_bytes())
}

fn pad(spec: &Spec, body: Vec<u8>) -> Vec<u8> {
    if body.len() >= spec.width {
        return body;
    }
    let fill = vec![b' '; spec.width - body.len()];
    if spec.left {
        [body, fill].concat()
    } else {
        [fill, body].concat()
    }
}

/// The sign and the unsigned text of a floating-point conversion.
fn float_body(v: f64, conv: char, spec: &Spec) -> (bool, String) {
    let upper = conv.is_ascii_uppercase();
    let neg = v.is_sign_negative();
    let a = v.abs();
    let text = if a.is_nan() {
        "nan".to_string()
    } else if a.is_infinite() {
        "inf".to_string()
    } else {
        let p = spec.precision.unwrap_or(6);
        match conv.to_ascii_lowercase() {
            'f' => fixed(a, p, spec.alt),
            'e' => exponent(a, p, spec.alt),
            'g' => general(a, p, spec.alt),
            _ => hex_float(a, spec.precision),
        }
    };
    (neg, if upper { text.to_uppercase() } else { text })
}

fn fixed(a: f64, p: usize, alt: bool) -> String {
    let mut s = format!("{a:.p$}");
    if alt && p == 0 {
        s.push('.');
    }
    s
}

/// `d.ddde±XX`, with at least two exponent digits.
fn exponent(a: f64, p: usize, alt: bool) -> String {
    let s = format!("{a:.p$e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let dot = if alt && p == 0 { "." } else { "" };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}{dot}e{sign}{:02}", exp.unsigned_abs())
}

/// `%g`: `%e` or `%f` by the exponent, trailing zeros removed unless `#`.
fn general(a: f64, p: usize, alt: bool) -> String {
    let p = p.max(1);
    let e_form = format!("{a:.*e}", p - 1);
    let x: i32 = e_form
        .split_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    let mut s = if (p as i32) > x && x >= -4 {
        fixed(a, (p as i32 - 1 - x) as usize, alt)
    } else {
        exponent(a, p - 1, alt)
    };
    if !alt {
        let (num, exp) = match s.find('e') {
            Some(k) => (s[..k].to_string(), s[k..].to_string()),
            None => (s.clone(), String::new()),
        };
        if num.contains('.') {
            let num = num.trim_end_matches('0').trim_end_matches('.');
            s = format!("{num}{exp}");
        }
    }
    s
}

/// `%a`: `0x1.hhhp±d` (normal numbers; subnormals as `0x0.hhh`).
fn hex_float(a: f64, precision: Option<usize>) -> String {
    if a == 0.0 {
        let frac = precision
            .filter(|&p| p > 0)
            .map(|p| format!(".{}", "0".repeat(p)));
        return format!("0x0{}p+0", frac.unwrap_or_default());
    }
    let bits = a.to_bits();
    let exp_bits = ((bits >> 52) & 0x7ff) as i32;
    let mut mant = bits & ((1 << 52) - 1);
    let (lead, exp) = if exp_bits == 0 {
        (0, -1022)
    } else {
        (1, exp_bits - 1023)
    };
    let mut digits = format!("{mant:013x}");
    match precision {
        Some(p) if p < 13 => {
            // Round to nearest, ties to even, on the dropped hex digits.
            let drop = 4 * (13 - p) as u32;
            let half = 1u64 << (drop - 1);
            let rest = mant & ((1 << drop) - 1);
            mant >>= drop;
            if rest > half || (rest == half && mant & 1 == 1) {
                mant += 1;
            }
            let lead = lead + (mant >> (4 * p)) as u32;
            mant &= (1u64 << (4 * p)).wrapping_sub(1);
            let frac = if p == 0 {
                String::new()
            } else {
                format!(".{mant:0p$x}")
            };
            let sign = if exp < 0 { '-' } else { '+' };
            return format!("0x{lead}{frac}p{sign}{}", exp.unsigned_abs());
        }
        Some(p) => digits.push_str(&"0".repeat(p - 13)),
        None => {
            let t = digits.trim_end_matches('0').len();
            digits.truncate(t);
        }
    }
    let frac = if digits.is_empty() {
        String::new()
    } else {
        format!(".{digits}")
    };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("0x{lead}{frac}p{sign}{}", exp.unsigned_abs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanes_ir::{AddrSpace, ScalarType};

    fn run(fmt: &str, args: &[RtValue]) -> String {
        let mem = Memory::new();
        String::from_utf8(format(&mem, fmt.as_bytes(), args).unwrap()).unwrap()
    }

    /// Expected strings are what glibc's printf prints for the same call.
    #[test]
    fn formats_as_glibc_does() {
        let i = RtValue::i32;
        let l = |x: i64| RtValue::from_bits(ScalarType::I64, x as u64);
        let d = |x: f64| RtValue::from_bits(ScalarType::F64, x.to_bits());
        assert_eq!(
            run("checksum = %X\n", &[i(-559038737)]),
            "checksum = DEADBEEF\n"
        );
        assert_eq!(
            run(
                "%d|%5d|%-5d|%05d|%+d|% d",
                &[i(-42), i(42), i(42), i(-42), i(7), i(7)]
            ),
            "-42|   42|42   |-0042|+7| 7"
        );
        assert_eq!(
            run("%ld %lu %lx", &[l(-1), l(-1), l(255)]),
            "-1 18446744073709551615 ff"
        );
        assert_eq!(
            run(
                "%hhd %hu %#x %#o %.3d %.0d|",
                &[i(300), i(-1), i(255), i(8), i(5), i(0)]
            ),
            "44 65535 0xff 010 005 |"
        );
        assert_eq!(
            run(
                "%f %.2f %e %.0e %E",
                &[d(1.5), d(-2.345), d(12345.678), d(0.5), d(1e-300)]
            ),
            "1.500000 -2.35 1.234568e+04 5e-01 1.000000E-300"
        );
        assert_eq!(
            run(
                "%g %g %g %g %#g %G",
                &[
                    d(100000.0),
                    d(1e6),
                    d(0.0001),
                    d(1.5e-5),
                    d(1.0),
                    d(f64::INFINITY)
                ]
            ),
            "100000 1e+06 0.0001 1.5e-05 1.00000 INF"
        );
        assert_eq!(
            run("%a %.1a %A %a", &[d(1.0), d(1.75), d(-0.5), d(0.0)]),
            "0x1p+0 0x1.cp+0 -0X1P-1 0x0p+0"
        );
        assert_eq!(
            run(
                "%*d|%-*d|%.*f|%%|%c",
                &[i(4), i(1), i(3), i(2), i(1), d(2.25), i(65)]
            ),
            "   1|2  |2.2|%|A"
        );
        assert_eq!(run("%f %5.1f", &[d(f64::NAN), d(-0.0)]), "nan  -0.0");
    }

    #[test]
    fn strings_and_outputs_go_through_memory() {
        let mut mem = Memory::new();
        let s = mem
            .alloc_init(b"hi %s!\0", 1, AddrSpace::PRIVATE, false)
            .unwrap();
        let w = mem
            .alloc_init(b"you\0", 1, AddrSpace::PRIVATE, false)
            .unwrap();
        let p = |x: u64| RtValue::from_bits(ScalarType::Ptr(AddrSpace::PRIVATE), x);
        let n = call_stdio(&mut mem, "printf", &[p(s), p(w)], Some(Type::I32)).unwrap();
        assert_eq!(n, Some(RtValue::i32(7)));
        call_stdio(&mut mem, "puts", &[p(w)], Some(Type::I32)).unwrap();
        call_stdio(&mut mem, "putchar", &[RtValue::i32(10)], Some(Type::I32)).unwrap();
        assert_eq!(mem.take_stdout(), b"hi you!you\n\n");
        let err = format(&mem, b"%d %d", &[RtValue::i32(1)]).unwrap_err();
        assert!(err.to_string().contains("no argument for %d"), "{err}");
        let unterminated = mem
            .alloc_init(b"abc", 1, AddrSpace::PRIVATE, false)
            .unwrap();
        assert!(mem.read_c_string(unterminated).is_err());
    }
}
