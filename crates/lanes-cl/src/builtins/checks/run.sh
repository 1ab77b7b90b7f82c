#!/bin/sh
# Builds builtins.cl (OpenCL C 1.2), links the wrappers of checks.cl, runs the runtime's
# pipeline, imports the result with `lanes import`, compiles the same LLVM IR to native
# code and runs check.c against it. Usage: run.sh [path/to/lanes]
set -e
here=$(cd "$(dirname "$0")" && pwd)
lanes=${1:-$here/../../../../../target/release/lanes}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags="-x cl -cl-std=CL1.2 -Xclang -finclude-default-header -Xclang -ffake-address-space-map -O2 -fno-vectorize -fno-slp-vectorize -emit-llvm -Wno-psabi"
clang-19 $flags -c "$here/../builtins.cl" -o "$tmp/builtins.bc"
clang-19 $flags -c "$here/checks.cl" -o "$tmp/checks.bc"
pub=$(llvm-nm-19 --defined-only "$tmp/checks.bc" | awk '$2 == "T" { print $3 }' | paste -sd, -)
llvm-link-19 "$tmp/checks.bc" "$tmp/builtins.bc" -o "$tmp/linked.bc"
opt-19 -scalarize-load-store \
  -passes='internalize,always-inline,globaldce,function(scalarizer,instcombine<no-verify-fixpoint>,simplifycfg,sroa,early-cse),globaldce' \
  -internalize-public-api-list="$pub" "$tmp/linked.bc" -S -o "$tmp/checks.ll"
"$lanes" import "$tmp/checks.ll" -o "$tmp/checks.lir"
"$lanes" interp "$tmp/checks.lir" --function cv_char_sat_f 300.5   # 127
clang-19 -c -O0 "$tmp/checks.ll" -o "$tmp/checks.o"
clang-19 -O1 -frounding-math "$here/check.c" "$tmp/checks.o" -lm -o "$tmp/check"
"$tmp/check"
