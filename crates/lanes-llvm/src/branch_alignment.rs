//! Branches kept out of 32-byte boundaries on CPUs with Intel's JCC erratum.
//!
//! **Why.** On Skylake-derived cores (client Skylake to Comet Lake; Xeon Skylake-SP,
//! Cascade Lake and Cooper Lake) the microcode fix for the "Jump Conditional Code"
//! erratum keeps any jump that crosses or ends on a 32-byte boundary (a macro-fused
//! compare-and-branch counts as one) out of the decoded-uop cache. The loop is then
//! decoded again on every iteration (Intel, *Mitigations for Jump Conditional Code
//! Erratum*, 2019). Where a hot branch lands is an accident of layout: two builds with the
//! same inner-loop instructions can differ by several percent, and a loop full of
//! branches by more. lanes' uniform `switch` dispatch (the RPN interpreter of
//! `bench/wfv`, a jump table per operation) took 9–18% less time with its branches
//! aligned on a Cascade Lake Xeon (`lanes bench wfv --kernels rpn_eval,…`, two rounds
//! each way: the reconverged build at 8 lanes 23.8 ms against 29.1 ms); nbody and volume
//! did not change.
//!
//! **How.** LLVM's x86 assembler pads with prefixes and `nop`s so that no jump (`jcc`,
//! fused `cmp`/`test`+`jcc`, `jmp`) crosses or ends on a 32-byte boundary, under the
//! options `-x86-align-branch-boundary=32 -x86-align-branch=fused+jcc+jmp`. These are
//! what clang's `-mbranches-within-32B-boundaries` passes. They are process-wide, so
//! lanes sets them once, when it first initializes the native target, if the CPU it runs
//! on has the erratum. The code lanes emits usually runs where it was compiled (always for
//! the JIT), and the padding costs other CPUs only a little code size.
//! `LANES_ALIGN_BRANCHES=1` or `=0` decides instead.

/// Whether the CPU LLVM names `cpu` (its host CPU name) has the JCC erratum: the cores
/// of the Skylake microarchitecture and its refreshes (LLVM names the client ones, Kaby
/// Lake to Comet Lake included, `skylake`).
pub fn has_jcc_erratum(cpu: &str) -> bool {
    matches!(
        cpu,
        "skylake" | "skylake-avx512" | "cascadelake" | "cooperlake"
    )
}

/// Whether to align branches in this process: `LANES_ALIGN_BRANCHES` if it says `0` or
/// `1`, else whether the host CPU has the erratum.
fn wanted(host_cpu: &str) -> bool {
    match std::env::var("LANES_ALIGN_BRANCHES")
        .as_deref()
        .map(str::trim)
    {
        Ok("1") => true,
        Ok("0") => false,
        _ => has_jcc_erratum(host_cpu),
    }
}

/// Sets LLVM's branch-alignment options for the process if [`wanted`]; call once, after
/// the native target is initialized and before any code is emitted.
pub(crate) fn configure(host_cpu: &str) {
    if !wanted(host_cpu) {
        return;
    }
    let args = [
        c"lanes".as_ptr(),
        c"-x86-align-branch-boundary=32".as_ptr(),
        c"-x86-align-branch=fused+jcc+jmp".as_ptr(),
    ];
    // SAFETY: valid C strings; LLVM copies what it keeps. Called once per process, before
    // any code generation reads the options.
    unsafe {
        inkwell::llvm_sys::support::LLVMParseCommandLineOptions(
            args.len() as i32,
            args.as_ptr(),
            std::ptr::null(),
        )
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skylake_family_cores_have_the_erratum_and_later_ones_do_not() {
        for cpu in ["skylake", "skylake-avx512", "cascadelake", "cooperlake"] {
            assert!(has_jcc_erratum(cpu), "{cpu}");
        }
        for cpu in [
            "icelake-server",
            "sapphirerapids",
            "znver4",
            "haswell",
            "generic",
        ] {
            assert!(!has_jcc_erratum(cpu), "{cpu}");
        }
    }
}
