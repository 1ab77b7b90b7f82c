//! Golden filetests of the vectorizer (`filetests/*.lir`): each file holds a scalar SPMD
//! function, one or more directives
//!
//! ```text
//! ; vectorize: @f width=4 [mode=partial|full|reconverge] [order=df|dfpd|bf|rpot]
//! ;            [skip=auto|all|off] [boscc=all|auto] [masked] [masks=lane-width]
//! ```
//!
//! or `; reconverge: @f [order=df|dfpd|bf|rpot]` (the reconverging CFG alone, steps 1–3 of
//! the reconverging-CFG paper: its figures as input and expected CFG), and, after
//! `; expect:`, the vector function the whole pipeline makes of it
//! ([`lanes_wfv::define_variant`]: normalization, the divergent loop transform,
//! partial or full linearization, widening; or the reconverging transform in `order`
//! (default dfpd) and its lowering to masks with empty-mask skips by `skip`; with
//! `masks=lane-width`, then masks as lane-width integers, [`lanes_wfv::lane_masks`], as
//! for targets without mask registers). The output is the lanes IR text of the
//! widened function, verified, so a change in what the vectorizer emits is a reviewed
//! diff: `LANES_BLESS=1 cargo test -p lanes-wfv --test it filetests` rewrites the
//! expected sections. These tests need neither clang nor LLVM; whether the vector code
//! computes what the scalar code does is the differential tests' job (`widen`,
//! `generated`, `native`).

use std::path::Path;

use cranelift_entity::EntityRef;
use lanes_ir::filetest::{run_golden, FileTest};
use lanes_ir::write::function_to_string;
use lanes_wfv::reconverge::{BlockOrder, SkipEmpty};
use lanes_wfv::{define_variant, BosccPolicy, Linearization, Mode};

/// One `; vectorize:` directive.
#[derive(Debug)]
struct Request {
    func: String,
    width: u16,
    mode: Mode,
    masked: bool,
    lane_width_masks: bool,
}

impl Request {
    fn parse(text: &str) -> Result<Request, String> {
        let mut words = text.split_whitespace();
        let func = words
            .next()
            .and_then(|w| w.strip_prefix('@'))
            .ok_or("the directive starts with the function, `@name`")?
            .to_string();
        let mut req = Request {
            func,
            width: 4,
            mode: Mode::PARTIAL,
            masked: false,
            lane_width_masks: false,
        };
        for word in words {
            match word.split_once('=') {
                Some(("width", w)) => {
                    req.width = w.parse().map_err(|_| format!("bad width `{w}`"))?;
                }
                Some(("mode", "partial")) => req.mode = Mode::PARTIAL,
                Some(("mode", "full")) => req.mode = Mode::FULL,
                Some(("mode", "reconverge")) => {
                    req.mode = Mode::reconverge(BlockOrder::DepthFirstPostDom)
                        .with_skip_empty(req.mode.skip_empty);
                }
                Some(("order", o)) => {
                    let order = BlockOrder::ALL
                        .into_iter()
                        .find(|b| b.name() == o)
                        .ok_or_else(|| format!("unknown order `{o}`"))?;
                    req.mode.linearization = Linearization::Reconverge(order);
                }
                Some(("skip", k)) => {
                    req.mode.skip_empty = SkipEmpty::ALL
                        .into_iter()
                        .find(|s| s.name() == k)
                        .ok_or_else(|| format!("unknown skip policy `{k}`"))?;
                }
                Some(("boscc", "all")) => req.mode.boscc = Some(BosccPolicy::All),
                Some(("boscc", "auto")) => req.mode.boscc = Some(BosccPolicy::Auto),
                None if word == "masked" => req.masked = true,
                Some(("masks", "lane-width")) => req.lane_width_masks = true,
                _ => {
                    return Err(format!(
                        "unknown option `{word}` (width=N, mode=partial|full|reconverge, \
                         order=df|dfpd|bf|rpot, skip=auto|all|off, boscc=all|auto, masked, \
                         masks=lane-width)"
                    ))
                }
            }
        }
        Ok(req)
    }
}

/// The output of every directive of `test`: `vectorize` ones, then `reconverge` ones.
fn run_directives(test: &FileTest) -> Result<String, String> {
    let vectorizing = test.directives("vectorize");
    let reconverging = test.directives("reconverge");
    if vectorizing.is_empty() && reconverging.is_empty() {
        return Err(
            "no `; vectorize: @f width=N` or `; reconverge: @f order=O` directive".to_string(),
        );
    }
    let mut out = Vec::new();
    if !vectorizing.is_empty() {
        out.push(vectorize(test)?);
    }
    for (line, text) in reconverging {
        out.push(reconverge(test, line, &text)?);
    }
    Ok(out.join("\n"))
}

/// `; reconverge: @f order=O`: the function after steps 1–3 of the reconverging-CFG
/// paper (one sink, the block order, flow blocks), with the divergent branches the shape
/// analysis finds (parameters as annotated; kernels' unannotated ones uniform) — the
/// figures of the paper as input CFG and expected reconverging CFG.
fn reconverge(test: &FileTest, line: usize, text: &str) -> Result<String, String> {
    let at = |e: String| format!("line {line}: {e}");
    let mut words = text.split_whitespace();
    let name = words
        .next()
        .and_then(|w| w.strip_prefix('@'))
        .ok_or_else(|| at("the directive starts with the function, `@name`".into()))?;
    let mut order = BlockOrder::DepthFirstPostDom;
    for word in words {
        order = match word.strip_prefix("order=") {
            Some(o) => BlockOrder::ALL
                .into_iter()
                .find(|b| b.name() == o)
                .ok_or_else(|| at(format!("unknown order `{o}`")))?,
            None => {
                return Err(at(format!(
                    "unknown option `{word}` (order=df|dfpd|bf|rpot)"
                )))
            }
        };
    }
    let module = lanes_ir::parse_module(&test.source).map_err(|e| e.to_string())?;
    let id = module
        .func_by_name(name)
        .ok_or_else(|| at(format!("no function @{name}")))?;
    let mut func = module
        .function(id)
        .ok_or_else(|| at("no body".into()))?
        .clone();
    let analysis = lanes_analysis::shapes::ShapeAnalysis::new(&module);
    let info = analysis
        .analyze_body(&func, &[])
        .map_err(|e| at(e.to_string()))?;
    let done = lanes_wfv::reconverge::reconverge_analysed(&mut func, &analysis, &[], &info, order)
        .map_err(|e| at(e.to_string()))?;
    lanes_ir::verifier::verify_function(&module, &func)
        .map_err(|e| at(format!("the reconverged function does not verify: {e:?}")))?;
    Ok(format!(
        "reconverge: {text}\n; {} flow blocks\n{}\n",
        done.flow_blocks,
        function_to_string(&module, &func).trim_end()
    ))
}

fn vectorize(test: &FileTest) -> Result<String, String> {
    let directives = test.directives("vectorize");
    let mut out = Vec::new();
    for (line, text) in directives {
        let at = |e: String| format!("line {line}: {e}");
        let req = Request::parse(&text).map_err(at)?;
        let mut module = lanes_ir::parse_module(&test.source).map_err(|e| e.to_string())?;
        lanes_ir::verifier::verify_module(&module).map_err(|e| format!("{e:?}"))?;
        let id = module
            .func_by_name(&req.func)
            .ok_or_else(|| at(format!("no function @{}", req.func)))?;
        let name = format!("{}_w{}", req.func, req.width);
        let before = module.funcs.len();
        let wid = define_variant(&mut module, id, &[], req.mode, req.width, req.masked, &name)
            .map_err(|e| at(e.to_string()))?;
        if req.lane_width_masks {
            lanes_wfv::lane_masks::lane_width_masks_in(&mut module, 256);
        }
        out.push(format!("vectorize: {text}"));
        // The variant, then the callees' variants made with it (scalar copies left out).
        let callee_variant = format!(".w{}.", req.width);
        let made = module
            .functions()
            .filter(|(fid, f)| {
                fid.index() >= before && *fid != wid && f.name.contains(&callee_variant)
            })
            .map(|(fid, _)| fid);
        for fid in std::iter::once(wid).chain(made.collect::<Vec<_>>()) {
            let func = module
                .function(fid)
                .ok_or_else(|| at("the variant has no body".to_string()))?;
            lanes_ir::verifier::verify_function(&module, func)
                .map_err(|e| at(format!("the widened function does not verify: {e:?}")))?;
            out.push(function_to_string(&module, func).trim_end().to_string());
        }
        out.push(String::new());
    }
    Ok(out.join("\n"))
}

#[test]
fn vectorizer_filetests() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("filetests");
    run_golden(&dir, run_directives).assert_ok();
}

#[test]
fn directives_are_parsed_and_bad_ones_rejected() {
    let r = Request::parse("@f width=8 mode=full masked").unwrap();
    assert_eq!(
        (r.func.as_str(), r.width, r.mode, r.masked),
        ("f", 8, Mode::FULL, true)
    );
    let r = Request::parse("@g").unwrap();
    assert_eq!((r.width, r.mode, r.masked), (4, Mode::PARTIAL, false));
    assert!(Request::parse("f width=4").is_err());
    assert!(Request::parse("@f width=x").is_err());
    assert!(Request::parse("@f lanes=4").is_err());
    let r = Request::parse("@f mode=reconverge order=bf skip=off").unwrap();
    assert_eq!(
        (r.mode.linearization, r.mode.skip_empty),
        (
            Linearization::Reconverge(BlockOrder::BreadthFirst),
            SkipEmpty::Off
        )
    );
    assert!(Request::parse("@f order=zigzag").is_err());
    assert!(Request::parse("@f skip=sometimes").is_err());
}
