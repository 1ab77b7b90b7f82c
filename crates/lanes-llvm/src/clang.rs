//! Running clang-19 and loading LLVM modules from files.
//!
//! `lanes import` and `lanes compile` accept C, C++ and OpenCL C sources, which clang-19
//! turns into LLVM bitcode, and `.ll`/`.bc` files, which LLVM parses directly. Defaults:
//! `-O2` with clang's own vectorizers and its partial and runtime unrolling off (lanes
//! wants scalar loops to vectorize itself, also those `#pragma omp simd` marks), line
//! tables for error messages, and for OpenCL `-x cl -cl-std=CL2.0 -Xclang
//! -finclude-default-header`. Full unrolling of constant-trip-count loops stays on: it
//! belongs to the first half of `default<O2>`, which no later pipeline makes up for, and
//! without it some programs run orders of magnitude slower than clang's own build (a
//! csmith program: 0.01 s against over 10 s). `-I`, `-D`, `-std`, `-O` and extra arguments
//! pass through.

use std::path::{Path, PathBuf};
use std::process::Command;

use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module as LlModule;

use crate::error::LlvmError;

/// The clang binary (override with `LANES_CLANG`).
pub fn clang_program() -> String {
    std::env::var("LANES_CLANG").unwrap_or_else(|_| "clang-19".to_string())
}

/// The language of an input file, from its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    C,
    Cpp,
    OpenCl,
    LlvmText,
    Bitcode,
}

impl SourceKind {
    pub fn of(path: &Path) -> Option<SourceKind> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "c" | "i" => SourceKind::C,
            "cpp" | "cc" | "cxx" | "c++" | "ii" => SourceKind::Cpp,
            "cl" => SourceKind::OpenCl,
            "ll" => SourceKind::LlvmText,
            "bc" => SourceKind::Bitcode,
            _ => return None,
        })
    }

    pub fn is_source(self) -> bool {
        matches!(self, SourceKind::C | SourceKind::Cpp | SourceKind::OpenCl)
    }
}

/// Options passed to clang.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClangOptions {
    /// `-I` directories.
    pub includes: Vec<PathBuf>,
    /// `-D` macros (`NAME` or `NAME=VALUE`).
    pub defines: Vec<String>,
    /// `-std=` value.
    pub std: Option<String>,
    /// Optimization level digit or letter (`0`..`3`, `s`, `z`); `2` if `None`.
    pub opt: Option<String>,
    /// Extra arguments, verbatim.
    pub extra: Vec<String>,
}

impl ClangOptions {
    /// The clang command line (without the program) compiling `src` of `kind` to bitcode
    /// on standard output.
    pub fn args(&self, src: &Path, kind: SourceKind) -> Vec<String> {
        let mut a: Vec<String> = Vec::new();
        match kind {
            SourceKind::OpenCl => a.extend(
                [
                    "-x",
                    "cl",
                    "-cl-std=CL2.0",
                    "-Xclang",
                    "-finclude-default-header",
                ]
                .map(String::from),
            ),
            SourceKind::Cpp => a.extend(["-x", "c++"].map(String::from)),
            _ => a.extend(["-x", "c"].map(String::from)),
        }
        a.push(format!("-O{}", self.opt.as_deref().unwrap_or("2")));
        a.extend(
            [
                "-fno-vectorize",
                "-fno-slp-vectorize",
                "-mllvm",
                "-unroll-allow-partial=false",
                "-mllvm",
                "-unroll-runtime=false",
                // Loops marked for vectorization (`omp simd`, `vectorize(enable)`) are
                // vectorized even with -fno-vectorize; width 1 keeps them scalar for lanes.
                "-mllvm",
                "-force-vector-width=1",
                "-mllvm",
                "-force-vector-interleave=1",
                "-Wno-pass-failed",
                "-gline-tables-only",
            ]
            .map(String::from),
        );
        if let Some(std) = &self.std {
            a.push(format!("-std={std}"));
        }
        for i in &self.includes {
            a.push(format!("-I{}", i.display()));
        }
        for d in &self.defines {
            a.push(format!("-D{d}"));
        }
        a.extend(self.extra.iter().cloned());
        a.extend(["-c", "-emit-llvm", "-o", "-"].map(String::from));
        a.push(src.display().to_string());
        a
    }
}

/// `include/lanes.h`, embedded so that an installed `lanes` needs no data files.
pub const LANES_H: &str = include_str!("../../../include/lanes.h");

/// A directory holding `lanes.h`: under the temp directory, named after the header's
/// content (two builds of one version with different headers, running at the same time,
/// must not read each other's), written once, atomically through a rename so that
/// concurrent runs and threads never see a partial file.
pub fn lanes_h_dir() -> Result<PathBuf, LlvmError> {
    // FNV-1a: a stable name for the content, not a security measure.
    let hash = LANES_H.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    let dir = std::env::temp_dir().join(format!(
        "lanes-include-{}-{hash:016x}",
        env!("CARGO_PKG_VERSION")
    ));
    let path = dir.join("lanes.h");
    if std::fs::read_to_string(&path).is_ok_and(|t| t == LANES_H) {
        return Ok(dir);
    }
    let io = |e: std::io::Error| LlvmError::Io {
        path: path.clone(),
        message: e.to_string(),
    };
    std::fs::create_dir_all(&dir).map_err(io)?;
    // Unique per writer: two threads of one process (the import and the C signature of
    // `lanes vectorize`) may both find the file missing or stale.
    static WRITERS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let writer = WRITERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!("lanes.h.{}.{writer}", std::process::id()));
    std::fs::write(&tmp, LANES_H).map_err(io)?;
    std::fs::rename(&tmp, &path).map_err(io)?;
    Ok(dir)
}

/// Runs clang on `src` (with `lanes.h` on the include path and `__LANES__` defined);
/// returns the bitcode.
pub fn compile_to_bitcode(
    src: &Path,
    kind: SourceKind,
    opts: &ClangOptions,
) -> Result<Vec<u8>, LlvmError> {
    let program = clang_program();
    let mut args = opts.args(src, kind);
    // `lanes.h` on the include path, `__LANES__` defined (before the source argument).
    let at = args.len().saturating_sub(1);
    args.insert(at, "-D__LANES__".to_string());
    args.insert(at, format!("-I{}", lanes_h_dir()?.display()));
    let out = Command::new(&program)
        .args(args)
        .output()
        .map_err(|e| LlvmError::Spawn {
            program: program.clone(),
            message: e.to_string(),
        })?;
    if !out.status.success() {
        return Err(LlvmError::Clang {
            path: src.to_path_buf(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    Ok(out.stdout)
}

/// Loads `path` as an LLVM module: through clang for sources, parsed for `.ll`/`.bc`.
pub fn load_module<'ctx>(
    ctx: &'ctx Context,
    path: &Path,
    opts: &ClangOptions,
) -> Result<LlModule<'ctx>, LlvmError> {
    let kind = SourceKind::of(path).ok_or_else(|| LlvmError::UnknownInput(path.to_path_buf()))?;
    let name = path.display().to_string();
    let bytes = if kind.is_source() {
        compile_to_bitcode(path, kind, opts)?
    } else {
        std::fs::read(path).map_err(|e| LlvmError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?
    };
    parse_module(ctx, &bytes, kind, &name)
}

/// Parses LLVM text (`kind == LlvmText`) or bitcode.
pub fn parse_module<'ctx>(
    ctx: &'ctx Context,
    bytes: &[u8],
    kind: SourceKind,
    name: &str,
) -> Result<LlModule<'ctx>, LlvmError> {
    let buf = MemoryBuffer::create_from_memory_range_copy(bytes, name);
    let parsed = if kind == SourceKind::LlvmText {
        ctx.create_module_from_ir(buf)
    } else {
        LlModule::parse_bitcode_from_buffer(&buf, ctx)
    };
    parsed.map_err(|e| LlvmError::Llvm(format!("{name}: {}", e.to_string_lossy())))
}
