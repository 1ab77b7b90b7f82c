#!/usr/bin/env python3
"""Does every builtin that clang declares resolve to a definition of builtins.cl, and does
lanes import the result?

Lists the overloads opencl-c.h declares (from clang's JSON AST dump), writes one wrapper
per overload that calls it (arguments and result through __global pointers, so that no
vector crosses a non-inlined call), compiles the wrappers the way the runtime compiles a
kernel (clang's lazily declared builtins), links builtins.bc, runs the runtime's pipeline
and reports every call left to an undefined function other than the work-item functions
and libm, then imports the module with `lanes import`.

Usage: coverage.py CL1.2|CL2.0 [path/to/lanes]   (needs clang-19, llvm-link-19, opt-19)
"""
import json, os, re, shutil, subprocess, sys, tempfile

std = sys.argv[1] if len(sys.argv) > 1 else "CL1.2"
here = os.path.dirname(os.path.abspath(__file__))
lanes = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "../../../../../target/release/lanes")
header = "/usr/lib/llvm-19/lib/clang/19/include/opencl-c.h"
flags = ["-x", "cl", f"-cl-std={std}", "-Xclang", "-finclude-default-header", "-Xclang",
         "-ffake-address-space-map", "-O2", "-fno-vectorize", "-fno-slp-vectorize", "-emit-llvm"]
# Families outside the OpenCL C 1.2 library (images, 2.0 atomics, collectives, vendor
# extensions, device enqueue) and what lanes lowers itself.
skip = ("read_image", "write_image", "get_image", "intel_", "amd_", "arm_", "sub_group",
        "work_group_", "atomic_init", "atomic_load", "atomic_store", "atomic_exchange",
        "atomic_compare", "atomic_fetch", "atomic_flag", "atomic_work_item", "enqueue",
        "ndrange", "get_default_queue", "retain_event", "release_event", "create_user_event",
        "set_user_event", "is_valid_", "capture_event", "get_kernel", "dot_4x8", "dot_acc",
        "bitfield_", "bit_reverse", "get_sub_group", "get_max_sub", "get_num_sub",
        "get_enqueued", "clock_read", "get_fence", "to_global", "to_local", "to_private")
lanes_own = {"get_global_id", "get_local_id", "get_group_id", "get_global_size",
             "get_local_size", "get_num_groups", "get_global_offset", "get_work_dim",
             "barrier", "work_group_barrier", "printf"}
libm = {"erf", "erfc", "lgamma", "tgamma", "atan2"}

tmp = tempfile.mkdtemp()
def run(*cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout

ast = json.loads(run("clang-19", "-x", "cl", f"-cl-std={std}", "-Xclang", "-ffake-address-space-map",
                     "-cl-no-stdinc", "-include", header, "-fsyntax-only", "-Xclang", "-ast-dump=json",
                     "/dev/null"))
lines = ["#pragma OPENCL EXTENSION cl_khr_fp64 : enable", '#pragma clang diagnostic ignored "-Wpsabi"']
n = 0
for d in ast.get("inner", []):
    if d.get("kind") != "FunctionDecl" or "mangledName" not in d:
        continue
    name, ty = d["name"], d["type"]["qualType"]
    if name in lanes_own or name.startswith(skip) or re.search(r"half\d*\s*\(", ty):
        continue
    if "half" in ty and not re.match(r"v(load|store)a?_half", name):
        continue  # half arithmetic: lanes has no 16-bit float
    ret, params = ty.split(" (", 1)
    params = params[:-1]
    ps = [] if params.strip() in ("", "void") else [p.strip() for p in params.split(",")]
    decl, args = [], []
    for k, p in enumerate(ps):
        p = re.sub(r"^__private ", "", re.sub(r"\*__private$", "*", p))
        if "*" in p or p in ("event_t", "size_t", "cl_mem_fence_flags"):
            decl.append(f"{p} a{k}"); args.append(f"a{k}")
        else:
            decl.append(f"__global {p} *a{k}"); args.append(f"*a{k}")
    call = f"{name}({', '.join(args)})"
    if ret != "void":
        decl.append(f"__global {ret} *r"); call = f"*r = {call}"
    lines.append(f"void __w{n}({', '.join(decl) or 'void'}) {{ {call}; }}")
    n += 1
src = os.path.join(tmp, "wrappers.cl")
open(src, "w").write("\n".join(lines) + "\n")
run("clang-19", *flags, "-c", os.path.join(here, "../builtins.cl"), "-o", f"{tmp}/builtins.bc")
run("clang-19", *flags, "-c", src, "-o", f"{tmp}/wrappers.bc")
run("llvm-link-19", f"{tmp}/wrappers.bc", f"{tmp}/builtins.bc", "-o", f"{tmp}/linked.bc")
pub = ",".join(f"__w{k}" for k in range(n))
run("opt-19", "-scalarize-load-store",
    "-passes=internalize,always-inline,globaldce,function(scalarizer,"
    "instcombine<no-verify-fixpoint>,simplifycfg,sroa,early-cse),globaldce",
    f"-internalize-public-api-list={pub}", f"{tmp}/linked.bc", "-S", "-o", f"{tmp}/linked.ll")
left = set()
for line in open(f"{tmp}/linked.ll"):
    m = re.match(r"declare .*@([\w.]+)\(", line)
    if m and not m.group(1).startswith("llvm."):
        f = m.group(1)
        mm = re.match(r"_Z(\d+)(\w+)", f)
        base = mm.group(2)[:int(mm.group(1))] if mm else f
        if base not in lanes_own and base not in libm and base[:-1] not in libm:
            left.add(f)
print(f"{std}: {n} overloads called; undefined callees left: {sorted(left) or 'none'}")
out = subprocess.run([lanes, "import", f"{tmp}/linked.ll", "-o", f"{tmp}/linked.lir"],
                     capture_output=True, text=True)
print("lanes import:", "ok" if out.returncode == 0 else out.stderr.strip())
shutil.rmtree(tmp)
sys.exit(1 if left or out.returncode else 0)
