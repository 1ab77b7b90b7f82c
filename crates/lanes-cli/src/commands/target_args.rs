//! The target options of `lanes compile` and `lanes vectorize`, as clang takes them.
//!
//! `--target`, `--target-cpu` (what `-march=`/`-mcpu=` become), `--target-features`, and
//! clang's own `-m<feature>` / `-mno-<feature>` / `-mprefer-vector-width=` (handed to clang
//! as they are) make one [`TargetRequest`]; lanes-llvm resolves it to the `Target` that
//! decides the width, the vector-function-ABI names and the code generator.

use clap::Args;

use lanes_llvm::target::TargetRequest;

/// Target options shared by `compile` and `vectorize`.
#[derive(Args, Debug, Clone, Default)]
pub struct TargetArgs {
    /// Target triple (default: the host)
    #[arg(long, overrides_with = "target")]
    pub target: Option<String>,
    /// Target CPU (`native` for the host; -march= and -mcpu= set it; the last one given
    /// wins, as with clang)
    #[arg(long, overrides_with = "target_cpu")]
    pub target_cpu: Option<String>,
    /// Target features (`+avx2,-avx512f`)
    #[arg(long, overrides_with = "target_features")]
    pub target_features: Option<String>,
}

/// Prefixes of clang's `-m<name>` flags that name x86 ISA features.
const FEATURE_FLAGS: [&str; 14] = [
    "sse",
    "avx",
    "fma",
    "f16c",
    "bmi",
    "popcnt",
    "lzcnt",
    "aes",
    "pclmul",
    "movbe",
    "gfni",
    "vaes",
    "vpclmulqdq",
    "amx",
];

impl TargetArgs {
    /// The request these options and clang's arguments `clang_extra` make; `default_cpu`
    /// applies when no CPU is named.
    pub fn request(&self, clang_extra: &[String], default_cpu: Option<&str>) -> TargetRequest {
        let mut features: Vec<String> = self
            .target_features
            .iter()
            .flat_map(|f| f.split(','))
            .filter(|f| !f.is_empty())
            .map(String::from)
            .collect();
        let mut prefer = None;
        for a in clang_extra {
            if let Some(bits) = a.strip_prefix("-mprefer-vector-width=") {
                prefer = bits.parse().ok();
                continue;
            }
            let Some(name) = a.strip_prefix("-m").filter(|n| !n.contains('=')) else {
                continue;
            };
            let (on, name) = match name.strip_prefix("no-") {
                Some(n) => (false, n),
                None => (true, name),
            };
            if FEATURE_FLAGS.iter().any(|p| name.starts_with(p)) {
                features.push(format!("{}{name}", if on { '+' } else { '-' }));
            }
        }
        TargetRequest {
            triple: self.target.clone(),
            cpu: self
                .target_cpu
                .clone()
                .or_else(|| default_cpu.map(String::from)),
            features,
            prefer_vector_width: prefer,
        }
    }
}
