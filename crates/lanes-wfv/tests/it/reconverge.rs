//! The reconverging transform (lanes-wfv `reconverge`, steps 1–3 of the reconverging-CFG
//! paper): on the paper's diamond (Fig. 2: neither side of the divergent branch
//! post-dominates it) and on generated functions, reducible and irreducible, under each
//! of the four block orders, the result verifies, every divergent branch has a primary
//! successor (the checker), and the function computes what it did (width-1 differential
//! run: result, memory and access trace).

use crate::common;

use arbitrary::Unstructured;
use lanes_interp::{Memory, RtValue, WorkItemContext};
use lanes_ir::generator::{generate, GenConfig};
use lanes_ir::{AddrSpace, ScalarType, Shape};
use lanes_wfv::reconverge::{reconverge, violations, BlockOrder};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const DIAMOND: &str = "
function @diamond(v0: i32, v1: ptr.global align 16) -> i32 {
block0:
    v2: i32 = iconst 0
    v3: i1 = icmp slt v0, v2
    brif v3, block1, block2
block1:
    v4: i32 = iconst 7
    v5: i32 = mul v0, v4
    br block3
block2:
    v6: i32 = iconst 3
    v7: i32 = add v0, v6
    br block3
block3:
    v8: i32 = phi [block1: v5], [block2: v7]
    ret v8
}
";

#[test]
fn the_papers_diamond_gets_one_flow_block_under_every_order() {
    for order in BlockOrder::ALL {
        let m = lanes_ir::parse_module(DIAMOND).unwrap();
        let id = m.func_by_name("diamond").unwrap();
        let mut f = m.function(id).unwrap().clone();
        let entry = f.layout.entry_block().unwrap();
        let r = reconverge(&mut f, &|b| b == entry, order).unwrap();
        common::verify(&m, &f, order.name());
        assert_eq!(r.flow_blocks.len(), 1, "{}", order.name());
        let div = |b| r.divergent.contains(&b);
        assert!(violations(&f, &div).is_empty(), "{}", order.name());
        let mut m2 = m.clone();
        *m2.function_mut(id).unwrap() = f;
        for x in [-5, 0, 9] {
            let alloc = |_: &mut Memory| {
                vec![
                    RtValue::i32(x),
                    RtValue::ptr_of(ScalarType::Ptr(AddrSpace::GLOBAL), 0),
                ]
            };
            let item = WorkItemContext::one_dim(0, 0, 1, 1);
            common::compare(&m, &m2, id, &alloc, &item, order.name());
        }
    }
}

#[test]
fn generated_functions_become_reconverging_and_keep_their_meaning() {
    let n = 300 * common::soak();
    let mut flow = [0usize; 4];
    let mut declined = [0usize; 4];
    let mut compared = 0;
    for seed in 0..n {
        let cfg = GenConfig {
            max_blocks: 12,
            max_insts_per_block: 3,
            max_loop_depth: 2,
            irreducible: seed % 2 == 1,
            work_items: true,
            calls: false,
            max_trip_count: 4,
            max_trip_product: 16,
            ..GenConfig::default()
        };
        let bytes = lanes_test_support::seeded_bytes(seed ^ 0xec0, 4096);
        let g = generate(&mut Unstructured::new(&bytes), &cfg).expect("generation never fails");
        let mut rng = SmallRng::seed_from_u64(seed);
        let shapes: Vec<Option<(Shape, u32)>> = g
            .params
            .iter()
            .map(|_| {
                Some((
                    if rng.gen_bool(0.5) {
                        Shape::Varying
                    } else {
                        Shape::Uniform
                    },
                    0,
                ))
            })
            .collect();
        let original = g.module.function(g.func).expect("body");
        let info = lanes_wfv::shapes_of(&g.module, original, &shapes).expect("shapes");
        for (k, order) in BlockOrder::ALL.into_iter().enumerate() {
            let what = format!("seed {seed} {}", order.name());
            let mut f = original.clone();
            let r = match reconverge(&mut f, &|b| info.is_divergent_branch(b), order) {
                Ok(r) => r,
                Err(lanes_wfv::WfvError::NotReconverging(..)) if cfg.irreducible => {
                    declined[k] += 1;
                    continue;
                }
                Err(e) => panic!(
                    "{what}: {e}\n{}",
                    lanes_ir::write::module_to_string(&g.module)
                ),
            };
            common::verify(&g.module, &f, &what);
            let div = |b| r.divergent.contains(&b);
            let bad = violations(&f, &div);
            assert!(
                bad.is_empty(),
                "{what}: {}\n{}",
                bad[0],
                lanes_ir::write::function_to_string(&g.module, &f)
            );
            flow[k] += r.flow_blocks.len();
            let mut m = g.module.clone();
            *m.function_mut(g.func).expect("body") = f;
            let alloc = |mem: &mut Memory| common::generated_arguments(&g.params, seed, mem);
            let item = WorkItemContext::one_dim(0, seed % 4, 8, 1);
            if common::compare(&g.module, &m, g.func, &alloc, &item, &what) {
                compared += 1;
            }
        }
    }
    eprintln!(
        "reconverge: {n} functions (half irreducible) x 4 orders, {compared} runs compared; \
         df/dfpd/bf/rpot: flow blocks {flow:?}, irreducible declined {declined:?}"
    );
    // Every reducible function reconverges; of the irreducible ones, nearly all.
    assert!(
        declined.iter().all(|&d| d * 50 < n as usize),
        "{declined:?}"
    );
    assert!(
        compared > 4 * n as usize / 2,
        "too few comparable runs: {compared}"
    );
    assert!(flow.iter().all(|&k| k > 0), "{flow:?}");
}

/// The fixed generated functions of `lanes bench reconverge` (`bench/reconverge/*.lir`)
/// are exactly what the generator makes of their seeds, so the figures can be reproduced;
/// `LANES_BLESS=1` writes them again.
#[test]
fn bench_functions_are_the_generators() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/reconverge");
    for (file, irreducible) in [("reducible.lir", false), ("irreducible.lir", true)] {
        let mut text = format!(
            "; Generated functions of `lanes bench reconverge` ({}), seeds 0..20 of the\n\
             ; lanes-ir generator; rewritten by `LANES_BLESS=1 cargo test -p lanes-wfv --test it\n\
             ; bench_functions_are_the_generators`.\n",
            if irreducible {
                "irreducible cycles"
            } else {
                "reducible"
            }
        );
        for seed in 0..20u64 {
            let cfg = GenConfig {
                max_blocks: 14,
                max_insts_per_block: 3,
                max_loop_depth: 2,
                irreducible,
                work_items: true,
                calls: false,
                memory: false,
                floats: false,
                ..GenConfig::default()
            };
            let bytes = lanes_test_support::seeded_bytes(seed ^ 0xbe7c, 4096);
            let g = generate(&mut Unstructured::new(&bytes), &cfg).expect("generation never fails");
            let mut m = g.module.clone();
            let f = m.function_mut(g.func).expect("body");
            f.name = format!("{}{seed}", if irreducible { "irr" } else { "red" });
            let f = m.function(g.func).expect("body");
            text.push('\n');
            text.push_str(&lanes_ir::write::function_to_string(&m, f));
        }
        let path = dir.join(file);
        if std::env::var_os("LANES_BLESS").is_some() {
            std::fs::create_dir_all(&dir).expect("bench/reconverge");
            std::fs::write(&path, &text).expect("write");
        }
        let stored = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            stored == text,
            "{} is stale: run with LANES_BLESS=1",
            path.display()
        );
        lanes_ir::parse_module(&stored).expect("parses");
    }
}
