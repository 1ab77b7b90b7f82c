//! Compiles `cpp/tti_cost.cpp`, the shim through which lanes asks LLVM's target cost
//! model (TargetTransformInfo, a C++-only API) for the cost of code, against the same
//! LLVM 19 that llvm-sys links (`LLVM_SYS_191_PREFIX`, else `llvm-config-19` on the path).

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=cpp/tti_cost.cpp");
    println!("cargo:rerun-if-env-changed=LLVM_SYS_191_PREFIX");
    let prefix = std::env::var_os("LLVM_SYS_191_PREFIX").map(PathBuf::from);
    let llvm_config = match &prefix {
        Some(p) => p.join("bin/llvm-config"),
        None => PathBuf::from("llvm-config-19"),
    };
    let cxxflags = match Command::new(&llvm_config).arg("--cxxflags").output() {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).into_owned(),
        _ => panic!(
            "cannot run {} --cxxflags: install LLVM 19 (Debian: apt-get install llvm-19-dev \
             clang-19, or run scripts/setup)",
            llvm_config.display()
        ),
    };
    let mut build = cc::Build::new();
    build.cpp(true).file("cpp/tti_cost.cpp").warnings(false);
    // LLVM's own clang++ where the package put it: the C++ library it was built against.
    if let Some(clang) = prefix.map(|p| p.join("bin/clang++")).filter(|c| c.exists()) {
        build.compiler(clang);
    }
    for flag in cxxflags.split_whitespace() {
        build.flag(flag);
    }
    build.compile("lanes_tti_cost");
}
