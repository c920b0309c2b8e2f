//! A pair of oriented boxes in the frame of one of them: what the intersection and the hull share.
//!
//! A box is 15 numbers (`Box15`): its centre, its sizes along its own axes and the rotation matrix
//! whose columns are those axes, row by row. In the frame of the *frame box* `f` (centred on it,
//! along its axes) the other box `o` is known by its centre `t` and the directions of its axes
//! (`rel[k][j]`, axis k of `f` dotted with axis j of `o`). Only differences of centres enter, so
//! boxes far from the origin keep the precision of their sizes; an axis of `o` that equals an axis
//! of `f` up to sign, bit for bit, is taken as exactly that axis (yaw boxes share their vertical axis).

use crate::numeric::{max, min};
use crate::rotated::extent;

/// An oriented box: `cx, cy, cz, dx, dy, dz, r00, r01, r02, r10, r11, r12, r20, r21, r22`.
pub(crate) type Box15 = [f64; 15];

/// Half the extent of `b` along the data's `axis`: `Σ_j |R[axis, j]| · d_j / 2` (as `OrientedBox3D.bounds`).
#[inline(always)]
fn reach(b: &Box15, axis: usize) -> f64 {
    let row = 6 + 3 * axis;
    (b[row].abs() * (0.5 * b[3]) + b[row + 1].abs() * (0.5 * b[4])) + b[row + 2].abs() * (0.5 * b[5])
}

/// Whether the bounds of the two boxes overlap with no positive volume (the test of the candidate search).
#[inline(always)]
pub(super) fn bounds_apart(a: &Box15, b: &Box15) -> bool {
    let (a_volume, b_volume) = (a[3] * a[4] * a[5] > 0.0, b[3] * b[4] * b[5] > 0.0);
    (0..3).any(|axis| {
        let (a_low, a_high) = extent(a[axis], reach(a, axis), a_volume);
        let (b_low, b_high) = extent(b[axis], reach(b, axis), b_volume);
        max(a_low, b_low) >= min(a_high, b_high)
    })
}

/// Whether `a` comes before `b` in the order of their 15 numbers: the canonical order of a pair.
#[inline(always)]
pub(super) fn comes_before(a: &Box15, b: &Box15) -> bool {
    for k in 0..15 {
        if a[k] != b[k] {
            return a[k] < b[k];
        }
    }
    false
}

/// Whether the sum of both boxes' numbers is NaN (a NaN, or infinities of both signs).
#[inline(always)]
pub(super) fn any_nan(a: &Box15, b: &Box15) -> bool {
    let mut total = 0.0;
    for k in 0..15 {
        total += a[k] + b[k];
    }
    total.is_nan()
}

/// 1 or -1 when axis j of `o` is axis k of `f` or its opposite, bit for bit; else 0.
#[inline(always)]
fn axis_sign(f: &Box15, k: usize, o: &Box15, j: usize) -> f64 {
    let (mut same, mut opposite) = (true, true);
    for i in 0..3 {
        let (fi, oi) = (f[6 + 3 * i + k], o[6 + 3 * i + j]);
        same = same && fi == oi;
        opposite = opposite && fi == -oi;
    }
    if same {
        1.0
    } else if opposite {
        -1.0
    } else {
        0.0
    }
}

/// A pair in the frame of `f`: the centre `t` of `o`, `rel[k][j]` (axis k of `f` dotted with axis j of
/// `o`) and both boxes' half sizes.
pub(super) struct Frame {
    pub t: [f64; 3],
    pub rel: [[f64; 3]; 3],
    pub half_f: [f64; 3],
    pub half_o: [f64; 3],
}

/// `o` in the frame of `f`.
///
/// An axis of `o` equal to one of `f` up to sign (bit for bit) gives exactly ±1 there and 0 in the
/// rest of its row and column, so boxes that share an axis are exactly aligned along it.
#[inline(always)]
pub(super) fn pair_in_frame(f: &Box15, o: &Box15) -> Frame {
    let (dx, dy, dz) = (o[0] - f[0], o[1] - f[1], o[2] - f[2]); // the difference first: far pairs keep their digits
    let mut rel = [[0.0; 3]; 3];
    for (k, row) in rel.iter_mut().enumerate() {
        for (j, value) in row.iter_mut().enumerate() {
            *value = (f[6 + k] * o[6 + j] + f[9 + k] * o[9 + j]) + f[12 + k] * o[12 + j];
        }
    }
    for j in 0..3 {
        for k in 0..3 {
            let sign = axis_sign(f, k, o, j);
            if sign != 0.0 {
                rel[k] = [0.0; 3];
                for row in rel.iter_mut() {
                    row[j] = 0.0;
                }
                rel[k][j] = sign;
            }
        }
    }
    let t = [
        (f[6] * dx + f[9] * dy) + f[12] * dz,
        (f[7] * dx + f[10] * dy) + f[13] * dz,
        (f[8] * dx + f[11] * dy) + f[14] * dz,
    ];
    let half_f = [0.5 * f[3], 0.5 * f[4], 0.5 * f[5]];
    let half_o = [0.5 * o[3], 0.5 * o[4], 0.5 * o[5]];
    Frame { t, rel, half_f, half_o }
}

/// Whether one box lies inside the other. Rounding can misjudge only a box that sticks out by a
/// rounding-sized sliver.
#[inline(always)]
pub(super) fn contained(frame: &Frame) -> bool {
    let Frame { t, rel, half_f, half_o } = frame;
    let (mut inside_f, mut inside_o) = (true, true);
    for k in 0..3 {
        let mut reach = t[k].abs();
        for j in 0..3 {
            reach += rel[k][j].abs() * half_o[j];
        }
        inside_f = inside_f && reach <= half_f[k];
    }
    for j in 0..3 {
        let (mut along, mut reach) = (0.0, 0.0);
        for k in 0..3 {
            along += rel[k][j] * t[k];
            reach += rel[k][j].abs() * half_f[k];
        }
        inside_o = inside_o && along.abs() + reach <= half_o[j];
    }
    inside_f || inside_o
}
