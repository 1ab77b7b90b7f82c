//! Generated C for SLP: straight-line code and loop bodies written lane by lane from one
//! template, then disturbed the ways real code is — operands swapped, a lane that does
//! something else, permuted or overlapping accesses, stores to the array being read,
//! pointers that may alias, each lane under its own condition, if-else joins — compiled
//! by clang-19 -O2 (vectorizers off), packed at three register widths, and run against
//! the scalar function: same result, same memory, and the same bytes read and written
//! (a masked-off lane touches nothing). Plain loops (one lane) must be unrolled first.

use lanes_slp::SlpReport;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::packed_run::pack_and_compare;

/// One random program.
struct Gen {
    rng: SmallRng,
    ty: &'static str,
    lanes: usize,
}

impl Gen {
    fn chance(&mut self, p: f64) -> bool {
        self.rng.gen_bool(p)
    }

    /// A leaf of lane `l`: an array element near lane `l`'s, a constant or a parameter.
    fn leaf(&mut self, l: usize, idx: &str) -> String {
        match self.rng.gen_range(0..10) {
            0..=5 => {
                let arr = self.rng.gen_range(0..3);
                let off = self.rng.gen_range(0..6);
                // Sometimes a permuted element of the same vector.
                let lane = if self.chance(0.15) {
                    self.lanes - 1 - l
                } else {
                    l
                };
                format!("A{arr}[{idx}{}]", off * self.lanes + lane)
            }
            6..=7 => format!("({})({})", self.ty, self.rng.gen_range(1..9)),
            _ => "s".to_string(),
        }
    }

    /// A template: an expression tree with holes for leaves, as a closure over the lane.
    fn template(&mut self, depth: u32) -> Tmpl {
        if depth == 0 || self.chance(0.3) {
            return Tmpl::Leaf(self.rng.gen());
        }
        let op = ["+", "-", "*", "min", "max"][self.rng.gen_range(0..5)];
        Tmpl::Op(
            op,
            Box::new(self.template(depth - 1)),
            Box::new(self.template(depth - 1)),
        )
    }

    fn expr(&mut self, t: &Tmpl, l: usize, idx: &str) -> String {
        match t {
            Tmpl::Leaf(seed) => {
                // The same leaf choice in every lane, shifted to the lane.
                let saved = std::mem::replace(&mut self.rng, SmallRng::seed_from_u64(*seed));
                let s = self.leaf(l, idx);
                self.rng = saved;
                s
            }
            Tmpl::Op(op, a, b) => {
                let (mut x, mut y) = (self.expr(a, l, idx), self.expr(b, l, idx));
                if *op != "-" && self.chance(0.15) {
                    std::mem::swap(&mut x, &mut y);
                }
                // Now and then a lane that computes something else.
                if self.chance(0.03) {
                    x = self.leaf(l, idx);
                }
                match *op {
                    "min" => format!("MIN({x}, {y})"),
                    "max" => format!("MAX({x}, {y})"),
                    _ => format!("({x} {op} {y})"),
                }
            }
        }
    }

    fn program(&mut self) -> String {
        let ty = self.ty;
        let restrict = |g: &mut Gen| if g.chance(0.85) { "restrict " } else { "" };
        let (r0, r1, r2) = (restrict(self), restrict(self), restrict(self));
        let mut body = String::new();
        // One lane: a plain loop, which the packer must unroll to find packs.
        let in_loop = self.lanes == 1 || self.chance(0.4);
        let idx = if in_loop {
            format!("i * {} + ", self.lanes)
        } else {
            String::new()
        };
        let statements = self.rng.gen_range(1..3);
        for _ in 0..statements {
            let t = self.template(3);
            let t2 = self.template(2);
            let dst = if self.chance(0.8) {
                0
            } else {
                self.rng.gen_range(1..3)
            };
            let dst_off = self.rng.gen_range(0..4) * self.lanes;
            let cond_kind = self.rng.gen_range(0..4);
            let cond_arr = self.rng.gen_range(0..3);
            for l in 0..self.lanes {
                let e = self.expr(&t, l, &idx);
                let target = format!("A{dst}[{idx}{}]", dst_off + l);
                let cond = format!(
                    "A{cond_arr}[{idx}{}] > t",
                    l + self.rng.gen_range(0..2) * self.lanes
                );
                match cond_kind {
                    0 => body.push_str(&format!("    {target} = {e};\n")),
                    1 => body.push_str(&format!("    if ({cond}) {target} = {e};\n")),
                    2 => {
                        let e2 = self.expr(&t2, l, &idx);
                        body.push_str(&format!(
                            "    {{ {ty} x; if ({cond}) x = {e}; else x = {e2}; {target} = x * ({ty})3; }}\n"
                        ));
                    }
                    _ => {
                        // The else side reads memory clang may not read unconditionally.
                        let e2 = format!("A2[{idx}{}] * s", 5 * self.lanes + l);
                        body.push_str(&format!(
                            "    {{ {ty} x = {e}; if ({cond}) x = {e2}; {target} = x; }}\n"
                        ));
                    }
                }
            }
        }
        let body = if in_loop {
            format!("  for (int i = 0; i < n; i++) {{\n{body}  }}\n")
        } else {
            body
        };
        format!(
            "#define MIN(a, b) ((a) < (b) ? (a) : (b))\n#define MAX(a, b) ((a) > (b) ? (a) : (b))\n\
             void f({ty} *{r0}A0, {ty} *{r1}A1, {ty} *{r2}A2, {ty} t, {ty} s, int n) {{\n\
             {body}}}\n"
        )
    }
}

enum Tmpl {
    Leaf(u64),
    Op(&'static str, Box<Tmpl>, Box<Tmpl>),
}

#[test]
fn generated_c_keeps_its_meaning_when_packed() {
    let dir = lanes_test_support::scratch_dir("slp-generated");
    let programs = 160 * lanes_test_support::soak();
    let mut total = SlpReport::default();
    let mut compared = 0u64;
    for seed in 0..programs {
        let mut rng = SmallRng::seed_from_u64(seed);
        let ty = ["float", "unsigned", "double", "unsigned short"][rng.gen_range(0..4)];
        let lanes = [1, 2, 4, 8][rng.gen_range(0..4)];
        let mut g = Gen { rng, ty, lanes };
        let src = g.program();
        let path = dir.join(format!("p{seed}.c"));
        let bits = [128, 256, 512][(seed % 3) as usize];
        let (report, runs) = pack_and_compare(&path, &src, seed, bits, 8, 2_000_000)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{src}"))
            .unwrap_or_else(|| panic!("seed {seed}: not imported\n{src}"));
        total += &report;
        compared += runs;
    }
    eprintln!(
        "{programs} programs, {compared} runs compared; {} loops unrolled, {} trees, {} packs of {} instructions, {} across predicates, {} seeds rejected",
        total.unrolled.len(),
        total.trees,
        total.packs,
        total.packed_insts,
        total.cross_predicate_packs,
        total.rejected.len()
    );
    assert!(compared >= programs * 6, "{compared}");
    assert!(total.trees as u64 >= programs / 4, "{total:?}");
    assert!(
        total.cross_predicate_packs > 20 && !total.rejected.is_empty(),
        "{total:?}"
    );
    assert!(total.unrolled.len() as u64 >= programs / 10, "{total:?}");
}
