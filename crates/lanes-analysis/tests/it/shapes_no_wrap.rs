//! Strides through `sext`/`zext` (PLDI'18 §2.3; `shapes/no_wrap.rs`) against a brute-force
//! oracle written from the flags' definitions.
//!
//! Each generated function computes integer expressions from a declared contiguous `i32`
//! and `i16`, a uniform `i32` and `lane_id`, with `add`/`sub`/`mul`/`shl` by constants,
//! `or`, `trunc`, `sext` and `zext`, each claiming random flags — true or not — and extends
//! some of them to `i64`. The oracle evaluates every lane as mathematical integers,
//! marks a lane's value poison where a claimed flag fails (LLVM's semantics, propagated
//! to users), and checks every value the analysis calls strided: its non-poison lanes
//! differ by the stride (modulo the width). Lanes of a declared parameter are its
//! contract: `v₀ + i` without overflow.

use lanes_analysis::shapes::{ShapeAnalysis, VShape};
use lanes_ir::{EntityRef, Value};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const W: i128 = 8;

#[derive(Clone, Copy, Debug)]
enum Node {
    Param(usize),
    LaneId,
    Const(i64),
    Bin(&'static str, usize, usize, [bool; 3]),
    Cast(&'static str, usize, bool),
}

/// One generated function: nodes `v0…` in order, with their bit widths.
struct Prog {
    nodes: Vec<(Node, u32)>,
}

fn gen(rng: &mut SmallRng) -> Prog {
    let mut nodes: Vec<(Node, u32)> = vec![
        (Node::Param(0), 32),
        (Node::Param(1), 32),
        (Node::Param(2), 16),
        (Node::LaneId, 32),
    ];
    let of = |nodes: &Vec<(Node, u32)>, rng: &mut SmallRng, bits: u32| -> usize {
        loop {
            let i = rng.gen_range(0..nodes.len());
            if nodes[i].1 == bits {
                return i;
            }
        }
    };
    for _ in 0..rng.gen_range(4..14) {
        let bits = if rng.gen_range(0..4) == 0 { 16 } else { 32 };
        let flags = [rng.gen_bool(0.6), rng.gen_bool(0.3), rng.gen_bool(0.5)];
        let node = match rng.gen_range(0..8) {
            0 | 1 => Node::Bin("add", of(&nodes, rng, bits), of(&nodes, rng, bits), flags),
            2 => Node::Bin("sub", of(&nodes, rng, bits), of(&nodes, rng, bits), flags),
            3 | 4 => {
                let k = match rng.gen_range(0..3) {
                    0 => rng.gen_range(-4..5),
                    1 => rng.gen_range(0..(bits as i64)),
                    _ => rng.gen_range(-70000..70000),
                };
                let k = wrap_signed(i128::from(k), bits) as i64;
                nodes.push((Node::Const(k), bits));
                let c = nodes.len() - 1;
                let op = ["mul", "shl", "or"][rng.gen_range(0..3)];
                Node::Bin(op, of(&nodes, rng, bits), c, flags)
            }
            5 => Node::Bin("or", of(&nodes, rng, bits), of(&nodes, rng, bits), flags),
            _ if bits == 32 => {
                let op = if rng.gen_bool(0.5) { "sext" } else { "zext" };
                Node::Cast(op, of(&nodes, rng, 16), flags[2])
            }
            _ => Node::Cast("trunc", of(&nodes, rng, 32), false),
        };
        nodes.push((node, bits));
    }
    // Extensions to i64 of the last few i32 values.
    let n = nodes.len();
    let last: Vec<usize> = (0..n).rev().filter(|&i| nodes[i].1 == 32).take(4).collect();
    for i in last {
        let op = if rng.gen_bool(0.7) { "sext" } else { "zext" };
        nodes.push((Node::Cast(op, i, rng.gen_bool(0.5)), 64));
    }
    Prog { nodes }
}

fn text(p: &Prog) -> String {
    let ty = |b: u32| format!("i{b}");
    let mut s = String::from(
        "function @f(v0: i32 contiguous, v1: i32 uniform, v2: i16 contiguous) {\nblock0:\n",
    );
    for (i, &(node, bits)) in p.nodes.iter().enumerate().skip(3) {
        let rhs = match node {
            Node::LaneId => "lane_id".to_string(),
            Node::Const(k) => format!("iconst {k}"),
            Node::Bin(op, a, b, [nsw, nuw, disjoint]) => {
                let mut f = String::new();
                if op == "or" {
                    if disjoint {
                        f.push_str(" disjoint");
                    }
                } else {
                    if nuw {
                        f.push_str(" nuw");
                    }
                    if nsw {
                        f.push_str(" nsw");
                    }
                }
                format!("{op}{f} v{a}, v{b}")
            }
            Node::Cast(op, a, nneg) => {
                let f = if op == "zext" && nneg { " nneg" } else { "" };
                format!("{op}{f} v{a}")
            }
            Node::Param(_) => unreachable!("parameters come first"),
        };
        s.push_str(&format!("    v{i}: {} = {rhs}\n", ty(bits)));
    }
    s.push_str("    ret\n}\n");
    s
}

fn wrap_signed(x: i128, bits: u32) -> i128 {
    let m = 1i128 << bits;
    let r = x.rem_euclid(m);
    if r >= m / 2 {
        r - m
    } else {
        r
    }
}

fn unsigned(x: i128, bits: u32) -> i128 {
    x.rem_euclid(1i128 << bits)
}

/// Every node's value per lane (as a signed integer of its width), `None` if poison.
fn eval(p: &Prog, base: [i128; 3]) -> Vec<Vec<Option<i128>>> {
    let mut vals: Vec<Vec<Option<i128>>> = Vec::new();
    for &(node, bits) in &p.nodes {
        let lanes = (0..W)
            .map(|k| {
                let get = |i: usize| vals[i][k as usize];
                let in_s = |x: i128| wrap_signed(x, bits) == x;
                let in_u = |x: i128| unsigned(x, bits) == x;
                Some(match node {
                    Node::Param(1) => base[1],
                    Node::Param(i) => base[i] + k,
                    Node::LaneId => k,
                    Node::Const(c) => wrap_signed(i128::from(c), bits),
                    Node::Bin(op, a, b, [nsw, nuw, disjoint]) => {
                        let (x, y) = (get(a)?, get(b)?);
                        let (ux, uy) = (unsigned(x, bits), unsigned(y, bits));
                        let (s, u) = match op {
                            "add" => (x + y, ux + uy),
                            "sub" => (x - y, ux - uy),
                            "mul" => (x * y, ux * uy),
                            "shl" => {
                                let k = uy % i128::from(bits);
                                (x << k, ux << k)
                            }
                            _ => {
                                if disjoint && ux & uy != 0 {
                                    return None;
                                }
                                (ux | uy, ux | uy)
                            }
                        };
                        let r = wrap_signed(u, bits);
                        let shl_nsw_fails = op == "shl" && wrap_signed(s, bits) != s;
                        if op != "or" && ((nsw && (!in_s(s) || shl_nsw_fails)) || (nuw && !in_u(u)))
                        {
                            return None;
                        }
                        r
                    }
                    Node::Cast(op, a, nneg) => {
                        let x = get(a)?;
                        let from = p.nodes[a].1;
                        match op {
                            "sext" => x,
                            "trunc" => wrap_signed(x, bits),
                            _ if nneg && x < 0 => return None,
                            _ => unsigned(x, from),
                        }
                    }
                })
            })
            .collect();
        vals.push(lanes);
    }
    vals
}

#[test]
fn extensions_called_strided_are_strided_in_every_non_poison_lane() {
    let mut rng = SmallRng::seed_from_u64(0x5eed_0004);
    let programs = 2_000 * lanes_test_support::soak();
    let (mut checked, mut strided_ext) = (0u64, 0u64);
    for _ in 0..programs {
        let prog = gen(&mut rng);
        let src = text(&prog);
        let module = lanes_ir::parse_module(&src).unwrap_or_else(|e| panic!("{e}\n{src}"));
        lanes_ir::verifier::verify_module(&module).unwrap_or_else(|e| panic!("{e}\n{src}"));
        let (id, _) = module.functions().next().expect("f");
        let info = ShapeAnalysis::new(&module)
            .analyze(id, &[])
            .expect("analysis");
        for _ in 0..16 {
            let edge = |rng: &mut SmallRng, max: i128| match rng.gen_range(0..4) {
                0 => max - W + 1 - rng.gen_range(0..4),
                1 => -max - 1 + rng.gen_range(0..4),
                2 => rng.gen_range(-40..40),
                _ => rng.gen_range(-max - 1..=max - W + 1),
            };
            let base = [
                edge(&mut rng, i128::from(i32::MAX)),
                edge(&mut rng, i128::from(i32::MAX)) + W - 1,
                edge(&mut rng, i128::from(i16::MAX)),
            ];
            let vals = eval(&prog, base);
            for (i, &(node, bits)) in prog.nodes.iter().enumerate() {
                let VShape::Strided { stride, .. } = info.shape(Value::new(i)) else {
                    continue;
                };
                let Some(lanes) = vals[i].iter().copied().collect::<Option<Vec<i128>>>() else {
                    continue; // some lane is poison: no claim to check
                };
                let m = 1i128 << bits;
                for (k, &x) in lanes.iter().enumerate() {
                    let want = (lanes[0] + k as i128 * i128::from(stride)).rem_euclid(m);
                    assert_eq!(
                        x.rem_euclid(m),
                        want,
                        "v{i} = {node:?} claimed strided({stride}), lanes {lanes:?}\n{src}"
                    );
                }
                checked += 1;
                if bits == 64 && stride != 0 {
                    strided_ext += 1;
                }
            }
        }
    }
    eprintln!("{checked} strided values checked, {strided_ext} of them non-uniform i64 extensions");
    assert!(
        strided_ext > 1000,
        "too few extensions exercised: {strided_ext}"
    );
}
