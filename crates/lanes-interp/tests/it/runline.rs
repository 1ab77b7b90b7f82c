//! The run-line grammar through its public API: what parses to what, and errors.

use lanes_interp::runline::*;
use lanes_ir::ScalarType;
fn int(n: i128) -> Lit {
    Lit::Int(n)
}

#[test]
fn calls_outcomes_and_checks() {
    let r = parse_run_line("@f(1, -2.5, <1, 2>, true) == -3").unwrap();
    assert_eq!(r.func, "f");
    assert_eq!(
        r.args,
        vec![
            ArgSpec::Value(ValueSpec::Scalar(int(1))),
            ArgSpec::Value(ValueSpec::Scalar(Lit::Float("-2.5".into()))),
            ArgSpec::Value(ValueSpec::Vector(vec![int(1), int(2)])),
            ArgSpec::Value(ValueSpec::Scalar(Lit::Bool(true))),
        ]
    );
    assert_eq!(r.outcome, Outcome::Equals(ValueSpec::Scalar(int(-3))));
    let r = parse_run_line("@g(buf[i32: 1,2,3]) ; buf0 == [i32: 2,4,6]").unwrap();
    assert_eq!(r.outcome, Outcome::Succeeds);
    assert_eq!(
        r.checks,
        vec![Check {
            target: CheckTarget::Buffer(0),
            approx: false,
            elem: ScalarType::I32,
            values: vec![int(2), int(4), int(6)]
        }]
    );
    let r = parse_run_line("@div(1, 0) traps division by zero ; @g ~= [f32: 1e-3]").unwrap();
    assert_eq!(r.outcome, Outcome::Traps("division by zero".into()));
    assert_eq!(r.checks[0].target, CheckTarget::Global("g".into()));
    assert!(r.checks[0].approx);
    let r = parse_run_line("@\"a b\"() ~= nan").unwrap();
    assert_eq!(r.func, "a b");
    assert_eq!(
        r.outcome,
        Outcome::Approx(ValueSpec::Scalar(Lit::Float("nan".into())))
    );
}

#[test]
fn buffers_and_pointer_literals() {
    let a = parse_arg("const buf[f32 x 8]").unwrap();
    let want = BufferSpec {
        elem: ScalarType::F32,
        init: BufInit::Zeroed(8),
        read_only: true,
    };
    assert_eq!(a, ArgSpec::Buffer(want));
    let a = parse_arg("buf[ptr.global: null, buf0+16, buf1-4]").unwrap();
    let ArgSpec::Buffer(b) = a else {
        panic!("not a buffer")
    };
    assert_eq!(b.elem, ScalarType::Ptr(lanes_ir::AddrSpace::GLOBAL));
    assert_eq!(
        b.init,
        BufInit::Values(vec![
            Lit::Null,
            Lit::BufRef { buf: 0, offset: 16 },
            Lit::BufRef { buf: 1, offset: -4 }
        ])
    );
    assert_eq!(
        parse_arg("buf[i8: ]").unwrap(),
        ArgSpec::Buffer(BufferSpec {
            elem: ScalarType::I8,
            init: BufInit::Values(vec![]),
            read_only: false
        })
    );
    let list = parse_arg_list("0x10, -0x10, 1e3, 2.5e-3, -inf").unwrap();
    let lits: Vec<Lit> = list
        .into_iter()
        .map(|a| match a {
            ArgSpec::Value(ValueSpec::Scalar(l)) => l,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        lits,
        vec![
            int(16),
            int(-16),
            Lit::Float("1e3".into()),
            Lit::Float("2.5e-3".into()),
            Lit::Float("-inf".into())
        ]
    );
    assert_eq!(parse_args(&["1", "<2, 3>"]).unwrap().len(), 2);
    assert_eq!(
        parse_value("18446744073709551615").unwrap(),
        ValueSpec::Scalar(int(u64::MAX.into()))
    );
}

#[test]
fn errors_say_where_and_what() {
    let e = parse_run_line("@f(1, ) == 2").unwrap_err();
    assert_eq!(e.to_string(), "column 7: expected a literal, found `)`");
    let e = parse_run_line("f(1)").unwrap_err();
    assert_eq!(e.column, 1);
    assert!(parse_run_line("@f(1) == ").is_err());
    assert!(parse_run_line("@f(1) traps").is_err());
    assert!(parse_run_line("@f(buf[q32: 1])")
        .unwrap_err()
        .message
        .contains("element type"));
    assert!(parse_run_line("@f(1) ; buf0 = [i32: 1]").is_err());
    assert!(parse_arg("99999999999999999999999").is_err());
    assert!(parse_arg("1 2").is_err());
    assert!(parse_arg("<>").is_err());
    assert!(parse_arg("const 3").is_err());
    assert!(parse_arg("@\"unterminated").is_err());
    assert!(parse_arg("").is_err());
}

/// `buf[T @ PATH]`: a buffer read from a file of whole little-endian elements, as
/// `lanes cl run`'s `=@PATH` reads it; a short or missing file is an argument error
/// naming it.
#[test]
fn buffers_from_files() {
    use lanes_interp::harness::bind_args;
    use lanes_interp::Memory;
    use lanes_ir::{AddrSpace, Type};

    let dir = std::env::temp_dir().join(format!("lanes-runline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("four ints.bin");
    let bytes: Vec<u8> = [7i32, -1, 3, 5]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    std::fs::write(&path, &bytes).unwrap();
    let text = format!("buf[i32 @ {}]", path.display());
    let a = parse_arg(&text).unwrap();
    assert_eq!(
        a,
        ArgSpec::Buffer(BufferSpec {
            elem: ScalarType::I32,
            init: BufInit::File(path.clone()),
            read_only: false
        })
    );
    // In a list, the name ends at `]`.
    assert_eq!(parse_arg_list(&format!("{text}, 4")).unwrap().len(), 2);
    let ptr = Type::Scalar(ScalarType::Ptr(AddrSpace::PRIVATE));
    let mut mem = Memory::new();
    let bound = bind_args("f", &[a], &[ptr], &mut mem).unwrap();
    assert_eq!(bound.buffers[0].len, 4);
    assert_eq!(mem.read_bytes(bound.buffers[0].ptr, 16).unwrap(), bytes);
    // Seven bytes are not whole i32s; a missing file is named.
    std::fs::write(&path, &bytes[..7]).unwrap();
    let e = bind_args("f", &[parse_arg(&text).unwrap()], &[ptr], &mut mem).unwrap_err();
    assert!(
        e.to_string().contains("7 bytes, not whole elements of 4"),
        "{e}"
    );
    let missing = parse_arg(&format!("buf[f32 @ {}]", dir.join("nope").display())).unwrap();
    let e = bind_args("f", &[missing], &[ptr], &mut mem).unwrap_err();
    assert!(
        e.to_string().contains("cannot read") && e.to_string().contains("nope"),
        "{e}"
    );
    assert!(parse_arg("buf[f32 @ ]").is_err());
    let _ = std::fs::remove_dir_all(&dir);
}
