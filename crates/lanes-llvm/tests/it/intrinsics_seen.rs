//! Every LLVM intrinsic clang-19 emits for the C lanes is tested on — the C corpus
//! (`corpus/`), the benchmark kernels (`bench/wfv`), and csmith programs — at -O0 to -O3
//! (and with `-fopenmp-simd` where the source has `omp simd` loops) is one lanes imports:
//! onto a lanes operation, spelled out with lanes operations, or dropped as a marker
//! without semantics. The interpreter runs and the vectorizer widens every lanes
//! operation, so a function the importer keeps as LLVM IR because of an intrinsic is
//! exactly a gap; the test fails on any, naming the intrinsic, the file and the level, and
//! prints the intrinsics it saw. csmith programs are skipped, with a message, when csmith
//! is missing (Debian: `apt-get install csmith libcsmith-dev`).

#[path = "../../../../bench/csmith/harness.rs"]
#[allow(dead_code)] // the harness's runner is for lanes-cli
mod harness;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use lanes_llvm::clang::{load_module, ClangOptions};
use lanes_llvm::import::import_partial;
use lanes_llvm::Context;

/// csmith programs per run (each compiled at four levels).
const CSMITH_SEEDS: u64 = 8;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn c_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    files.sort();
    files
}

/// `bswap` of `llvm.bswap.i32`, `memcpy` of `llvm.memcpy.p0.p0.i64`, `sadd.with.overflow`
/// of `llvm.sadd.with.overflow.i32`: the name without its type suffixes.
fn family(name: &str) -> String {
    let is_type = |part: &str| {
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        ["i", "f", "p"]
            .iter()
            .any(|k| part.strip_prefix(k).is_some_and(digits))
            || part.starts_with('v') && part[1..].starts_with(|c: char| c.is_ascii_digit())
    };
    let name = name.strip_prefix("llvm.").unwrap_or(name);
    let parts: Vec<&str> = name.split('.').collect();
    let keep = parts.iter().rposition(|p| !is_type(p)).map_or(0, |k| k + 1);
    parts[..keep].join(".")
}

#[test]
fn family_strips_type_suffixes() {
    assert_eq!(family("llvm.bswap.i32"), "bswap");
    assert_eq!(family("llvm.memcpy.p0.p0.i64"), "memcpy");
    assert_eq!(family("llvm.sadd.with.overflow.i32"), "sadd.with.overflow");
    assert_eq!(family("llvm.vector.reduce.add.v4i32"), "vector.reduce.add");
    assert_eq!(family("llvm.fptosi.sat.i32.f32"), "fptosi.sat");
    assert_eq!(family("llvm.lifetime.start.p0"), "lifetime.start");
}

#[test]
fn every_intrinsic_clang_emits_for_the_corpus_and_csmith_is_imported() {
    let root = root();
    let corpus_c = root.join("corpus/c");
    let bench = root.join("bench/wfv");
    let mut sources: Vec<(PathBuf, Vec<String>, Vec<PathBuf>)> = Vec::new();
    for f in c_files(&corpus_c) {
        sources.push((f, vec![], vec![corpus_c.clone()]));
    }
    for dir in ["corpus/kernels", "corpus/omp_simd"] {
        for f in c_files(&root.join(dir)) {
            sources.push((f, vec!["-fopenmp-simd".into()], vec![]));
        }
    }
    for f in c_files(&bench)
        .into_iter()
        .filter(|f| !f.ends_with("driver.c"))
    {
        let defines = vec!["-DWFV_REFERENCE".into(), "-DWFV_DRIVER".into()];
        sources.push((f, defines, vec![bench.clone(), root.join("bench")]));
    }
    let scratch = lanes_test_support::scratch_dir("csmith-sources");
    let mut csmith = 0;
    if harness::csmith_available() {
        let inc = harness::csmith_include().expect("csmith_available checked it");
        for seed in 1..=CSMITH_SEEDS {
            if let Ok(src) = harness::generate(seed, &scratch) {
                sources.push((src, vec!["-w".into()], vec![inc.clone()]));
                csmith += 1;
            }
        }
    } else {
        eprintln!("csmith programs skipped: csmith is not installed (apt-get install csmith libcsmith-dev)");
    }
    // Intrinsic family → (declarations seen, example file and level).
    let mut seen: BTreeMap<String, (usize, String)> = BTreeMap::new();
    let mut gaps: Vec<String> = Vec::new();
    let mut modules = 0;
    for (src, extra, includes) in &sources {
        for opt in ["0", "1", "2", "3"] {
            let opts = ClangOptions {
                includes: includes.clone(),
                opt: Some(opt.into()),
                extra: extra.clone(),
                ..ClangOptions::default()
            };
            let at = format!("{} -O{opt}", src.display());
            let ctx = Context::create();
            let llm = load_module(&ctx, src, &opts).unwrap_or_else(|e| panic!("{at}: {e}"));
            modules += 1;
            for f in llm.get_functions() {
                let name = f.get_name().to_string_lossy().into_owned();
                if name.starts_with("llvm.") {
                    let e = seen.entry(family(&name)).or_insert((0, at.clone()));
                    e.0 += 1;
                }
            }
            let imported = import_partial(&llm).unwrap_or_else(|e| panic!("{at}: {e}"));
            for kept in &imported.kept {
                let reason = kept.reason.to_string();
                // What is wrong, after the location (`in function @f (file:line): …`).
                let what = reason.lines().next().unwrap_or("");
                let what = what.rsplit_once("): ").map_or(what, |(_, w)| w);
                if what.contains("llvm.") || what.contains("intrinsic") {
                    gaps.push(format!("{at}: @{}: {reason}", kept.name));
                }
            }
        }
    }
    let list: Vec<String> = seen
        .iter()
        .map(|(k, (n, _))| format!("{k} ({n})"))
        .collect();
    eprintln!(
        "intrinsics in {modules} modules ({} sources, {csmith} csmith programs): {}",
        sources.len(),
        list.join(", ")
    );
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(
        gaps.is_empty(),
        "functions kept as LLVM IR for an intrinsic:\n{}",
        gaps.join("\n")
    );
    // The corpus reaches the intrinsics lanes spells out, so the check is not vacuous.
    for k in [
        "bswap",
        "bitreverse",
        "sadd.with.overflow",
        "umul.with.overflow",
        "memcpy",
    ] {
        assert!(seen.contains_key(k), "{k} not seen: {list:?}");
    }
}
