//! The shape lattice's transfer functions and argument shapes.
//!
//! Each test analyses a small hand-written function and checks the shape of named values
//! against what PLDI'18 §2.3 / CC'12 §3.2 prescribe: arithmetic with uniform constants
//! keeps strides, `ptradd` adds byte strides, loads of uniform addresses are uniform,
//! atomics and allocas varying, work-item and lane intrinsics seed contiguous shapes, and
//! calls are summarized from the callee.

use lanes_analysis::shapes::{parse_shape_list, ShapeAnalysis, ShapeError, ShapeInfo};
use lanes_ir::{EntityRef, Module, Shape, Value};

fn analyze(text: &str, func: &str, shapes: &str) -> (Module, ShapeInfo) {
    let module = lanes_ir::parse_module(text).expect("parses");
    lanes_ir::verifier::verify_module(&module).expect("verifies");
    let id = module.func_by_name(func).expect("function");
    let shapes: Vec<Option<(Shape, u32)>> = parse_shape_list(shapes)
        .expect("shape syntax")
        .into_iter()
        .map(Some)
        .collect();
    let info = ShapeAnalysis::new(&module)
        .analyze(id, &shapes)
        .expect("analysis");
    (module, info)
}

fn shape(info: &ShapeInfo, v: usize) -> String {
    info.shape(Value::new(v)).to_string()
}

const ARITH: &str = "
function @arith(v0: i64, v1: i64, v2: ptr.global) -> i64 {
block0:
    v3: i64 = global_id 0
    v4: i64 = local_id 0
    v5: i64 = add v3, v0
    v6: i64 = sub v3, v4
    v7: i64 = iconst 4
    v8: i64 = mul v3, v7
    v9: i64 = iconst 2
    v10: i64 = shl v3, v9
    v11: i64 = mul v3, v0
    v12: i64 = ineg v3
    v13: i64 = xor v3, v7
    v14: i32 = trunc v8
    v15: i64 = sext v14
    v16: i64 = zext v14
    v17: ptr.global = ptradd v2, v8
    v18: i64 = add v8, v1
    v19: i64 = global_id 1
    v20: i64 = group_id 0
    v21: i64 = sub v8, v10
    v22: i64 = mul v0, v7
    v23: i64 = and v0, v7
    v24: i64 = not v3
    ret v24
}
";

#[test]
fn arithmetic_keeps_strides_by_uniform_constants() {
    let (_, info) = analyze(ARITH, "arith", "u, v, ua16");
    let expect = [
        (0, "uniform"),
        (1, "varying"),
        (2, "uniform a16"),
        (3, "contiguous"),
        (4, "contiguous"),
        (5, "contiguous"),     // contiguous + uniform
        (6, "uniform"),        // global id - local id: strides cancel
        (8, "strided(4) a4"),  // mul by uniform constant 4: lane 0 is 4·gid
        (10, "strided(4) a4"), // shl by 2
        (11, "varying"),       // mul by a non-constant uniform
        (12, "strided(-1)"),   // negation
        (13, "varying"),       // xor is not affine
        (14, "strided(4)"),    // trunc keeps the stride modulo 2^32
        (15, "varying"),       // sext of a strided value may wrap
        (16, "varying"),
        (17, "strided(4) a4"), // ptradd: byte strides, alignment min(16, 4)
        (18, "varying"),       // strided + varying
        (19, "uniform"),       // other dimensions are uniform
        (20, "uniform"),
        (21, "uniform a4"), // 4·gid - 4·gid
        (22, "uniform a4"),
        (23, "uniform a4"),
        (24, "strided(-1)"),
    ];
    for (v, s) in expect {
        assert_eq!(shape(&info, v), s, "v{v}");
    }
}

const MEMORY: &str = "
global @tbl size 64 align 32 const
declare @sinf(f32) -> f32

function @mem(v0: ptr.global, v1: f32, v2: f32) -> i32 {
block0:
    v3: i64 = global_id 0
    v4: i64 = iconst 4
    v5: i64 = mul v3, v4
    v6: ptr.global = ptradd v0, v5
    v7: i32 = load v0 align 4
    v8: i32 = load v6 align 4
    v9: i32 = iconst 1
    v10: i32 = atomic_rmw add v0, v9
    v11: ptr = alloca 16 align 8
    v12: ptr = global_addr @tbl
    v13: f32 = call @sinf(v1)
    v14: f32 = call @sinf(v2)
    v15: i1 = icmp eq v7, v9
    v16: i32 = select v15, v7, v9
    v17: i1 = icmp eq v8, v9
    v18: i32 = select v17, v7, v9
    v19: i32 = lane_id
    v20: i32 = num_lanes
    v21: f32 = fadd v1, v1
    ret v16
}
";

#[test]
fn memory_atomics_calls_and_selects() {
    let (_, info) = analyze(MEMORY, "mem", "u, u, v");
    let expect = [
        (6, "strided(4)"),
        (7, "uniform"),         // load through a uniform address
        (8, "varying"),         // load through a strided address
        (10, "varying"),        // atomics return per-lane old values
        (11, "strided(16) a8"), // lane k's slice of one allocation, 16 bytes apart
        (12, "uniform a32"),
        (13, "uniform"), // pure external of a uniform argument
        (14, "varying"),
        (16, "uniform"), // select on a uniform condition: join of the operands
        (18, "varying"), // select on a varying condition
        (19, "contiguous"),
        (20, "uniform"),
        (21, "uniform"),
    ];
    for (v, s) in expect {
        assert_eq!(shape(&info, v), s, "v{v}");
    }
}

const CALLS: &str = "
function @pure(v0: i32) -> i32 {
block0:
    v1: i32 = iconst 3
    v2: i32 = mul v0, v1
    ret v2
}

function @writes(v0: ptr, v1: i32) -> i32 {
block0:
    store v1, v0 align 4
    ret v1
}

function @uses_lane(v0: i32) -> i32 {
block0:
    v1: i32 = lane_id
    v2: i32 = add v0, v1
    ret v2
}

function @caller(v0: i32, v1: ptr) -> i32 {
block0:
    v2: i32 = call @pure(v0)
    v3: i32 = global_id 0
    v4: i32 = call @pure(v3)
    v5: i32 = call @writes(v1, v0)
    v6: i32 = call @uses_lane(v0)
    ret v2
}
";

#[test]
fn calls_are_summarized_from_the_callee() {
    let (_, info) = analyze(CALLS, "caller", "u, u");
    assert_eq!(shape(&info, 2), "uniform");
    assert_eq!(shape(&info, 4), "strided(3)", "3·gid through the callee");
    assert_eq!(shape(&info, 5), "varying", "a callee writing memory");
    assert_eq!(shape(&info, 6), "contiguous", "a callee adding lane_id");
}

const ATTRS: &str = "
function @k(v0: i32 uniform, v1: i32 contiguous, v2: i32 strided(3), v3: ptr varying align 8, v4: i32) kernel {
block0:
    ret
}

function @f(v0: i32, v1: i32 uniform) {
block0:
    ret
}
";

#[test]
fn argument_shapes_from_attributes_defaults_and_the_user() {
    let (_, info) = analyze(ATTRS, "k", "");
    let got: Vec<String> = (0..5).map(|v| shape(&info, v)).collect();
    // The last parameter has no attribute: kernels default to uniform.
    assert_eq!(
        got,
        [
            "uniform",
            "contiguous",
            "strided(3)",
            "varying a8",
            "uniform"
        ]
    );
    let (_, info) = analyze(ATTRS, "f", "");
    assert_eq!(shape(&info, 0), "varying", "non-kernels default to varying");
    assert_eq!(shape(&info, 1), "uniform");
    let (_, info) = analyze(ATTRS, "k", "v,u,s-2a4,ua16,c");
    let got: Vec<String> = (0..5).map(|v| shape(&info, v)).collect();
    assert_eq!(
        got,
        [
            "varying",
            "uniform",
            "strided(-2) a4",
            "uniform a16",
            "contiguous"
        ]
    );
    let module = lanes_ir::parse_module(ATTRS).unwrap();
    let id = module.func_by_name("k").unwrap();
    let err = ShapeAnalysis::new(&module)
        .analyze(id, &[Some((Shape::Uniform, 0))])
        .unwrap_err();
    assert!(matches!(
        err,
        ShapeError::Arity {
            given: 1,
            params: 5,
            ..
        }
    ));
    assert!(parse_shape_list("u,x").is_err());
    assert!(parse_shape_list("ua3").is_err());
}

#[test]
fn lattice_join_is_monotone_and_commutative() {
    use lanes_analysis::shapes::VShape;
    let all = [
        VShape::Undef,
        VShape::uniform(1),
        VShape::uniform(16),
        VShape::strided(1, 4),
        VShape::strided(4, 16),
        VShape::strided(-4, 1),
        VShape::varying(1),
        VShape::varying(8),
    ];
    for a in all {
        for b in all {
            let j = a.join(b);
            assert_eq!(j, b.join(a));
            assert!(a.le(j) && b.le(j), "{a} ⊔ {b} = {j}");
            for c in all {
                assert_eq!(a.join(b).join(c), a.join(b.join(c)));
                if a.le(b) {
                    assert!(a.join(c).le(b.join(c)), "join is monotone");
                }
            }
        }
    }
}
