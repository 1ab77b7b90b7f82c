#!/usr/bin/env python3
"""Side-by-side compile time of several builds of `lanes` on one generated function.

Compares `lanes vectorize` of the 10,000-statement function of `vectorize_scaling.rs`
(the same generator, rewritten here) across lanes binaries built from different commits,
in one run with the builds interleaved, so that a shared, noisy machine affects them alike.
For builds that have `-ftime-report` it also records the time of lanes' own passes (the
two vector variants, lanes-wfv). Output `.lir` isolates the front end and lanes; `.o` adds
LLVM's code generator, whose time on the huge linearized block dominates and varies.

    bench/compare_lanes_builds.py NAME=PATH [NAME=PATH ...] [--statements N] [--runs R] [--out F]

Prints each run and the medians, and writes F (bench/results/compare_lanes_builds.json).
"""
import json, os, platform, re, statistics, subprocess, sys, tempfile, time


def source(n):
    s = "void big(long i, int *a, float *b, const int *c, int u) {\n  int x = a[i]; float y = b[i];\n"
    for k in range(n):
        m = k % 4
        if m == 0:
            s += "  if (x > %d) x = (x * %d + u) ^ (x >> 3); else y = y * 0.5f + %d;\n" % (k % 97, k % 7 + 1, k % 13)
        elif m == 1:
            s += "  x ^= (x >> %d) + %d;\n" % (k % 5 + 1, k)
        elif m == 2:
            s += "  y = y > %d.0f ? y - 1.0f : y + (float)x;\n" % (k % 11)
        else:
            s += "  if (c[%d] > %d) { x += %d; }\n" % (k, k % 50, k % 3)
    return s + "  a[i] = x; b[i] = y;\n}\n"


def main():
    args = sys.argv[1:]
    opt = lambda name, default: int(args[args.index(name) + 1]) if name in args else default
    n, runs = opt("--statements", 10000), opt("--runs", 5)
    builds = dict(a.split("=", 1) for a in args if "=" in a and not a.startswith("--"))
    if not builds:
        sys.exit(__doc__)
    work = tempfile.mkdtemp(prefix="lanes-builds-")
    src = os.path.join(work, "big.c")
    open(src, "w").write(source(n))
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"machine: {cpu}, {os.cpu_count()} cores, {platform.platform()}; {n} statements, {runs} runs")
    res = {"machine": cpu, "statements": n, "runs": runs, "results": {}}
    for out, reps in [("out.lir", runs), ("out.o", max(1, runs // 2 + 1))]:
        for _ in range(reps):
            for name, exe in builds.items():
                help_text = subprocess.run([exe, "vectorize", "--help"], capture_output=True, text=True).stdout
                cmd = [exe, "vectorize", src, "--function", "big", "--shapes", "c,u,u,u,u", "-O2",
                       "-o", os.path.join(work, out)]
                timed = "--time-report" in help_text
                if timed:
                    cmd.append("-ftime-report")
                start = time.time()
                p = subprocess.run(cmd, capture_output=True, text=True)
                wall = time.time() - start
                if p.returncode != 0:
                    sys.exit(f"{name}: {p.stderr}")
                passes = None
                if timed:
                    passes = round(sum(float(m) for m in re.findall(r"([\d.]+)\s+[\d.]+%\s+vectorize:", p.stderr)), 3)
                r = res["results"].setdefault(out, {}).setdefault(name, {"wall": [], "lanes_passes": []})
                r["wall"].append(round(wall, 3))
                if passes is not None:
                    r["lanes_passes"].append(round(passes, 3))
                print(f"{out:8} {name:20} wall {wall:7.2f} s  lanes passes {passes}", flush=True)
    for out, by_build in res["results"].items():
        for name, r in by_build.items():
            r["wall_median"] = statistics.median(r["wall"])
            if r["lanes_passes"]:
                r["lanes_passes_median"] = statistics.median(r["lanes_passes"])
            print(f"median {out:8} {name:20} wall {r['wall_median']:7.2f} s  lanes passes {r.get('lanes_passes_median')}")
    default = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "compare_lanes_builds.json")
    path = args[args.index("--out") + 1] if "--out" in args else default
    json.dump(res, open(path, "w"), indent=1)
    print("wrote", path)


if __name__ == "__main__":
    main()
