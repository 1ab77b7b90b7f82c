//! Golden filetests of SuperVectorization (`filetests/*.lir`): each file holds lanes IR
//! and directives
//!
//! ```text
//! ; pssa: @f                  the function in Predicated SSA (conversion, §3.1)
//! ; unroll: @f factor=N       …after unrolling its counted loops by N (§4.1)
//! ; slp: @f [bits=B]          …after unrolling and packing for B-bit registers (§3.2–3.4)
//! ; slp: @f cpu=C             …priced by LLVM's cost model of x86-64 CPU C (§4.3)
//! ; merge: @f                 …after fusing or co-iterating its top-level loops (§3.3)
//! ```
//!
//! and, after `; expect:`, the Predicated SSA each produces (verified), so that a change in
//! what a transform makes is a reviewed diff: `LANES_BLESS=1 cargo test -p lanes-slp
//! --test it filetests` rewrites the expected sections. Whether the result computes what
//! the input does is the differential tests' job.

use std::path::Path;

use lanes_ir::filetest::{run_golden, FileTest};
use lanes_slp::cost::{CostModel, RegisterCost};
use lanes_slp::target_cost::TargetCost;
use lanes_slp::{pssa_to_string, supervectorize_pssa, to_pssa, unroll, verify_pssa};

fn produce(test: &FileTest) -> Result<String, String> {
    let module = lanes_ir::parse_module(&test.source).map_err(|e| e.to_string())?;
    let mut out = String::new();
    let mut any = false;
    for kind in ["pssa", "unroll", "slp", "merge"] {
        for (line, text) in test.directives(kind) {
            any = true;
            let at = |m: String| format!("line {line}: {m}");
            let mut words = text.split_whitespace();
            let name = words
                .next()
                .and_then(|w| w.strip_prefix('@'))
                .ok_or_else(|| at("the directive starts with the function, `@name`".into()))?;
            let id = module
                .func_by_name(name)
                .ok_or_else(|| at(format!("no function @{name}")))?;
            let func = module
                .function(id)
                .ok_or_else(|| at(format!("@{name} has no body")))?;
            let mut factor = 4u32;
            let mut bits = 256u32;
            let mut cpu = None;
            for w in words {
                match w.split_once('=') {
                    Some(("factor", f)) => {
                        factor = f.parse().map_err(|_| at(format!("bad factor `{f}`")))?
                    }
                    Some(("bits", b)) => {
                        bits = b.parse().map_err(|_| at(format!("bad bits `{b}`")))?
                    }
                    Some(("cpu", c)) => cpu = Some(c.to_string()),
                    _ => return Err(at(format!("unknown option `{w}`"))),
                }
            }
            let pssa = match kind {
                "pssa" => to_pssa(func).map_err(|e| at(e.to_string()))?,
                "merge" => {
                    let mut p = to_pssa(func).map_err(|e| at(e.to_string()))?;
                    let loops = crate::coiterate::top_loops(&p);
                    let (_, how) = lanes_slp::coiterate::merge_loops(&mut p, &loops)
                        .ok_or_else(|| at("the loops cannot be merged".into()))?;
                    out.push_str(&format!("; {how:?}\n"));
                    p
                }
                "unroll" => {
                    let mut p = to_pssa(func).map_err(|e| at(e.to_string()))?;
                    let loops: Vec<_> = p.loops.keys().collect();
                    for l in loops {
                        unroll::unroll(&mut p, l, factor);
                    }
                    p
                }
                _ => {
                    let registers = RegisterCost {
                        register_bits: bits,
                    };
                    let model = cpu.map(|c| crate::target_cost::x86(&c));
                    let prices = model.as_ref().map(|(m, bits)| TargetCost::new(m, *bits));
                    let cost: &dyn CostModel = match &prices {
                        Some(p) => p,
                        None => &registers,
                    };
                    supervectorize_pssa(func, cost)
                        .map_err(|e| at(e.to_string()))?
                        .0
                }
            };
            verify_pssa(&pssa).map_err(|e| at(e.to_string()))?;
            out.push_str(&format!("; {kind}: {text}\n"));
            out.push_str(&pssa_to_string(&module, &pssa));
        }
    }
    if !any {
        return Err("no `; pssa:`, `; unroll:`, `; slp:` or `; merge:` directive".into());
    }
    Ok(out)
}

#[test]
fn filetests() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("filetests");
    let report = run_golden(&dir, produce);
    assert!(report.files >= 6, "{} files", report.files);
    assert!(
        report.failures.is_empty(),
        "{}",
        report.failures.join("\n\n")
    );
}
