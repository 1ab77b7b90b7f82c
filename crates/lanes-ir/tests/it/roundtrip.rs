//! Round-trip tests of the `.lir` text format: for every
//! module `m`, `print(parse(print(m))) == print(m)`, and parsing keeps value numbers, block
//! numbers, float bits and names.
//!
//! Coverage: one hand-built module with every instruction group and every name of every
//! `ALL` table (opcodes, condition codes, casts, atomics, work-item queries, intrinsics),
//! special floats, quoted names, globals with and without initializers, vector types and
//! address spaces; hand-written texts with comments and forward references; 2,000 random
//! printable modules (`common::random_module`); and functions of the library's generator.

use crate::common;

use lanes_ir::write::module_to_string;
use lanes_ir::{
    parse_function, parse_module, Block, EntityRef, FuncId, InstData, Module, ParamAttrs, Shape,
    Value, ValueDef,
};

/// Prints `module`, parses the text, prints again, asserts both texts are equal, and
/// returns the parsed module.
fn round_trip(module: &Module) -> Module {
    let text = module_to_string(module);
    let parsed =
        parse_module(&text).unwrap_or_else(|e| panic!("{}\n{text}", e.with_file("<printed>")));
    let again = module_to_string(&parsed);
    assert_eq!(again, text, "reprinted text differs");
    parsed
}

/// Asserts that `b` has the same functions as `a`, instruction by instruction, with the
/// same value numbers, types and block numbers.
fn assert_same_structure(a: &Module, b: &Module) {
    assert_eq!(a.funcs.len(), b.funcs.len());
    assert_eq!(
        a.globals.values().collect::<Vec<_>>(),
        b.globals.values().collect::<Vec<_>>()
    );
    for ((ida, fa), (idb, fb)) in a.functions().zip(b.functions()) {
        assert_eq!(ida, idb);
        assert_eq!(fa.params, fb.params);
        assert_eq!(fa.ret, fb.ret);
        assert_eq!(fa.attrs, fb.attrs);
        for p in &fa.params {
            assert_eq!(fa.dfg.value_type(p.value), fb.dfg.value_type(p.value));
        }
        assert_eq!(
            fa.layout.blocks().collect::<Vec<_>>(),
            fb.layout.blocks().collect::<Vec<_>>()
        );
        for block in fa.layout.blocks() {
            let (ia, ib) = (fa.layout.block_insts(block), fb.layout.block_insts(block));
            assert_eq!(ia.len(), ib.len(), "{block}");
            for (&x, &y) in ia.iter().zip(ib) {
                assert_eq!(fa.dfg.inst(x), fb.dfg.inst(y));
                let (rx, ry) = (fa.dfg.inst_result(x), fb.dfg.inst_result(y));
                assert_eq!(rx, ry);
                if let (Some(rx), Some(ry)) = (rx, ry) {
                    assert_eq!(fa.dfg.value_type(rx), fb.dfg.value_type(ry));
                    assert_eq!(fb.dfg.value_def(ry), ValueDef::Result(y));
                }
            }
        }
    }
}

#[test]
fn every_instruction_and_name_round_trips() {
    let m = common::everything::everything_module();
    let parsed = round_trip(&m);
    assert_same_structure(&m, &parsed);
    let text = module_to_string(&m);
    // Spot checks of the syntax the parser must have read.
    for needle in [
        "global @\"my \\\"table\\\" \\\\ \\u{e9}\\u{7}\" size 0 align 16 space 200 init x\"\"",
        "declare @\"\"()",
        "v5: <65535 x f64>,",
        "strided(-9223372036854775808) align 8",
        "fconst 0x7fc00000",
        "fconst -inf",
        "fconst 1e-45",
        "fconst -0.0",
        "fconst 5e-324",
        "call @later()",
        "shuffle v",
        "[0, 1, 8, 4294967295]",
        "switch v",
        "-9223372036854775808: block1",
        "barrier\n",
        ": f32 = lane_id\n",
        "phi\n",
    ] {
        assert!(
            text.contains(needle),
            "printed module lacks {needle:?}:\n{text}"
        );
    }
    // Numbers of the text are kept, gaps included.
    let (_, all) = parsed.functions().next().expect("a function");
    assert!(!all.layout.is_block_inserted(Block::new(2)));
    let orig = m.functions().next().expect("a function").1;
    assert_eq!(all.dfg.num_values(), orig.dfg.num_values());
    assert_eq!(all.dfg.num_blocks(), orig.dfg.num_blocks());
}

/// The example in the printer's documentation is canonical text.
#[test]
fn printer_doc_example_is_a_fixed_point() {
    let text = "global @tbl size 8 align 4 const init x\"0100000002000000\"
declare @sinf(f32) -> f32

function @saxpy(v0: f32 uniform, v1: ptr uniform align 16, v2: i64 contiguous) kernel {
block0:
    v3: i64 = iconst 2
    v4: i64 = shl v2, v3
    v5: ptr = ptradd v1, v4
    v6: f32 = load v5 align 4
    v7: f32 = fmul v0, v6
    store v7, v5 align 4
    ret
}
";
    let m = parse_module(text).expect("parses");
    assert_eq!(module_to_string(&m), text);
    let (_, f) = m.functions().next().expect("saxpy");
    assert!(f.attrs.kernel);
    assert_eq!(
        f.params[1].attrs,
        ParamAttrs {
            shape: Some(Shape::Uniform),
            align: 16
        }
    );
}

/// Comments, blank lines, forward references to values, blocks, functions and globals,
/// gaps in numbering, and non-canonical spellings all parse to the canonical text.
#[test]
fn hand_written_text_parses_to_canonical_text() {
    let src = "; a module that uses names before declaring them
function @main(v3: i32 varying) -> i32 {   ; trailing comment

block5:
    br block1 ; forward branch
block1:
    v9: i32 = phi [block5: v3], [block1: v10]   ; φ with a forward operand
    v10: i32 = call @helper(v9)
    v11: ptr.global = global_addr @\"late global\"
    v12: f32 = fconst 1
    v13: f64 = fconst 0x3ff0000000000000
    v14: <2 x f32> = fconst -1.5E3
    brif v9, block1, block7
block7:
    ret v10
}

declare @helper(i32) -> i32
global @\"late global\" size 2 align 1 init x\"aBcD\"
";
    let m = parse_module(src).expect("parses");
    let expected = "global @\"late global\" size 2 align 1 init x\"abcd\"
declare @helper(i32) -> i32

function @main(v3: i32 varying) -> i32 {
block5:
    br block1
block1:
    v9: i32 = phi [block5: v3], [block1: v10]
    v10: i32 = call @helper(v9)
    v11: ptr.global = global_addr @\"late global\"
    v12: f32 = fconst 1.0
    v13: f64 = fconst 1.0
    v14: <2 x f32> = fconst -1500.0
    brif v9, block1, block7
block7:
    ret v10
}
";
    assert_eq!(module_to_string(&m), expected);
    let (_, f) = m.functions().next().expect("main");
    assert_eq!(f.dfg.num_values(), 15);
    assert_eq!(f.dfg.num_blocks(), 8);
    assert_eq!(f.entry_block(), Some(Block::new(5)));
    // Gap values are results of unplaced instructions; gap blocks are not laid out.
    let gap = Value::new(0);
    let ValueDef::Result(inst) = f.dfg.value_def(gap) else {
        panic!("gap value is not a result")
    };
    assert_eq!(f.layout.inst_block(inst), None);
    assert_eq!(f.dfg.value_def(Value::new(3)), ValueDef::Param(0));
    assert!(!f.layout.is_block_inserted(Block::new(0)));
    assert_eq!(m.func_by_name("helper"), Some(FuncId::new(1)));
    let call = f.layout.block_insts(Block::new(1))[1];
    assert_eq!(
        f.dfg.inst(call),
        &InstData::Call {
            func: FuncId::new(1),
            args: vec![Value::new(9)]
        }
    );
    // The canonical text is a fixed point.
    assert_eq!(
        module_to_string(&parse_module(expected).expect("parses")),
        expected
    );
}

#[test]
fn integer_flags_read_back_and_are_checked() {
    let src = "function @f(v0: i32, v1: i32, v2: i8) -> i64 {
block0:
    v3: i32 = add nsw nuw v0, v1
    v4: i32 = shl nsw v3, v1
    v5: i32 = udiv exact v4, v1
    v6: i32 = or disjoint v5, v0
    v7: i64 = zext nneg v6
    v8: i32 = sub v0, v1
    ret v7
}
";
    let m = parse_module(src).expect("parses");
    let text = module_to_string(&m);
    assert!(text.contains("v3: i32 = add nuw nsw v0, v1"), "{text}");
    assert!(text.contains("v7: i64 = zext nneg v6"), "{text}");
    assert!(text.contains("v8: i32 = sub v0, v1"), "{text}");
    round_trip(&m);
    lanes_ir::verifier::verify_module(&m).expect("flags where LLVM allows them");
    let err = match parse_module(&src.replace("udiv exact", "udiv nsw")) {
        Ok(_) => panic!("udiv nsw parsed"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("flag 'nsw' does not apply to 'udiv'"), "{err}");
    // Built in memory, a misplaced flag is the verifier's to report.
    let mut m = m;
    let (id, _) = m.functions().next().expect("f");
    let f = m.function_mut(id).expect("defined");
    let inst = f.layout.block_insts(Block::new(0))[0];
    if let InstData::Binary { op, .. } = f.dfg.inst_mut(inst) {
        *op = lanes_ir::BinaryOp::Xor;
    }
    let err = lanes_ir::verifier::verify_module(&m).expect_err("xor nsw");
    assert!(
        format!("{err}").contains("xor cannot carry the flags nuw nsw"),
        "{err}"
    );
}

#[test]
fn float_constants_keep_their_bits() {
    let cases: &[(&str, &str, u64)] = &[
        ("f32", "-0.0", 0x8000_0000),
        ("f32", "1e-45", 1),
        ("f32", "-1e-45", 0x8000_0001),
        ("f32", "1.1754942e-38", 0x007f_ffff),
        ("f32", "inf", 0x7f80_0000),
        ("f32", "-inf", 0xff80_0000),
        ("f32", "0x7fc00001", 0x7fc0_0001),
        ("f32", "3.4028235e38", 0x7f7f_ffff),
        ("f32", "0.1", 0x3dcc_cccd),
        ("f64", "5e-324", 1),
        ("f64", "-0.0", 0x8000_0000_0000_0000),
        ("f64", "1.7976931348623157e308", 0x7fef_ffff_ffff_ffff),
        ("f64", "0xfff8000000000001", 0xfff8_0000_0000_0001),
        ("f64", "0.1", 0x3fb9_9999_9999_999a),
        ("<4 x f32>", "0xffc00000", 0xffc0_0000),
        ("i64", "2.5", 0x4004_0000_0000_0000),
    ];
    for &(ty, lit, bits) in cases {
        let src = format!("function @f() {{\nblock0:\n    v0: {ty} = fconst {lit}\n}}\n");
        let (m, id) = parse_function(&src).unwrap_or_else(|e| panic!("{lit}: {e}"));
        let f = m.function(id).expect("defined");
        let inst = f.layout.block_insts(Block::new(0))[0];
        assert_eq!(f.dfg.inst(inst), &InstData::Fconst { bits }, "{ty} {lit}");
        let printed = module_to_string(&m);
        assert_eq!(
            module_to_string(&parse_module(&printed).expect("reparses")),
            printed
        );
    }
}

#[test]
fn parse_function_returns_the_first_definition() {
    let src = "declare @g()\nfunction @a() {\n}\nfunction @b() {\n}\n";
    let (m, id) = parse_function(src).expect("parses");
    assert_eq!(m.funcs[id].name(), "a");
    assert_eq!(id, FuncId::new(1));
    let e = parse_function("declare @g()\n").map(|_| ()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "2:1: expected a function definition, found end of file"
    );
}

/// The property test over random printable modules: 2,000 deterministic seeds.
#[cfg(feature = "fuzzing")]
#[test]
fn random_modules_round_trip() {
    let mut insts = 0;
    for seed in 0..2000u64 {
        let bytes = common::seeded_bytes(seed, 4096);
        let mut u = arbitrary::Unstructured::new(&bytes);
        let module = common::random_module(&mut u).expect("4096 bytes are enough");
        let parsed = round_trip(&module);
        assert_same_structure_modulo_ids(&module, &parsed);
        insts += module
            .functions()
            .map(|(_, f)| f.num_placed_insts())
            .sum::<usize>();
    }
    assert!(
        insts > 20_000,
        "the random modules are too small: {insts} instructions"
    );
}

/// Like [`assert_same_structure`], for modules whose declarations and definitions are
/// interleaved (the printer puts declarations first, so function ids may differ).
#[cfg(feature = "fuzzing")]
fn assert_same_structure_modulo_ids(a: &Module, b: &Module) {
    let counts = |m: &Module| {
        m.functions()
            .map(|(_, f)| {
                (
                    f.dfg.num_values(),
                    f.dfg.num_blocks(),
                    f.layout.num_blocks(),
                )
            })
            .collect::<Vec<_>>()
    };
    let (ca, cb) = (counts(a), counts(b));
    assert_eq!(ca.len(), cb.len());
    for ((va, ba, la), (vb, bb, lb)) in ca.into_iter().zip(cb) {
        assert_eq!(la, lb, "laid-out blocks differ");
        // Trailing unplaced values and blocks are not printed, so the parsed function
        // may have fewer; every printed number is checked by the text comparison.
        assert!(va >= vb && ba >= bb, "parsed function has more entities");
    }
}

/// The fuzzer's seed corpus (`fuzz/seeds/*.lir`) is valid text: each file parses, and its
/// printed form is a fixed point.
#[test]
fn fuzz_seeds_parse() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).expect("fuzz/seeds exists") {
        let path = entry.expect("readable directory").path();
        if path.extension().is_some_and(|e| e == "lir") {
            let src = std::fs::read_to_string(&path).expect("readable seed");
            let m =
                parse_module(&src).unwrap_or_else(|e| panic!("{}", e.with_file(path.display())));
            round_trip(&m);
            count += 1;
        }
    }
    assert!(count >= 5, "only {count} seeds");
}

/// Generated functions round-trip, keep their structure, and still verify after parsing:
/// `count` deterministic seeds.
#[cfg(feature = "fuzzing")]
fn generated_functions_round_trip(cfg: &lanes_ir::generator::GenConfig, count: u64) -> usize {
    let mut irreducible = 0;
    for seed in 0..count {
        let bytes = common::seeded_bytes(seed, 8192);
        let mut u = arbitrary::Unstructured::new(&bytes);
        let g = lanes_ir::generator::generate(&mut u, cfg).expect("generator succeeds");
        let parsed = round_trip(&g.module);
        assert_same_structure(&g.module, &parsed);
        if let Err(e) = lanes_ir::verifier::verify_module(&parsed) {
            panic!(
                "seed {seed}: parsed module does not verify: {e}\n{}",
                module_to_string(&parsed)
            );
        }
        irreducible += usize::from(g.info.irreducible);
    }
    irreducible
}

#[cfg(feature = "fuzzing")]
#[test]
fn generated_functions_round_trip_default_config() {
    generated_functions_round_trip(&lanes_ir::generator::GenConfig::default(), 1000);
}

#[cfg(feature = "fuzzing")]
#[test]
fn generated_functions_round_trip_irreducible_vector() {
    let cfg = lanes_ir::generator::GenConfig {
        irreducible: true,
        vector_width: Some(4),
        transcendental: true,
        ..Default::default()
    };
    let irreducible = generated_functions_round_trip(&cfg, 1000);
    assert!(
        irreducible > 100,
        "only {irreducible} irreducible functions"
    );
}
