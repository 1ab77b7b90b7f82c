//! `lanes cl run`: compile an OpenCL C kernel with lanes-cl and run it on all cores,
//! printing a checksum of every buffer and the kernel's time.

use std::path::PathBuf;

use anyhow::{bail, Context as _, Result};
use clap::{Args, Subcommand};
use lanes_cl::arg_spec::{check_against, checksum, ArgSpec, HostArg};
use lanes_cl::{BuildOptions, Context, NdRange};

#[derive(Args, Debug)]
pub struct ClArgs {
    #[command(subcommand)]
    pub command: ClCommand,
}

#[derive(Subcommand, Debug)]
pub enum ClCommand {
    /// Compile an OpenCL C file and run one kernel over an NDRange
    Run(RunArgs),
    /// Compile an OpenCL C file; list its kernels (arguments, barriers, `__local` bytes)
    /// and optionally write the compiled lanes IR
    Build(BuildArgs),
}

/// How the kernel source is compiled (as clang takes it).
#[derive(Args, Debug)]
pub struct SourceArgs {
    /// OpenCL C version
    #[arg(long = "cl-std", default_value = "CL1.2")]
    pub cl_std: String,
    /// Preprocessor definitions for the kernel source
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub defines: Vec<String>,
    /// Include directories for the kernel source
    #[arg(short = 'I', value_name = "DIR")]
    pub includes: Vec<PathBuf>,
}

impl SourceArgs {
    /// Build options for `width` work-items per vector.
    fn options(&self, width: Option<u16>) -> BuildOptions {
        let mut clang_args: Vec<String> = self.defines.iter().map(|d| format!("-D{d}")).collect();
        clang_args.extend(self.includes.iter().map(|i| format!("-I{}", i.display())));
        BuildOptions {
            cl_std: self.cl_std.clone(),
            clang_args,
            width,
            ..BuildOptions::default()
        }
    }
}

#[derive(Args, Debug)]
pub struct BuildArgs {
    /// The OpenCL C source file
    pub file: PathBuf,
    /// Write the compiled program (work-item loops, continuations, vector code) as .lir
    #[arg(short = 'o', value_name = "OUT.lir")]
    pub output: Option<PathBuf>,
    /// Work-items per vector (1: scalar; default: the CPU's natural width)
    #[arg(long)]
    pub width: Option<u16>,
    // The doc comment is clap's help text, shown verbatim: keep its brackets unescaped.
    #[allow(rustdoc::broken_intra_doc_links)]
    /// With --kernel: write that kernel compiled for this local work size (X[,Y[,Z]]), as
    /// `lanes cl run` compiles it for a launch, instead of the generic program
    #[arg(long, value_delimiter = ',', requires = "kernel")]
    pub local: Vec<u64>,
    /// The kernel --local specializes
    #[arg(long, short = 'k', requires = "local")]
    pub kernel: Option<String>,
    #[command(flatten)]
    pub source: SourceArgs,
}

#[derive(Args, Debug)]
#[command(after_help = "Arguments (--arg, once per kernel parameter, in order):
  float[1024]            a buffer of 1024 zero floats (any OpenCL scalar or vector type)
  float[1024]=2.5        every element 2.5
  float[1024]=rand[:S]   seeded pseudo-random elements (floats in [0,1), integers in [0,1000))
  float[1024]=@in.bin    the raw little-endian bytes of a file (float[]=@in.bin: its size)
  int:100                a value
  local:4096             a __local buffer of 4096 bytes (or local:float[1024])

Example:
  lanes cl run examples/opencl/saxpy.cl --kernel saxpy --global 1048576 \\
      --arg 'float[1048576]=rand' --arg 'float[1048576]=rand:2' --arg float:2.0")]
pub struct RunArgs {
    /// The OpenCL C source file
    pub file: PathBuf,
    /// The kernel to run
    #[arg(long, short = 'k')]
    pub kernel: String,
    // The doc comment is clap's help text, shown verbatim: keep its brackets unescaped.
    #[allow(rustdoc::broken_intra_doc_links)]
    /// Global work size, 1 to 3 dimensions (X[,Y[,Z]])
    #[arg(long, value_delimiter = ',', required = true)]
    pub global: Vec<u64>,
    /// Local work size (must divide the global size); lanes picks one if absent
    #[arg(long, value_delimiter = ',')]
    pub local: Vec<u64>,
    /// Global work offset
    #[arg(long, value_delimiter = ',')]
    pub offset: Vec<u64>,
    /// One kernel argument (see below); repeat in parameter order
    #[arg(long = "arg", short = 'a', value_name = "SPEC")]
    pub args: Vec<String>,
    /// Threads (default: one per core, each bound to its own CPU; LANES_CL_AFFINITY=0 leaves them unbound, =1 binds any number)
    #[arg(long)]
    pub threads: Option<usize>,
    /// Work-items per vector (1: scalar; default: the CPU's natural width)
    #[arg(long)]
    pub width: Option<u16>,
    /// Timed launches; the median is printed (buffers are reset before each)
    #[arg(long, default_value = "1", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub runs: u32,
    /// Run on lanes' reference interpreter instead, with every memory access checked
    /// (an access outside the buffers is an error naming the source line)
    #[arg(long)]
    pub check: bool,
    /// Write each buffer's final contents to DIR/argN.bin
    #[arg(long, value_name = "DIR")]
    pub dump: Option<PathBuf>,
    #[command(flatten)]
    pub source: SourceArgs,
}

pub fn run(args: &ClArgs) -> Result<()> {
    match &args.command {
        ClCommand::Run(run) => run_kernel(run),
        ClCommand::Build(build) => build_program(build),
    }
}

fn build_program(a: &BuildArgs) -> Result<()> {
    if !a.file.exists() {
        bail!("{}: no such file", a.file.display());
    }
    let opts = a.source.options(a.width);
    let compiled = lanes_cl::compile_program(&a.file, &opts)?;
    for w in compiled.kernels.iter().flat_map(|k| &k.warnings) {
        eprintln!("lanes: warning: {w}");
    }
    for k in &compiled.kernels {
        let args: Vec<String> = k
            .signature
            .args
            .iter()
            .map(|d| format!("{:?} {} {}", d.space, d.type_name, d.name).to_lowercase())
            .collect();
        println!(
            "kernel {}({}): {} barrier{}, {} bytes of __local variables, {} live bytes per work-item, {} work-items per vector",
            k.signature.name,
            args.join(", "),
            k.barrier_lines.len(),
            if k.barrier_lines.len() == 1 { "" } else { "s" },
            k.local.size,
            k.bytes_per_item,
            compiled.width
        );
    }
    let specialized = match &a.kernel {
        Some(name) => {
            let Some(info) = compiled.kernels.iter().find(|k| &k.signature.name == name) else {
                let names: Vec<&str> = compiled
                    .kernels
                    .iter()
                    .map(|k| k.signature.name.as_str())
                    .collect();
                bail!(
                    "{}: no kernel `{name}` (kernels: {})",
                    a.file.display(),
                    names.join(", ")
                );
            };
            if a.local.is_empty() || a.local.len() > 3 || a.local.contains(&0) {
                bail!("--local takes 1 to 3 sizes above 0 (X[,Y[,Z]])");
            }
            let mut local = [1u64; 3];
            local[..a.local.len()].copy_from_slice(&a.local);
            Some(compiled.specialize(info, local)?.0)
        }
        None => None,
    };
    if let Some(out) = &a.output {
        let module = specialized.as_ref().unwrap_or(&compiled.module);
        std::fs::write(out, lanes_ir::write::module_to_string(module))
            .with_context(|| format!("writing {}", out.display()))?;
    }
    Ok(())
}

fn run_kernel(a: &RunArgs) -> Result<()> {
    if !a.file.exists() {
        bail!("{}: no such file", a.file.display());
    }
    let specs = a
        .args
        .iter()
        .map(|s| ArgSpec::parse(s))
        .collect::<Result<Vec<_>, _>>()?;
    let opts = a.source.options(a.width);
    let ctx = a.threads.map_or_else(Context::new, Context::with_threads)?;
    let program = ctx
        .build_file(&a.file, &opts)
        .with_context(|| format!("building {}", a.file.display()))?;
    let kernel = program.kernel(&a.kernel)?;
    let decls = &kernel.info().signature.args;
    if specs.len() != decls.len() {
        bail!(
            "kernel `{}` takes {} arguments ({}), {} --arg given",
            a.kernel,
            decls.len(),
            decls
                .iter()
                .map(|d| format!("{} {}", d.type_name, d.name))
                .collect::<Vec<_>>()
                .join(", "),
            specs.len()
        );
    }
    for (i, (spec, decl)) in specs.iter().zip(decls).enumerate() {
        check_against(spec, decl, i, &a.kernel)?;
    }
    for w in &kernel.info().warnings {
        eprintln!("lanes: warning: {w}");
    }
    // A buffer with fewer elements than work-items is fine for some kernels (one result
    // per group) and a bug in others; only a checked run can tell.
    let items: u64 = a.global.iter().product();
    for (i, (spec, decl)) in specs.iter().zip(decls).enumerate() {
        if let ArgSpec::Buffer {
            count: Some(count), ..
        } = spec
        {
            if (*count as u64) < items && !a.check {
                eprintln!(
                    "lanes: warning: argument {i} (`{}`) holds {count} elements for {items} work-items; if the kernel indexes it by the global id it goes past its end (run with --check to find out)",
                    decl.name
                );
            }
        }
    }
    let range = NdRange {
        global: a.global.clone(),
        local: (!a.local.is_empty()).then(|| a.local.clone()),
        offset: (!a.offset.is_empty()).then(|| a.offset.clone()),
    };
    let mut times = Vec::new();
    let mut host: Vec<HostArg> = Vec::new();
    for _ in 0..a.runs {
        host = specs.iter().map(HostArg::new).collect::<Result<_, _>>()?;
        let args: Vec<_> = host.iter().map(HostArg::arg).collect();
        if a.check {
            let start = std::time::Instant::now();
            kernel.enqueue_checked(&args, &range)?;
            times.push(start.elapsed());
        } else {
            times.push(kernel.enqueue(&args, &range)?);
        }
    }
    times.sort();
    let median = times[times.len() / 2];
    let threads = if a.check {
        "the checking interpreter".to_string()
    } else {
        format!(
            "{} thread{}",
            ctx.threads,
            if ctx.threads == 1 { "" } else { "s" }
        )
    };
    println!(
        "kernel {} on {threads}, {} work-items per vector: {:.3} ms{}",
        a.kernel,
        program.width(),
        median.as_secs_f64() * 1e3,
        if a.runs > 1 {
            format!(" (median of {})", a.runs)
        } else {
            String::new()
        }
    );
    if let Some(dir) = &a.dump {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    for (i, (h, decl)) in host.iter().zip(decls).enumerate() {
        let HostArg::Buffer { buffer, .. } = h else {
            continue;
        };
        let bytes = buffer.bytes();
        println!(
            "arg {i} ({} {}): {} bytes, checksum {:016x}",
            decl.type_name,
            decl.name,
            bytes.len(),
            checksum(&bytes)
        );
        if let Some(dir) = &a.dump {
            let path = dir.join(format!("arg{i}.bin"));
            std::fs::write(&path, &bytes).with_context(|| format!("writing {}", path.display()))?;
        }
    }
    Ok(())
}
