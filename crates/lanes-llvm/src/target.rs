//! The target: one answer, for every part of lanes, to "which machine is this code for?".
//!
//! A vectorizer's choices depend on the target as much as the code generator's do: the
//! natural number of lanes (PLDI'18 §6 widens to the SIMD width of the machine), the ISA
//! letter of a vector-function-ABI name (`_ZGV{b,c,d,e}…`, which must name the registers
//! the code really uses), and the vector math library's variants. They all come from one
//! [`Target`] made from the command line as clang takes it (`--target`, `-march=`/`-mcpu=`,
//! `-mavx2`, `-mno-avx512f`, `-mprefer-vector-width=`), so that a kernel built for
//! `-march=haswell` is named, sized and compiled for Haswell.
//!
//! The feature set of a named CPU is asked of clang-19 itself (its predefined macros,
//! `clang -march=CPU -E -dM`), which also validates the CPU name: an unknown CPU is an
//! error naming it and listing the valid ones, never an LLVM abort. `native` is the host,
//! as LLVM detects it.

use std::collections::BTreeSet;
use std::process::Command;

use inkwell::targets::TargetMachine;

use crate::clang::clang_program;
use crate::emit::TargetOptions;

/// A target the user named that lanes cannot use.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    #[error("unknown target CPU '{cpu}' (valid: {valid})")]
    UnknownCpu { cpu: String, valid: String },
    #[error("unknown target feature '{0}' (LLVM 19 does not know it for this target)")]
    UnknownFeature(String),
    #[error("clang-19 rejects the target options {args}: {message}")]
    Rejected { args: String, message: String },
    #[error("cannot run {program} to query the target: {message}")]
    Spawn { program: String, message: String },
}

/// What the command line says about the target.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TargetRequest {
    /// `--target=` triple; the host's if `None`.
    pub triple: Option<String>,
    /// `-march=`/`-mcpu=`/`--target-cpu` (`native`: the host); the triple's baseline if `None`.
    pub cpu: Option<String>,
    /// Explicit features, `+avx2` / `-avx512f` (from `-mavx2`, `-mno-avx512f` or
    /// `--target-features`).
    pub features: Vec<String>,
    /// `-mprefer-vector-width=` in bits.
    pub prefer_vector_width: Option<u32>,
}

/// A resolved target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The triple; `None` for the host's.
    pub triple: Option<String>,
    /// The CPU for the code generator (`native` resolved to the host CPU's name).
    pub cpu: Option<String>,
    /// The features handed to the code generator on top of the CPU's own.
    pub codegen_features: Option<String>,
    /// Every feature the target has (lanes' own decisions), without the `+`.
    pub features: BTreeSet<String>,
    /// The preferred vector width in bits, if the user limited it.
    pub prefer_vector_width: Option<u32>,
}

/// Predefined macros of clang and the LLVM feature each one announces.
const FEATURE_MACROS: [(&str, &str); 14] = [
    ("__SSE2__", "sse2"),
    ("__SSE3__", "sse3"),
    ("__SSSE3__", "ssse3"),
    ("__SSE4_1__", "sse4.1"),
    ("__SSE4_2__", "sse4.2"),
    ("__AVX__", "avx"),
    ("__AVX2__", "avx2"),
    ("__FMA__", "fma"),
    ("__F16C__", "f16c"),
    ("__AVX512F__", "avx512f"),
    ("__AVX512BW__", "avx512bw"),
    ("__AVX512DQ__", "avx512dq"),
    ("__AVX512VL__", "avx512vl"),
    ("__ARM_NEON", "neon"),
];

impl Target {
    /// The host, as `-march=native` means it.
    pub fn host() -> Target {
        let features = TargetMachine::get_host_cpu_features().to_string();
        Target {
            triple: None,
            cpu: Some(TargetMachine::get_host_cpu_name().to_string()),
            codegen_features: Some(features.clone()),
            features: features
                .split(',')
                .filter_map(|f| f.strip_prefix('+'))
                .map(String::from)
                .collect(),
            prefer_vector_width: None,
        }
    }

    /// Resolves `req`: the host for `native`, else what clang-19 predefines for it.
    pub fn resolve(req: &TargetRequest) -> Result<Target, TargetError> {
        let native = req.cpu.as_deref() == Some("native") && req.triple.is_none();
        let mut target = if native {
            Target::host()
        } else {
            Target {
                triple: req.triple.clone(),
                cpu: req.cpu.clone(),
                codegen_features: None,
                features: clang_features(req)?,
                prefer_vector_width: None,
            }
        };
        if !req.features.is_empty() {
            validate_features(req)?;
            for f in &req.features {
                if let Some(on) = f.strip_prefix('+') {
                    target.features.insert(on.to_string());
                } else if let Some(off) = f.strip_prefix('-') {
                    target.features.remove(off);
                }
            }
            let explicit = req.features.join(",");
            target.codegen_features = Some(match target.codegen_features.take() {
                Some(base) => format!("{base},{explicit}"),
                None => explicit,
            });
        }
        target.prefer_vector_width = req.prefer_vector_width;
        Ok(target)
    }

    pub fn has(&self, feature: &str) -> bool {
        self.features.contains(feature)
    }

    /// The features as LLVM writes them (`+sse2,+avx,…`).
    pub fn feature_string(&self) -> String {
        let all: Vec<String> = self.features.iter().map(|f| format!("+{f}")).collect();
        all.join(",")
    }

    fn is_x86(&self) -> bool {
        self.triple
            .as_deref()
            .map_or(cfg!(target_arch = "x86_64"), |t| {
                t.starts_with("x86_64") || t.starts_with("i686") || t.starts_with("i386")
            })
    }

    /// The widest vector register the code may use, in bits.
    pub fn vector_bits(&self) -> u32 {
        let isa = if !self.is_x86() {
            128
        } else if self.has("avx512f") {
            512
        } else if self.has("avx") {
            256
        } else {
            128
        };
        self.prefer_vector_width
            .map_or(isa, |p| isa.min(p.max(128)))
    }

    /// Does the target have mask registers (AVX-512's `k`), so that vector masks are best
    /// kept as `<W x i1>`? Without them (SSE, AVX, AVX2, NEON) a compare writes an
    /// all-ones/all-zeros lane-width vector, and lanes keeps masks in that form
    /// (`lanes_wfv::lane_masks`).
    pub fn has_mask_registers(&self) -> bool {
        self.is_x86() && self.has("avx512f")
    }

    /// The natural number of lanes for elements of `elem_bits` bits.
    pub fn natural_width(&self, elem_bits: u32) -> u16 {
        u16::try_from(self.vector_bits() / elem_bits.max(8)).unwrap_or(u16::MAX)
    }

    /// The default number of lanes of lanes' vector code (32-bit elements).
    pub fn default_width(&self) -> u16 {
        self.natural_width(32)
    }

    /// The x86 vector-function-ABI ISA letter for vectors of `bits` bits: `b` (SSE),
    /// `c` (AVX), `d` (AVX2), `e` (AVX-512). The letter promises the registers that carry
    /// the vectors, so it is the widest ISA the target has up to the one whose registers
    /// hold `bits` (a wider vector travels in several registers): 16 floats are `e` on an
    /// AVX-512 target but `d` on an AVX2 one, whose code passes them in two `ymm`.
    pub fn vfabi_isa(&self, bits: u32) -> char {
        let wide = |isa: char| match isa {
            'e' if self.has("avx512f") => Some('e'),
            'e' | 'd' if self.has("avx2") => Some('d'),
            'e' | 'd' | 'c' if self.has("avx") => Some('c'),
            _ => None,
        };
        let fits = match bits {
            0..=128 => 'b',
            129..=256 => 'd',
            _ => 'e',
        };
        if fits == 'b' {
            'b'
        } else {
            wide(fits).unwrap_or('b')
        }
    }

    /// Whether vector code for this target needs `+fast-gather` to get hardware gathers and
    /// scatters ([`with_hardware_gathers`]): x86 with AVX2 and without AVX-512.
    pub fn wants_fast_gather(&self) -> bool {
        self.is_x86() && self.has("avx2") && !self.has("avx512f")
    }

    /// The code generator's options for the vector code lanes made: [`Target::options`],
    /// with hardware gathers and scatters on AVX2 ([`with_hardware_gathers`]).
    pub fn vector_code_options(&self, opt_level: u8) -> TargetOptions {
        let mut options = self.options(opt_level);
        if self.wants_fast_gather() {
            options.features = Some(plus_fast_gather(options.features.as_deref().unwrap_or("")));
        }
        options
    }

    /// The code generator's options at optimization level `opt_level`.
    pub fn options(&self, opt_level: u8) -> TargetOptions {
        TargetOptions {
            triple: self.triple.clone(),
            cpu: self.cpu.clone(),
            features: self.codegen_features.clone(),
            opt_level,
        }
    }
}

/// LLVM target features `features` (`+avx2,…`) plus `fast-gather` where they have AVX2
/// but not AVX-512: LLVM's tuning for most AVX2 CPUs (Haswell, Zen 1–3) turns
/// `llvm.masked.gather`/`scatter` into a branch and a scalar load or store per lane, which
/// is what a vectorizer's gather exists to avoid; `vpgatherdd` and friends do it in one
/// instruction, and ISPC uses them on all its AVX2 targets. With AVX-512, LLVM already
/// emits them.
pub fn with_hardware_gathers(features: &str) -> String {
    let has = |f: &str| features.split(',').any(|x| x == f);
    if has("+avx2") && !has("+avx512f") {
        plus_fast_gather(features)
    } else {
        features.to_string()
    }
}

/// `features` with `+fast-gather` (once).
pub(crate) fn plus_fast_gather(features: &str) -> String {
    if features.is_empty() {
        "+fast-gather".into()
    } else if features.split(',').any(|x| x == "+fast-gather") {
        features.to_string()
    } else {
        format!("{features},+fast-gather")
    }
}

impl TargetRequest {
    /// The clang arguments that make its front end agree with this target.
    pub fn clang_args(&self) -> Vec<String> {
        let mut args = target_args(self);
        for f in &self.features {
            args.extend(["-Xclang", "-target-feature", "-Xclang"].map(String::from));
            args.push(f.clone());
        }
        args
    }
}

/// The triple/CPU arguments clang needs to describe `req`.
fn target_args(req: &TargetRequest) -> Vec<String> {
    let mut args = Vec::new();
    if let Some(t) = &req.triple {
        args.push(format!("--target={t}"));
    }
    if let Some(cpu) = &req.cpu {
        let is_arm = req
            .triple
            .as_deref()
            .is_some_and(|t| t.starts_with("aarch64") || t.starts_with("arm"));
        args.push(if is_arm {
            format!("-mcpu={cpu}")
        } else {
            format!("-march={cpu}")
        });
    }
    args
}

fn run_clang(args: &[String]) -> Result<std::process::Output, TargetError> {
    let program = clang_program();
    Command::new(&program)
        .args(args)
        .output()
        .map_err(|e| TargetError::Spawn {
            program,
            message: e.to_string(),
        })
}

/// The features clang-19 predefines for the triple and CPU of `req`.
fn clang_features(req: &TargetRequest) -> Result<BTreeSet<String>, TargetError> {
    let mut args = target_args(req);
    args.extend(["-E", "-dM", "-x", "c", "/dev/null"].map(String::from));
    let out = run_clang(&args)?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        if let Some(cpu) = req
            .cpu
            .as_ref()
            .filter(|_| stderr.contains("unknown target CPU"))
        {
            let valid = stderr
                .lines()
                .find_map(|l| l.split_once("valid target CPU values are: "))
                .map_or_else(String::new, |(_, v)| v.to_string());
            return Err(TargetError::UnknownCpu {
                cpu: cpu.clone(),
                valid,
            });
        }
        return Err(TargetError::Rejected {
            args: target_args(req).join(" "),
            message: stderr.trim().to_string(),
        });
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(FEATURE_MACROS
        .iter()
        .filter(|(m, _)| text.lines().any(|l| l.split(' ').nth(1) == Some(m)))
        .map(|(_, f)| f.to_string())
        .collect())
}

/// Checks that LLVM knows every feature of `req` (its code generator only warns, on
/// standard error, about a feature it does not know, and ignores it).
fn validate_features(req: &TargetRequest) -> Result<(), TargetError> {
    for f in &req.features {
        if f.len() < 2 || !(f.starts_with('+') || f.starts_with('-')) {
            return Err(TargetError::UnknownFeature(f.clone()));
        }
    }
    let mut args = req.clang_args();
    args.extend(["-S", "-x", "c", "-o", "/dev/null", "/dev/null"].map(String::from));
    let out = run_clang(&args)?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    for f in &req.features {
        if stderr.contains(&format!("'{f}' is not a recognized feature")) {
            return Err(TargetError::UnknownFeature(f.clone()));
        }
    }
    Ok(())
}

/// `CPU model, N hardware threads, OS`: the machine benchmark figures were measured on
/// (they compare only within one run on one machine).
pub fn host_machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{cpu}, {cores} hardware threads, {}", std::env::consts::OS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(cpu: &str, features: &[&str]) -> Result<Target, TargetError> {
        Target::resolve(&TargetRequest {
            triple: None,
            cpu: Some(cpu.to_string()),
            features: features.iter().map(|f| f.to_string()).collect(),
            prefer_vector_width: None,
        })
    }

    #[test]
    fn named_cpus_have_their_isa() {
        let haswell = resolve("haswell", &[]).expect("haswell");
        assert!(haswell.has("avx2") && haswell.has("fma") && !haswell.has("avx512f"));
        assert_eq!(haswell.default_width(), 8);
        assert_eq!(haswell.vfabi_isa(256), 'd');
        let skx = resolve("skylake-avx512", &[]).expect("skx");
        assert_eq!(skx.default_width(), 16);
        assert_eq!(skx.vfabi_isa(512), 'e');
        // Wider than the target's registers: its own ISA, not one it lacks.
        assert_eq!(haswell.vfabi_isa(512), 'd');
        assert_eq!(haswell.vfabi_isa(2048), 'd');
        assert_eq!(haswell.vfabi_isa(128), 'b');
        assert_eq!(skx.vfabi_isa(768), 'e');
        assert_eq!(skx.vfabi_isa(256), 'd');
        let narrowed = resolve("skylake-avx512", &["-avx512f"]).expect("narrowed");
        assert_eq!(narrowed.default_width(), 8);
        let generic = resolve("x86-64", &[]).expect("x86-64");
        assert_eq!(generic.default_width(), 4);
        assert_eq!(generic.vfabi_isa(256), 'b');
        let sandy = resolve("sandybridge", &[]).expect("sandybridge");
        assert_eq!((sandy.vfabi_isa(256), sandy.vfabi_isa(512)), ('c', 'c'));
    }

    #[test]
    fn unknown_cpus_and_features_are_errors_naming_them() {
        let e = resolve("nosuchcpu", &[]).expect_err("unknown cpu");
        assert!(e.to_string().contains("'nosuchcpu'"), "{e}");
        assert!(e.to_string().contains("haswell"), "{e}");
        let e = resolve("haswell", &["+nosuchfeature"]).expect_err("unknown feature");
        assert!(e.to_string().contains("'+nosuchfeature'"), "{e}");
    }

    #[test]
    fn preferred_width_limits_the_lanes() {
        let t = Target::resolve(&TargetRequest {
            triple: None,
            cpu: Some("skylake-avx512".into()),
            features: Vec::new(),
            prefer_vector_width: Some(256),
        })
        .expect("skx");
        assert_eq!(t.vector_bits(), 256);
        assert_eq!(t.default_width(), 8);
    }
}
