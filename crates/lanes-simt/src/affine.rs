//! Checking claimed vector shapes against what the lanes of a SIMT run hold.
//!
//! The shape analysis claims, for a value `v` of shape `strided(s, a)`, that lane `i`
//! holds `base + i·s` (modulo the element width) with `base` a multiple of `a`, and for
//! `varying(a)` that every lane's value is a multiple of `a` (PLDI'18 §2.3). A SIMT run
//! can refute such a claim at any execution of `v`'s definition: [`refutes`] checks one
//! execution, lane by lane for vectors (every vector lane follows the same rule). Floats
//! are not checked (the analysis gives them no strides).

use lanes_ir::ScalarType;

use lanes_interp::value::RtValue;

/// A shape claim to check: `stride` for strided shapes (`None`: varying), the alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Claim {
    pub stride: Option<i64>,
    pub align: u32,
}

fn width_mask(elem: ScalarType) -> u64 {
    match elem.bits() {
        64 => u64::MAX,
        b => (1u64 << b) - 1,
    }
}

/// Do the values `(lane, value)` of one execution refute `claim`?
pub fn refutes(claim: Claim, lanes: &[(usize, &RtValue)]) -> bool {
    let Some(&(_, first)) = lanes.first() else {
        return false;
    };
    let elem = first.elem();
    if !(elem.is_int() || elem.is_ptr()) {
        return false;
    }
    let mask = width_mask(elem);
    let align = u64::from(claim.align.max(1));
    for k in 0..first.lane_count() {
        let lane_value = |v: &RtValue| v.lane_bits(k).unwrap_or(0);
        match claim.stride {
            Some(s) => {
                let base_of = |i: usize, v: &RtValue| {
                    lane_value(v).wrapping_sub((i as u64).wrapping_mul(s as u64)) & mask
                };
                let base = base_of(lanes[0].0, lanes[0].1);
                if lanes.iter().any(|&(i, v)| base_of(i, v) != base) {
                    return true;
                }
                if align > 1 && elem.bits() > align.trailing_zeros() && base % align != 0 {
                    return true;
                }
            }
            None => {
                if align > 1 && lanes.iter().any(|&(_, v)| lane_value(v) % align != 0) {
                    return true;
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strided_and_aligned_claims() {
        let v = |x: i32| RtValue::i32(x);
        let (a, b, c) = (v(8), v(12), v(20));
        let lanes = [(0, &a), (1, &b), (3, &c)];
        assert!(!refutes(
            Claim {
                stride: Some(4),
                align: 8
            },
            &lanes
        ));
        assert!(refutes(
            Claim {
                stride: Some(4),
                align: 16
            },
            &lanes
        ));
        assert!(refutes(
            Claim {
                stride: Some(0),
                align: 1
            },
            &lanes
        ));
        assert!(!refutes(
            Claim {
                stride: None,
                align: 4
            },
            &lanes
        ));
        assert!(refutes(
            Claim {
                stride: None,
                align: 8
            },
            &lanes
        ));
        // Wrapping: i32::MAX then i32::MIN is stride 1.
        let (x, y) = (v(i32::MAX), v(i32::MIN));
        assert!(!refutes(
            Claim {
                stride: Some(1),
                align: 1
            },
            &[(0, &x), (1, &y)]
        ));
    }
}
