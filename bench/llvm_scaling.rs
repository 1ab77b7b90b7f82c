//! Benchmark: lanes' own import and export time against LLVM's O3 time
//! on the same modules, for modules from about 1k to over 100k lanes instructions.
//!
//! Modules are C translation units of N generated functions (loops with data-dependent
//! branches, struct addressing, switches, math calls), compiled once by clang-19 -O2 to
//! bitcode outside the timed region. For each size the harness times, on the same
//! in-memory LLVM module:
//! - import: LLVM module → verified lanes IR (`lanes_llvm::import_module`);
//! - export: lanes IR → LLVM module (`lanes_llvm::export_module`);
//! - O3: `default<O3>` on the exported module (the new pass manager, host CPU);
//!
//! and reports medians of several runs, microseconds per lanes instruction, and each phase
//! relative to O3, with the machine and settings. Results also go to
//! `bench/results/llvm_scaling.json` and a log-log plot `bench/results/llvm_scaling.svg`.
//!
//! Run: `cargo bench -p lanes-llvm --bench llvm_scaling` (release build). Set
//! `LANES_BENCH_QUICK=1` for a fast smoke run with small sizes.

#[path = "common/machine.rs"]
mod machine;

use std::fmt::Write as _;
use std::process::Command;
use std::time::{Duration, Instant};

use lanes_llvm::clang::{parse_module, SourceKind};
use lanes_llvm::emit::{configure_module, target_machine, TargetOptions};
use lanes_llvm::pipeline::{optimize, PipelineOptions};
use lanes_llvm::{export_module, import_module, Context};
use machine::machine;

/// One generated C function, varied by `i`.
fn function(i: usize) -> String {
    let (k1, k2, k3) = (i % 13 + 1, i % 7 + 2, i % 5 + 3);
    match i % 4 {
        0 => format!(
            "int f{i}(int *a, float *b, int n) {{\n  unsigned s = {i}u;\n  for (int k = 0; k < n; k++) {{\n    if (a[k] > {k1}) s += (unsigned)a[k] * {k2}u; else s ^= (unsigned)a[k] >> (k & 7);\n    b[k] = b[k] * 0.5f + (float)(s & 1023u);\n  }}\n  switch (s & 3u) {{ case 0: return (int)s + {k3}; case 1: return (int)(s * {k2}u); default: return (int)s; }}\n}}\n"
        ),
        1 => format!(
            "double f{i}(const struct pt *p, int n) {{\n  double acc = {k1}.0;\n  for (int k = 0; k < n; k++) {{\n    double d = p[k].x * p[k].x + p[k].y * {k2}.0;\n    if (d > acc) acc = sqrt(d); else acc -= p[k].w;\n  }}\n  return acc;\n}}\n"
        ),
        2 => format!(
            "void f{i}(float *restrict o, const float *restrict x, int n, int m) {{\n  for (int r = 0; r < m; r++)\n    for (int k = 1; k + 1 < n; k++) {{\n      float v = 0.25f * x[r * n + k - 1] + 0.5f * x[r * n + k] + 0.25f * x[r * n + k + 1];\n      o[r * n + k] = v > {k1}.0f ? v - {k3}.0f : fmaxf(v, 0.0f);\n    }}\n}}\n"
        ),
        _ => format!(
            "long f{i}(const unsigned char *s, int n) {{\n  long h = {k1};\n  int i = 0;\n  while (i < n) {{\n    unsigned c = s[i];\n    if (c == 0) break;\n    if (c < {k2}0u) h = h * 31 + c; else if (c & 1) h ^= (long)c << (i & 15); else h -= {k3};\n    i++;\n  }}\n  return h;\n}}\n"
        ),
    }
}

fn source(n: usize) -> String {
    let mut s = String::from("#include <math.h>\nstruct pt { double x, y; float w; int tag; };\n");
    for i in 0..n {
        s.push_str(&function(i));
    }
    s
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

struct Row {
    funcs: usize,
    insts: usize,
    import: Duration,
    export: Duration,
    o3: Duration,
}

fn main() {
    let quick = std::env::var_os("LANES_BENCH_QUICK").is_some();
    let sizes: &[usize] = if quick {
        &[8, 32]
    } else {
        &[32, 128, 512, 2048, 4096]
    };
    let runs = if quick { 3 } else { 5 };
    let clang = lanes_llvm::clang::clang_program();
    let version = Command::new(&clang)
        .arg("--version")
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .unwrap_or("")
                .to_string()
        })
        .unwrap_or_default();
    println!("lanes LLVM bridge scaling benchmark");
    println!("machine:  {}", machine());
    println!("compiler: {version}; modules from clang-19 -O2 -fno-vectorize -fno-slp-vectorize");
    println!(
        "settings: median of {runs} runs; O3 = default<O3> with LLVM's vectorizers, host CPU; {} build",
        if cfg!(debug_assertions) { "debug" } else { "release" }
    );
    println!();
    println!(
        "{:>6} {:>9} | {:>10} {:>10} {:>10} | {:>8} {:>8} {:>8} | {:>8} {:>8}",
        "funcs",
        "lanes ins",
        "import ms",
        "export ms",
        "O3 ms",
        "imp us/i",
        "exp us/i",
        "O3 us/i",
        "imp/O3",
        "exp/O3"
    );
    let dir = std::env::temp_dir().join(format!("lanes-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let tm = target_machine(&TargetOptions {
        cpu: Some("native".into()),
        opt_level: 3,
        ..TargetOptions::default()
    })
    .expect("target machine");
    let o3 = PipelineOptions {
        opt_level: 3,
        ..PipelineOptions::default()
    };
    let mut rows = Vec::new();
    for &n in sizes {
        let c = dir.join(format!("m{n}.c"));
        std::fs::write(&c, source(n)).expect("write C");
        let bc = dir.join(format!("m{n}.bc"));
        let st = Command::new(&clang)
            .args([
                "-O2",
                "-fno-vectorize",
                "-fno-slp-vectorize",
                "-c",
                "-emit-llvm",
                "-o",
            ])
            .arg(&bc)
            .arg(&c)
            .status()
            .expect("clang-19 runs");
        assert!(st.success(), "clang failed on {}", c.display());
        let bytes = std::fs::read(&bc).expect("bitcode");
        let (mut ti, mut te, mut to) = (Vec::new(), Vec::new(), Vec::new());
        let mut insts = 0;
        for _ in 0..runs {
            let ctx = Context::create();
            let llm = parse_module(&ctx, &bytes, SourceKind::Bitcode, "bench").expect("parse");
            let t = Instant::now();
            let module = import_module(&llm).expect("import");
            ti.push(t.elapsed());
            insts = module.functions().map(|(_, f)| f.num_placed_insts()).sum();
            let ctx2 = Context::create();
            let t = Instant::now();
            let out = export_module(&ctx2, &module, "bench").expect("export");
            te.push(t.elapsed());
            configure_module(&out, &tm);
            let t = Instant::now();
            optimize(&out, &tm, &o3).expect("O3");
            to.push(t.elapsed());
        }
        let row = Row {
            funcs: n,
            insts,
            import: median(ti),
            export: median(te),
            o3: median(to),
        };
        let us = |d: Duration| d.as_secs_f64() * 1e6 / row.insts.max(1) as f64;
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "{:>6} {:>9} | {:>10.1} {:>10.1} {:>10.1} | {:>8.3} {:>8.3} {:>8.3} | {:>8.4} {:>8.4}",
            row.funcs,
            row.insts,
            ms(row.import),
            ms(row.export),
            ms(row.o3),
            us(row.import),
            us(row.export),
            us(row.o3),
            row.import.as_secs_f64() / row.o3.as_secs_f64(),
            row.export.as_secs_f64() / row.o3.as_secs_f64()
        );
        rows.push(row);
    }
    if let (Some(a), Some(b)) = (rows.first(), rows.last()) {
        let growth = |x: Duration, y: Duration| y.as_secs_f64() / x.as_secs_f64();
        let size = b.insts as f64 / a.insts.max(1) as f64;
        println!();
        println!(
            "growth from {} to {} instructions ({size:.0}x): import {:.0}x, export {:.0}x, O3 {:.0}x",
            a.insts,
            b.insts,
            growth(a.import, b.import),
            growth(a.export, b.export),
            growth(a.o3, b.o3)
        );
    }
    let mut json = String::from("{\n  \"machine\": ");
    let _ = write!(
        json,
        "{:?},\n  \"compiler\": {:?},\n  \"runs\": {runs},\n  \"rows\": [\n",
        machine(),
        version
    );
    for (i, r) in rows.iter().enumerate() {
        let _ = writeln!(
            json,
            "    {{\"functions\": {}, \"instructions\": {}, \"import_s\": {:.6}, \"export_s\": {:.6}, \"o3_s\": {:.6}}}{}",
            r.funcs,
            r.insts,
            r.import.as_secs_f64(),
            r.export.as_secs_f64(),
            r.o3.as_secs_f64(),
            if i + 1 < rows.len() { "," } else { "" }
        );
    }
    json.push_str("  ]\n}\n");
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/results");
    if !quick && std::fs::create_dir_all(&out).is_ok() {
        let _ = std::fs::write(out.join("llvm_scaling.json"), json);
    }
    if quick {
        // Exercise the plot in smoke runs without overwriting the results.
        assert!(plot(&rows).contains("polyline"));
    }
    if !quick {
        let _ = std::fs::write(out.join("llvm_scaling.svg"), plot(&rows));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A log-log SVG plot of the three phases' times against module size.
fn plot(rows: &[Row]) -> String {
    let (w, h, m) = (640.0, 420.0, 60.0);
    let xs: Vec<f64> = rows
        .iter()
        .map(|r| (r.insts.max(1) as f64).log10())
        .collect();
    let series: [(&str, &str, Vec<f64>); 3] = [
        (
            "import",
            "#1f77b4",
            rows.iter().map(|r| r.import.as_secs_f64()).collect(),
        ),
        (
            "export",
            "#2ca02c",
            rows.iter().map(|r| r.export.as_secs_f64()).collect(),
        ),
        (
            "LLVM O3",
            "#d62728",
            rows.iter().map(|r| r.o3.as_secs_f64()).collect(),
        ),
    ];
    let ys: Vec<f64> = series
        .iter()
        .flat_map(|s| s.2.iter().map(|t| (t * 1e3).max(1e-3).log10()))
        .collect();
    let (x0, x1) = (
        xs.iter().cloned().fold(f64::MAX, f64::min).floor(),
        xs.iter().cloned().fold(f64::MIN, f64::max).ceil(),
    );
    let (y0, y1) = (
        ys.iter().cloned().fold(f64::MAX, f64::min).floor(),
        ys.iter().cloned().fold(f64::MIN, f64::max).ceil(),
    );
    let px = |x: f64| m + (x - x0) / (x1 - x0).max(1e-9) * (w - 2.0 * m);
    let py = |y: f64| h - m - (y - y0) / (y1 - y0).max(1e-9) * (h - 2.0 * m);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"20\" text-anchor=\"middle\">lanes import/export vs LLVM O3 (median ms, log-log)</text>\n",
        w / 2.0
    );
    for d in (x0 as i32)..=(x1 as i32) {
        let x = px(f64::from(d));
        let _ = writeln!(svg, "<line x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\" stroke=\"#ddd\"/><text x=\"{x}\" y=\"{}\" text-anchor=\"middle\">1e{d}</text>", m, h - m, h - m + 16.0);
    }
    for d in (y0 as i32)..=(y1 as i32) {
        let y = py(f64::from(d));
        let _ = writeln!(svg, "<line x1=\"{m}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{}\" text-anchor=\"end\">1e{d} ms</text>", w - m, m - 6.0, y + 4.0);
    }
    let _ = writeln!(
        svg,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">lanes instructions in the module</text>",
        w / 2.0,
        h - 16.0
    );
    for (i, (name, color, ts)) in series.iter().enumerate() {
        let pts: Vec<String> = xs
            .iter()
            .zip(ts)
            .map(|(&x, &t)| format!("{:.1},{:.1}", px(x), py((t * 1e3).max(1e-3).log10())))
            .collect();
        let _ = writeln!(
            svg,
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" points=\"{}\"/>",
            pts.join(" ")
        );
        let _ = writeln!(
            svg,
            "<text x=\"{}\" y=\"{}\" fill=\"{color}\">{name}</text>",
            m + 10.0,
            m + 16.0 * (i as f64 + 1.0)
        );
    }
    svg.push_str("</svg>\n");
    svg
}
