//! Building one kernel of `lanes bench wfv` into a timing program: every lanes build of
//! its SPMD function (through [`crate::vectorize`], as `lanes vectorize -O3 -march=CPU`
//! would; `native` unless the bench names another CPU), clang-19 -O3 -march=CPU's build
//! of the plain loop over the instances (the reference), the kernel's data functions and `driver.c`, linked with a
//! generated table of the builds.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use lanes_ir::BranchProfile;
use lanes_llvm::clang::{clang_program, ClangOptions};
use lanes_llvm::emit::EmitKind;
use lanes_llvm::target::{Target, TargetRequest};

use super::error::BenchError;
use super::kernels::{Config, Kernel};
use crate::{vectorize, Output, VectorizeRequest};

/// One lanes build: a configuration at a width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Build {
    pub config: Config,
    pub width: u16,
}

impl Build {
    /// The build's name in the driver's output: `partial/8`.
    pub fn label(&self) -> String {
        format!("{}/{}", self.config.name(), self.width)
    }

    /// The C name of the kernel in this build.
    fn symbol(&self, kernel: &Kernel) -> String {
        format!("{}_{}_w{}", kernel.name, self.config.ident(), self.width)
    }
}

/// The name the reference build's results carry.
pub const REFERENCE: &str = "clang";

/// The target of every lanes build: this machine (`-march=native`).
pub fn native_target() -> TargetRequest {
    cpu_target("native")
}

/// The target `-march=cpu` names (`native`: this machine).
pub fn cpu_target(cpu: &str) -> TargetRequest {
    TargetRequest {
        cpu: Some(cpu.into()),
        ..TargetRequest::default()
    }
}

/// What `lanes vectorize -O3 -march=CPU` is asked for `build` of `kernel`; `None` for a
/// build that is not lanes'.
pub fn vectorize_request(
    sources: &Path,
    kernel: &Kernel,
    build: Build,
    cpu: &str,
) -> Option<VectorizeRequest> {
    let symbol = build.symbol(kernel);
    let mode = build.config.mode()?;
    Some(VectorizeRequest {
        input: sources.join(format!("{}.c", kernel.name)),
        clang: ClangOptions {
            includes: vec![sources.to_path_buf()],
            defines: vec![format!("KERNEL={symbol}")],
            opt: Some("3".into()),
            ..ClangOptions::default()
        },
        target: cpu_target(cpu),
        function: Some(symbol.clone()),
        shapes: Some(kernel.shapes()),
        width: Some(build.width),
        mode,
        opt_level: 3,
        veclib: build.config.veclib().map(String::from),
        output: Output::Llvm(EmitKind::Object),
        branch_profile: None,
        training_run: None,
    })
}

/// Vectorizes `kernel` for `build` into an object file in `dir`, its empty-mask skips
/// decided by `branch_profile` if given.
pub fn vectorize_build(
    sources: &Path,
    dir: &Path,
    kernel: &Kernel,
    build: Build,
    cpu: &str,
    branch_profile: Option<BranchProfile>,
) -> Result<PathBuf, BenchError> {
    let symbol = build.symbol(kernel);
    let failed = |message: String| BenchError::Vectorize {
        kernel: kernel.name.to_string(),
        build: build.label(),
        message,
    };
    let Some(mut req) = vectorize_request(sources, kernel, build, cpu) else {
        return Err(failed("not a lanes configuration".into()));
    };
    req.branch_profile = branch_profile;
    let done = vectorize(&req).map_err(|e| failed(e.to_string()))?;
    if !done.exported.iter().any(|f| f == &format!("{symbol}_spmd")) {
        return Err(failed(format!(
            "no launcher {symbol}_spmd: {}",
            done.notes.join("; ")
        )));
    }
    let object = dir.join(format!("{symbol}.o"));
    write(&object, &done.bytes)?;
    Ok(object)
}

/// The ISPC twin of `kernel` in `sources`, if it has one.
pub fn ispc_source(sources: &Path, kernel: &Kernel) -> Option<PathBuf> {
    let path = sources.join(format!("{}.ispc", kernel.name));
    path.is_file().then_some(path)
}

/// ISPC's target for `width` lanes of 32 bits on `target`: its AVX-512 targets where the
/// target has AVX-512, else its AVX2 ones.
pub fn ispc_target(width: u16, target: &Target) -> Option<String> {
    let avx512 = target.has("avx512f");
    match (avx512, width) {
        (true, 4 | 8 | 16) => Some(format!("avx512skx-x{width}")),
        (false, 4 | 8 | 16) => Some(format!("avx2-i32x{width}")),
        _ => None,
    }
}

/// Compiles the ISPC twin of `kernel` with `ispc` for `build` (its width) into an object
/// in `dir` whose launcher has the lanes launcher's name and signature.
pub fn ispc_build(
    ispc: &Path,
    sources: &Path,
    dir: &Path,
    kernel: &Kernel,
    build: Build,
    target: &Target,
) -> Result<PathBuf, BenchError> {
    let failed = |message: String| BenchError::Ispc {
        kernel: kernel.name.to_string(),
        build: build.label(),
        message,
    };
    let src = ispc_source(sources, kernel)
        .ok_or_else(|| failed(format!("no {}.ispc in {}", kernel.name, sources.display())))?;
    let target = ispc_target(build.width, target)
        .ok_or_else(|| failed(format!("ISPC has no {}-lane target here", build.width)))?;
    let object = dir.join(format!("{}.o", build.symbol(kernel)));
    let out = Command::new(ispc)
        .args(["-O3", "--pic", "--woff", &format!("--target={target}")])
        .arg(format!("-DKERNEL_SPMD={}_spmd", build.symbol(kernel)))
        .arg(&src)
        .arg("-o")
        .arg(&object)
        .output()
        .map_err(|e| failed(format!("{}: {e}", ispc.display())))?;
    if !out.status.success() {
        return Err(failed(String::from_utf8_lossy(&out.stderr).into_owned()));
    }
    Ok(object)
}

/// Links the timing program of `kernel` from the lanes `builds` (objects in `dir`).
pub fn link_driver(
    sources: &Path,
    dir: &Path,
    kernel: &Kernel,
    builds: &[Build],
    cpu: &str,
) -> Result<PathBuf, BenchError> {
    let src = sources.join(format!("{}.c", kernel.name));
    let include = format!("-I{}", sources.display());
    let reference = dir.join(format!("{}_reference.o", kernel.name));
    clang(&[
        "-O3",
        &format!("-march={cpu}"),
        "-DWFV_REFERENCE",
        &format!("-DKERNEL={}_ref", kernel.name),
        &include,
        "-c",
        &path(&src),
        "-o",
        &path(&reference),
    ])?;
    let data = dir.join(format!("{}_data.o", kernel.name));
    clang(&[
        "-O2",
        "-DWFV_DRIVER",
        &format!("-DKERNEL={}_data", kernel.name),
        &include,
        "-c",
        &path(&src),
        "-o",
        &path(&data),
    ])?;
    let table = dir.join(format!("{}_builds.c", kernel.name));
    write(&table, builds_table(kernel, builds).as_bytes())?;
    let exe = dir.join(format!("{}_bench", kernel.name));
    let mut args: Vec<String> = vec![
        "-O2".into(),
        path(&sources.join("driver.c")),
        path(&table),
        path(&reference),
        path(&data),
    ];
    args.extend(
        builds
            .iter()
            .map(|b| path(&dir.join(format!("{}.o", b.symbol(kernel))))),
    );
    // libmvec for the builds with vector math (glibc's, next to libm).
    args.extend(["-lmvec".into(), "-lm".into(), "-o".into(), path(&exe)]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    clang(&args)?;
    Ok(exe)
}

/// The C table of builds `driver.c` runs: the reference first, then the lanes builds.
fn builds_table(kernel: &Kernel, builds: &[Build]) -> String {
    let mut c = String::from("/* Generated by lanes bench wfv. */\nvoid wfv_reference(void);\n");
    for b in builds {
        let _ = writeln!(c, "void {}_spmd(void);", b.symbol(kernel));
    }
    let _ = writeln!(c, "const int wfv_count = {};", builds.len() + 1);
    let _ = write!(c, "const char *const wfv_names[] = {{\"{REFERENCE}\"");
    for b in builds {
        let _ = write!(c, ", \"{}\"", b.label());
    }
    c.push_str("};\nvoid *const wfv_fns[] = {(void *)wfv_reference");
    for b in builds {
        let _ = write!(c, ", (void *){}_spmd", b.symbol(kernel));
    }
    c.push_str("};\n");
    c
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

fn write(p: &Path, bytes: &[u8]) -> Result<(), BenchError> {
    std::fs::write(p, bytes).map_err(|e| BenchError::Io(p.to_path_buf(), e))
}

/// Runs clang-19 with `args`; its error output on failure.
pub(crate) fn clang(args: &[&str]) -> Result<(), BenchError> {
    let program = clang_program();
    let out = Command::new(&program)
        .args(args)
        .output()
        .map_err(|e| BenchError::Tool(format!("{program}: {e} (install clang-19)")))?;
    if !out.status.success() {
        return Err(BenchError::Tool(format!(
            "{program} {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(())
}
