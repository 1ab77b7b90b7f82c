//! The machine a benchmark ran on, printed with its results: figures are only comparable
//! within one run on one machine.

/// `CPU model, N hardware threads, OS` (as `lanes bench wfv` prints it).
pub fn machine() -> String {
    lanes_llvm::target::host_machine()
}

/// The host's widest x86 vector ISA and its lanes of 32 bits, as the benchmarks' `-march=native`
/// builds use it.
#[allow(dead_code)] // not every benchmark prints it
pub fn vector_isa() -> &'static str {
    let cpu = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    if cpu.contains("avx512f") {
        "AVX-512, 16 lanes"
    } else if cpu.contains("avx2") {
        "AVX2, 8 lanes"
    } else {
        "SSE, 4 lanes"
    }
}
