//! Every width from 2 to [`MAX_WIDTH`] works, and any other is refused with an error that
//! names the limit before anything is added to the module.
//!
//! The widths the targets have natively (4, 8, 16) are tested on every kernel in
//! `widen`; here each kernel of the corpus is widened at a rotating share of all widths
//! from 2 to 64 (odd ones, non-powers of two, wider than any register), so that every
//! width meets several kernels, and compared with its lanes run one by one in the
//! interpreter, with all lanes active and with some off.

use std::collections::BTreeSet;

use crate::common;
use crate::widen::{differential, kernel_gens, lane_mask, width_dependent, Tally};

use lanes_wfv::{define_variant, prepare, widen, Mode, MAX_WIDTH};

#[test]
fn every_width_up_to_the_limit_equals_lanes_run_one_by_one() {
    let mut tally = Tally::default();
    let mut widths: BTreeSet<u16> = BTreeSet::new();
    let mut k = 0u16;
    for path in common::kernel_files() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let module = lanes_ir::parse_module(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for (id, f) in module.functions() {
            if f.layout.num_blocks() == 0 || width_dependent(f) {
                continue;
            }
            let (gens, shapes) = kernel_gens(&module, id);
            for w in (2..=MAX_WIDTH).filter(|w| (w + k).is_multiple_of(6)) {
                let what = format!("{name} @{} W={w}", f.name);
                let mode = Mode::PARTIAL;
                differential(
                    &module, id, &shapes, &gens, mode, w, 0, None, &mut tally, &what,
                );
                let m = lane_mask(w, u64::from(w) * 7 + u64::from(k));
                let what = format!("{what} mask {m:?}");
                let mask = Some(m.as_slice());
                differential(
                    &module, id, &shapes, &gens, mode, w, 1, mask, &mut tally, &what,
                );
                widths.insert(w);
            }
            k += 1;
        }
    }
    eprintln!("widths: {tally:?}");
    assert_eq!(widths, (2..=MAX_WIDTH).collect(), "every width was tried");
    assert!(tally.compared > 300, "{tally:?}");
}

#[test]
fn widths_beyond_the_limit_are_refused_naming_it() {
    let path = common::kernel_path("saxpy.lir");
    let module = lanes_ir::parse_module(&std::fs::read_to_string(path).unwrap()).unwrap();
    let id = module.func_by_name("saxpy").unwrap();
    for w in [0, MAX_WIDTH + 1, 128, u16::MAX] {
        for masked in [false, true] {
            let mut m = module.clone();
            let err = define_variant(&mut m, id, &[], Mode::PARTIAL, w, masked, "v")
                .expect_err("refused");
            assert!(err.to_string().contains("1 to 64 lanes"), "W={w}: {err}");
            assert_eq!(
                m.funcs.len(),
                module.funcs.len(),
                "W={w}: the module is unchanged"
            );
        }
        let p = prepare(&module, id, &[], Mode::PARTIAL, &mut |_, _| {}).unwrap();
        assert!(widen(&module, &p, &[], w).is_err(), "W={w}");
    }
    let mut m = module.clone();
    assert!(define_variant(&mut m, id, &[], Mode::PARTIAL, MAX_WIDTH, true, "v").is_ok());
}
