//! The sum over edge pairs: `|A ∩ B| = Σ_e Σ_f σ_e σ_f |T_e ∩ T_f|` from the two sides' fans.
//!
//! Each term is the area shared by two triangles with the common apex O: inside the angle the two
//! share, each reaches from O to its edge's line, so the shared part reaches to the nearer of the two
//! lines, switching at most once, where they cross (`triangle_overlap`). Only edge pairs whose angles
//! overlap have a term; a cheap test on the pseudo-angles finds them, over every pair for small fans
//! (`every_cell`), by walks along both sides' edges sorted by angle for large ones (`cells_by_angle`).
//!
//! The terms have both signs and cancel, so they are summed with Neumaier's compensation (`Sum`): the
//! result is the rounded sum of the rounded terms, within `ROUNDING` times the sum of their magnitudes
//! of the true area, which lies in `[0, upper]`; where an end of that range is within the bound it is
//! the answer (`fan_overlap`).

use super::fan::Fan;
use crate::angles::TURN;
use crate::numeric::{clamp, max, min};
use crate::search::insertion_point;

/// Bound on the relative rounding error of one term (a generous count of its roundings, times 2^-53).
pub const ROUNDING: f64 = 64.0 * f64::EPSILON;
/// Edge pairs of a polygon pair above which only those whose angles may overlap are visited (both
/// sides' edges sorted by angle): below, testing every pair costs less than the sorts.
pub const SORTED_CELLS: usize = 1 << 14;
/// How much further than f's width the walk from f goes: covers the rounding of angles reckoned from f
/// rather than from e (a few units of 2^-52 on angles below `TURN`).
const ANGLE_SLACK: f64 = 1e-12;

/// A sum kept by Neumaier's method, with the sum of its terms' magnitudes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sum {
    pub total: f64,
    pub compensation: f64,
    pub magnitude: f64,
}

impl Sum {
    /// Add `term`: the terms cancel (both signs), so each addition's rounding is kept.
    #[inline(always)]
    fn add(&mut self, term: f64) {
        let running = self.total + term;
        if self.total.abs() >= term.abs() {
            self.compensation += (self.total - running) + term;
        } else {
            self.compensation += (term - running) + self.total;
        }
        self.total = running;
        self.magnitude += term.abs();
    }
}

/// `|A ∩ B|` from the two sides' fans in a frame of `scale`, clamped to the ends of `[0, upper]` in reach.
pub fn fan_overlap(fan_a: &Fan, fan_b: &Fan, scale: f64, upper: f64) -> f64 {
    let sum =
        if fan_a.len() * fan_b.len() <= SORTED_CELLS { every_cell(fan_a, fan_b) } else { cells_by_angle(fan_a, fan_b) };
    let mut area = (sum.total + sum.compensation) * scale * scale;
    let rounding = sum.magnitude * (ROUNDING * scale * scale);
    // The result is within `rounding` of the true area, which lies in [0, upper]. Where an end of that
    // range is within reach, it is the answer: a polygon inside the other (also an identical one) shares
    // exactly its own area, and polygons that only touch share exactly 0.
    if area >= upper - rounding {
        area = upper;
    }
    if area <= rounding { 0.0 } else { area }
}

/// The sum of the terms of the edge pairs whose angles overlap, testing every pair.
pub fn every_cell(fan_a: &Fan, fan_b: &Fan) -> Sum {
    let mut sum = Sum::default();
    for (e, edge) in fan_a.edges.iter().enumerate() {
        let (angle_e, width_e) = (edge.angle, edge.width);
        for (f, (&angle_f, &rest_f)) in fan_b.angles.iter().zip(&fan_b.rests).enumerate() {
            // The angle from the start of e's triangle to the start of f's, in [0, TURN].
            let mut turn = angle_f - angle_e;
            if turn < 0.0 {
                turn += TURN;
            }
            // Two angles (each below half a turn) overlap when either starts inside the other.
            let f_starts_in_e = turn < width_e;
            if f_starts_in_e || turn > rest_f {
                sum.add(triangle_overlap(fan_a, e, fan_b, f, turn, f_starts_in_e));
            }
        }
    }
    sum
}

/// `every_cell`'s sum (in another order), visiting only the edge pairs whose angles may overlap: for
/// large fans.
///
/// A pair's angles overlap when f starts inside e's angle or e inside f's. With each side's edges
/// sorted by their start angle, the edges f that start inside e's angle follow the first one at or
/// after e's start: `turn` grows along the sorted order from there (round the turn), so a walk forward
/// from e stops at the first f with `turn >= width_e`. The edges e that start inside f's angle are
/// found the same way from f, over a's sorted edges; there the walk reckons the turn from f, whose
/// roundings differ from `TURN - turn`, so it goes a little further (`ANGLE_SLACK`) and the test of
/// `every_cell` decides. Each kept pair is visited once.
pub fn cells_by_angle(fan_a: &Fan, fan_b: &Fan) -> Sum {
    let mut sum = Sum::default();
    let (order_a, sorted_a) = sorted(&fan_a.angles);
    let (order_b, sorted_b) = sorted(&fan_b.angles);
    let (count_a, count_b) = (order_a.len(), order_b.len());
    for (e, edge) in fan_a.edges.iter().enumerate() {
        let first = insertion_point(&sorted_b, 0, count_b, edge.angle, false);
        for step in 0..count_b {
            let f = order_b[(first + step) % count_b];
            let mut turn = fan_b.angles[f] - edge.angle;
            if turn < 0.0 {
                turn += TURN;
            }
            if !(turn < edge.width) {
                break;
            }
            sum.add(triangle_overlap(fan_a, e, fan_b, f, turn, true));
        }
    }
    for (f, edge) in fan_b.edges.iter().enumerate() {
        let first = insertion_point(&sorted_a, 0, count_a, edge.angle, false);
        for step in 0..count_a {
            let e = order_a[(first + step) % count_a];
            let mut from_f = fan_a.angles[e] - edge.angle;
            if from_f < 0.0 {
                from_f += TURN;
            }
            if !(from_f < edge.width + ANGLE_SLACK) {
                break;
            }
            let mut turn = edge.angle - fan_a.angles[e];
            if turn < 0.0 {
                turn += TURN;
            }
            if !(turn < fan_a.edges[e].width) && turn > edge.rest {
                sum.add(triangle_overlap(fan_a, e, fan_b, f, turn, false));
            }
        }
    }
    sum
}

/// The indices that sort `keys` (no NaN among them) in ascending order, and the sorted keys.
///
/// Ties (edges starting at one vertex, copies sharing vertices) are ordered by index: the walks add
/// the terms of edges of equal angles in the sorted order, and although the compensated sum is almost
/// always the correctly rounded sum of its terms whatever their order (no bit changed with the ties
/// reversed over 300 pairs of combs and stars with 40 000 ties), the order is made total so that the
/// result never depends on the sort's algorithm.
fn sorted(keys: &[f64]) -> (Vec<usize>, Vec<f64>) {
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_unstable_by(|&i, &j| keys[i].total_cmp(&keys[j]).then(i.cmp(&j)));
    let sorted_keys = order.iter().map(|&k| keys[k]).collect();
    (order, sorted_keys)
}

/// Signed `σ_e σ_f |T_e ∩ T_f|` of two edges whose angles overlap.
///
/// `turn` is the angle from the start of e to the start of f and `f_starts_in_e` whether f's start
/// lies in e's angle: the shared angle then runs from f's start, else from e's.
#[inline(always)]
fn triangle_overlap(fan_a: &Fan, e: usize, fan_b: &Fan, f: usize, turn: f64, f_starts_in_e: bool) -> f64 {
    let (edge_e, edge_f) = (&fan_a.edges[e], &fan_b.edges[f]);
    // The shared angle runs from s (the later start) to t (the earlier end).
    let mut end_turn = turn + edge_f.width;
    if end_turn >= TURN {
        end_turn -= TURN;
    }
    let f_ends_in_e = end_turn <= edge_e.width;
    let (sx, sy) = if f_starts_in_e { (edge_f.ux, edge_f.uy) } else { (edge_e.ux, edge_e.uy) };
    let (tx, ty) = if f_ends_in_e { (edge_f.vx, edge_f.vy) } else { (edge_e.vx, edge_e.vy) };
    let wedge = sx * ty - sy * tx;
    if !(wedge > 0.0) {
        return 0.0;
    }
    // How far each triangle reaches along s and t: its edge's line at λ·s, λ·t.
    let (dex, dey) = (edge_e.vx - edge_e.ux, edge_e.vy - edge_e.uy);
    let (dfx, dfy) = (edge_f.vx - edge_f.ux, edge_f.vy - edge_f.uy);
    let reach = Reach {
        se: edge_e.twice / (sx * dey - sy * dex),
        sf: edge_f.twice / (sx * dfy - sy * dfx),
        te: edge_e.twice / (tx * dey - ty * dex),
        tf: edge_f.twice / (tx * dfy - ty * dfx),
    };
    let (near_s, near_t) = (nearer(reach.se, reach.sf), nearer(reach.te, reach.tf));
    let area = if (reach.se <= reach.sf) != (reach.te <= reach.tf) {
        area_past_crossing((sx, sy), (tx, ty), reach, near_s, near_t)
    } else {
        0.5 * near_s * near_t * wedge
    };
    // A term is at most the smaller triangle. Only a nearly flat triangle (O almost on its edge's line)
    // can make the closed form overflow; its whole area, the most this can be off by, is tiny.
    if !area.is_finite() {
        return 0.0;
    }
    min(max(area, 0.0), 0.5 * min(edge_e.twice, edge_f.twice)) * (edge_e.sign * edge_f.sign)
}

/// NaN if either is NaN, else `b` unless `a < b` (of two equal zeros, `b`'s sign).
#[inline(always)]
fn nearer(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a < b {
        a
    } else {
        b
    }
}

/// How far e's and f's lines are along the rays s and t of a shared angle (in units of each ray).
#[derive(Clone, Copy)]
struct Reach {
    se: f64,
    sf: f64,
    te: f64,
    tf: f64,
}

/// Area from O to the nearer line when the nearer line changes inside the angle: O, n_s, X, n_t.
#[inline(always)]
fn area_past_crossing((sx, sy): (f64, f64), (tx, ty): (f64, f64), reach: Reach, near_s: f64, near_t: f64) -> f64 {
    // The two lines between the rays: e from (se·s) to (te·t), f from (sf·s) to (tf·t); X where they cross.
    let Reach { se, sf, te, tf } = reach;
    let (ax, ay) = (se * sx, se * sy);
    let (aex, aey) = (te * tx - ax, te * ty - ay);
    let (bx, by) = (sf * sx, sf * sy);
    let (bfx, bfy) = (tf * tx - bx, tf * ty - by);
    let tau = ((bx - ax) * bfy - (by - ay) * bfx) / (aex * bfy - aey * bfx);
    let tau = if tau.is_nan() { 0.0 } else { clamp(tau, 0.0, 1.0) };
    let (xx, xy) = (ax + tau * aex, ay + tau * aey);
    let (nsx, nsy) = (near_s * sx, near_s * sy);
    let (ntx, nty) = (near_t * tx, near_t * ty);
    0.5 * ((nsx * xy - nsy * xx) + (xx * nty - xy * ntx))
}
