//! Branch alignment for CPUs with the JCC erratum (`lanes_llvm::branch_alignment`): with
//! it, no jump of the emitted code crosses or ends on a 32-byte boundary; without it,
//! the same code is laid out unpadded. `LANES_ALIGN_BRANCHES` decides either way, so the
//! test holds on every x86 machine.

use std::path::Path;
use std::process::Command;

use crate::common::{run, s, scratch_dir};

/// `(offset, length)` of every jump in `llvm-objdump-19 -d` output of one object.
fn jumps(disassembly: &str) -> Vec<(u64, u64)> {
    disassembly
        .lines()
        .filter_map(|line| {
            // `  1c: 0f 85 e6 ff ff ff            jne     0x8 <f+0x8>`
            let (offset, rest) = line.trim_start().split_once(':')?;
            let offset = u64::from_str_radix(offset, 16).ok()?;
            let mut bytes = 0;
            let mut words = rest.split_whitespace().peekable();
            while words
                .peek()
                .is_some_and(|w| w.len() == 2 && w.chars().all(|c| c.is_ascii_hexdigit()))
            {
                words.next();
                bytes += 1;
            }
            let mnemonic = words.next()?;
            mnemonic.starts_with('j').then_some((offset, bytes))
        })
        .collect()
}

/// Jumps that cross a 32-byte boundary or end on one (sections start 32-byte aligned or
/// better, so object offsets keep the property).
fn misplaced(jumps: &[(u64, u64)]) -> usize {
    jumps
        .iter()
        .filter(|&&(at, len)| at / 32 != (at + len - 1) / 32 || (at + len) % 32 == 0)
        .count()
}

fn vectorized_object(align: &str, out: &Path) -> String {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/wfv/rpn_eval.c");
    run(Command::new(env!("CARGO_BIN_EXE_lanes"))
        .env("LANES_ALIGN_BRANCHES", align)
        .args(["vectorize", s(&src), "--function", "wfv_kernel"])
        .args(["--width", "8", "-O2", "-march=cascadelake", "-o", s(out)]));
    let dis = run(Command::new("llvm-objdump-19").args(["-d", s(out)]));
    String::from_utf8_lossy(&dis.stdout).into_owned()
}

#[test]
fn aligned_code_has_no_jump_across_or_at_a_32_byte_boundary() {
    let d = scratch_dir("branch-alignment");
    let aligned = vectorized_object("1", &d.join("aligned.o"));
    let plain = vectorized_object("0", &d.join("plain.o"));
    let (a, p) = (jumps(&aligned), jumps(&plain));
    assert!(a.len() > 10, "a branchy kernel: {} jumps", a.len());
    assert_eq!(a.len(), p.len(), "the same code, laid out differently");
    assert_eq!(misplaced(&a), 0, "{aligned}");
    assert!(
        misplaced(&p) > 0,
        "without padding some jump sits on a boundary (else the test shows nothing)"
    );
}
