//! Precision of the divergence analysis over the kernel corpus.
//!
//! Every kernel of `kernels/` (at least 20, the papers' examples among them) is analysed
//! with the argument shapes of its parameter attributes and run in the SIMT interpreter
//! (8 lanes, 32 work-groups, generated inputs), exactly as `lanes analyze --profile`
//! does. The test prints, per kernel and in total, how many executed branches the
//! analysis classifies divergent and how many of those actually diverged, and asserts the
//! total false-positive rate is at most PACT'11's 34% (§V), with zero false negatives.

use lanes_ir::filetest::collect_files;
use lanes_ir::verifier::verify_module;
use lanes_simt::precision::{analyze_and_profile, ProfileConfig};

#[test]
fn kernel_corpus_false_positive_rate() {
    let files = collect_files(&lanes_test_support::kernels_dir());
    let cfg = ProfileConfig {
        width: 8,
        groups: 32,
        seed: 7,
        fuel: 2_000_000,
    };
    let (mut kernels, mut executed, mut stat, mut dynamic, mut fp, mut faults) = (0, 0, 0, 0, 0, 0);
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable kernel");
        let module =
            lanes_ir::parse_module(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        verify_module(&module).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        for (id, func) in module.functions() {
            let shaped = func.params.iter().all(|p| p.attrs.shape.is_some());
            if !(func.attrs.kernel || shaped && !func.params.is_empty()) {
                continue;
            }
            let (_, report) = analyze_and_profile(&module, id, &[], None, &cfg)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(
                report.false_negatives(),
                0,
                "{} @{}: a branch diverged but is classified uniform",
                path.display(),
                func.name
            );
            eprintln!(
                "{:<40} @{:<14} {} executed branches, {} static divergent, {} diverged, \
                 {} false positives, {} unexecuted, utilization {:.0}%",
                path.file_name().unwrap().to_string_lossy(),
                func.name,
                report.branches.len(),
                report.static_divergent(),
                report.dynamic_divergent(),
                report.false_positives(),
                report.unexecuted.len(),
                100.0 * report.utilization
            );
            kernels += 1;
            executed += report.branches.len();
            stat += report.static_divergent();
            dynamic += report.dynamic_divergent();
            fp += report.false_positives();
            faults += report.faults.len();
        }
    }
    let rate = fp as f64 / stat.max(1) as f64;
    eprintln!(
        "corpus: {kernels} kernels, {executed} executed branches, {stat} static divergent, \
         {dynamic} dynamically divergent, {fp} false positives: false-positive rate {:.1}% \
         (PACT'11: 34%); {faults} lane faults",
        100.0 * rate
    );
    assert!(kernels >= 20, "the corpus has only {kernels} kernels");
    assert!(
        rate <= 0.34,
        "false-positive rate {:.1}% > 34%",
        100.0 * rate
    );
}
