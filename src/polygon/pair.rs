//! One pair: its pruning by bounds, its frame, its canonical order, and the shared area of a polygon
//! with a polygon, a rotated box or a box.
//!
//! The frame's origin O is the centre of the pair's common bounds and its scale a power of two of the
//! pair's reach from O, so the result does not depend on where the pair lies (coordinates at 1e15,
//! near 1e-300, or near the smallest normal float behave alike). A box's four edges are built relative
//! to O (a rotated box: its centre minus O first, then its rotated half sizes), never as a polygon in
//! absolute coordinates.

use std::cmp::Ordering;

use super::Store;
use super::fan::{Fan, Frame};
use super::overlap::fan_overlap;
use crate::angles::unit_vector;
use crate::numeric::{frexp, ldexp, max, min};

/// `xmin, ymin, xmax, ymax`; NaN for an empty polygon.
pub type Bounds = [f64; 4];

/// The two fans a pair lays out, kept from pair to pair (their room is reused).
#[derive(Default)]
pub struct Scratch {
    a: Fan,
    b: Fan,
}

impl Scratch {
    /// The edges the two fans have room for.
    pub fn capacity(&self) -> usize {
        self.a.capacity() + self.b.capacity()
    }
}

/// Whether two bounds overlap with positive area; touching and NaN (empty) bounds do not.
#[inline(always)]
pub fn bounds_overlap(a: &Bounds, b: &Bounds) -> bool {
    max(a[0], b[0]) < min(a[2], b[2]) && max(a[1], b[1]) < min(a[3], b[3])
}

/// The bounds of polygon `g` from its vertices (Python's `min` and `max`: exact, the store's bounds).
pub fn geometry_bounds(store: &Store<'_>, g: usize) -> Bounds {
    let (start, stop) = store.vertices(g);
    if stop == start {
        return [f64::NAN; 4];
    }
    let (mut xmin, mut ymin) = (store.coords[2 * start], store.coords[2 * start + 1]);
    let (mut xmax, mut ymax) = (xmin, ymin);
    for point in store.coords[2 * start + 2..2 * stop].chunks_exact(2) {
        let (x, y) = (point[0], point[1]);
        (xmin, xmax) = (min(xmin, x), max(xmax, x));
        (ymin, ymax) = (min(ymin, y), max(ymax, y));
    }
    [xmin, ymin, xmax, ymax]
}

/// The origin (the centre of the common bounds) and power-of-two scale of a pair's frame.
fn frame(a: &Bounds, b: &Bounds) -> (f64, f64, f64) {
    // Halves first: the sum could overflow near the largest float.
    let ox = max(a[0], b[0]) / 2.0 + min(a[2], b[2]) / 2.0;
    let oy = max(a[1], b[1]) / 2.0 + min(a[3], b[3]) / 2.0;
    let reach = max(
        max((min(a[0], b[0]) - ox).abs(), (min(a[1], b[1]) - oy).abs()),
        max((max(a[2], b[2]) - ox).abs(), (max(a[3], b[3]) - oy).abs()),
    );
    let (_, exponent) = frexp(if reach > 0.0 { reach } else { 1.0 });
    (ox, oy, ldexp(1.0, exponent))
}

/// The shared area of polygon `g_a` of `store_a` and `g_b` of `store_b`, of bounds `bounds_a` and
/// `bounds_b` (0 when the bounds do not overlap).
///
/// The two are measured in a canonical order (`polygon_order`), so `(a, b)` and `(b, a)` run the same
/// arithmetic and give the same bits.
pub fn polygon_pair(
    scratch: &mut Scratch,
    (store_a, g_a, bounds_a): (&Store<'_>, usize, &Bounds),
    (store_b, g_b, bounds_b): (&Store<'_>, usize, &Bounds),
) -> f64 {
    if !bounds_overlap(bounds_a, bounds_b) {
        return 0.0;
    }
    let (ox, oy, scale) = frame(bounds_a, bounds_b);
    let frame = Frame { ox, oy, inverse: 1.0 / scale };
    scratch.a.of_polygon(store_a, g_a, frame);
    scratch.b.of_polygon(store_b, g_b, frame);
    let upper = min(store_a.area[g_a], store_b.area[g_b]);
    if polygon_order(store_b, g_b, store_a, g_a) == Ordering::Less {
        return fan_overlap(&scratch.b, &scratch.a, scale, upper);
    }
    fan_overlap(&scratch.a, &scratch.b, scale, upper)
}

/// Polygons `g_a` and `g_b` laid out in their pair's frame, in this order (for the tests of the sums).
pub fn fans_of(store_a: &Store<'_>, g_a: usize, store_b: &Store<'_>, g_b: usize) -> (Fan, Fan) {
    let (ox, oy, scale) = frame(&geometry_bounds(store_a, g_a), &geometry_bounds(store_b, g_b));
    let frame = Frame { ox, oy, inverse: 1.0 / scale };
    let (mut fan_a, mut fan_b) = (Fan::default(), Fan::default());
    fan_a.of_polygon(store_a, g_a, frame);
    fan_b.of_polygon(store_b, g_b, frame);
    (fan_a, fan_b)
}

/// A rotated box `cx, cy, w, h, angle` as its pair function reads it: its centre, unit vector, half
/// sizes, half extents along x and y, and area `w · h`.
#[derive(Clone, Copy, Debug)]
pub struct RotatedFrame {
    pub cx: f64,
    pub cy: f64,
    pub cos: f64,
    pub sin: f64,
    pub half_w: f64,
    pub half_h: f64,
    pub reach_x: f64,
    pub reach_y: f64,
    pub area: f64,
}

impl RotatedFrame {
    /// The frame of the box `cx, cy, w, h, angle` (degrees; exact at multiples of 90).
    pub fn of(cx: f64, cy: f64, w: f64, h: f64, angle: f64) -> RotatedFrame {
        let (cos, sin) = unit_vector(angle);
        let (half_w, half_h) = (0.5 * w, 0.5 * h);
        RotatedFrame {
            cx,
            cy,
            cos,
            sin,
            half_w,
            half_h,
            reach_x: cos.abs() * half_w + sin.abs() * half_h,
            reach_y: sin.abs() * half_w + cos.abs() * half_h,
            area: w * h,
        }
    }

    /// Whether the box and a polygon's bounds overlap with positive area.
    ///
    /// Bounds relative to the box's centre: differences of nearby floats are exact, so a sliver of
    /// overlap is not lost to the rounding of the box's absolute bounds far from the origin.
    #[inline(always)]
    pub fn meets(&self, bounds: &Bounds) -> bool {
        let own = [-self.reach_x, -self.reach_y, self.reach_x, self.reach_y];
        let [x0, y0, x1, y1] = *bounds;
        bounds_overlap(&own, &[x0 - self.cx, y0 - self.cy, x1 - self.cx, y1 - self.cy])
    }
}

/// The shared area of a rotated box and polygon `g` of bounds `bounds`.
pub fn rotated_polygon_pair(
    scratch: &mut Scratch,
    frame_box: &RotatedFrame,
    store: &Store<'_>,
    g: usize,
    bounds: &Bounds,
) -> f64 {
    if !frame_box.meets(bounds) {
        return 0.0;
    }
    let RotatedFrame { cx, cy, cos, sin, half_w, half_h, reach_x, reach_y, area } = *frame_box;
    let (ox, oy, scale) = frame(&[cx - reach_x, cy - reach_y, cx + reach_x, cy + reach_y], bounds);
    let inverse = 1.0 / scale;
    // The corners (-, -), (+, -), (+, +), (-, +) of the half sizes and back to the first, counter-clockwise:
    // the centre relative to O first (exact near O), then the rotated half sizes.
    let (centre_x, centre_y) = (cx - ox, cy - oy);
    let mut corners = [0.0; 10];
    for corner in 0..5 {
        let x = if corner == 0 || corner >= 3 { -half_w } else { half_w };
        let y = if corner <= 1 || corner == 4 { -half_h } else { half_h };
        corners[2 * corner] = centre_x + (cos * x - sin * y);
        corners[2 * corner + 1] = centre_y + (sin * x + cos * y);
    }
    scratch.a.clear();
    scratch.a.add_ring(&corners, Frame { ox: 0.0, oy: 0.0, inverse }, 1.0);
    scratch.b.of_polygon(store, g, Frame { ox, oy, inverse });
    fan_overlap(&scratch.a, &scratch.b, scale, min(area, store.area[g]))
}

/// The shared area of an axis-aligned box `x1, y1, x2, y2` and polygon `g` of bounds `bounds`.
pub fn box_polygon_pair(scratch: &mut Scratch, corners: &Bounds, store: &Store<'_>, g: usize, bounds: &Bounds) -> f64 {
    if !bounds_overlap(corners, bounds) {
        return 0.0;
    }
    let [x1, y1, x2, y2] = *corners;
    let (ox, oy, scale) = frame(corners, bounds);
    let frame = Frame { ox, oy, inverse: 1.0 / scale };
    scratch.a.clear();
    scratch.a.add_ring(&[x1, y1, x2, y1, x2, y2, x1, y2, x1, y1], frame, 1.0);
    scratch.b.of_polygon(store, g, frame);
    // The box's area as `Box.area` computes it, so a box inside the polygon shares exactly its area.
    fan_overlap(&scratch.a, &scratch.b, scale, min((x2 - x1) * (y2 - y1), store.area[g]))
}

/// Whether polygon a comes before, is the same as, or comes after polygon b in a total order.
///
/// The order compares the vertices in turn (the sign of a zero counts), then the layout of rings and
/// parts; the first vertex decides almost always. Only equal polygons compare equal.
pub fn polygon_order(store_a: &Store<'_>, g_a: usize, store_b: &Store<'_>, g_b: usize) -> Ordering {
    let ((start_a, stop_a), (start_b, stop_b)) = (store_a.vertices(g_a), store_b.vertices(g_b));
    let vertices_a = &store_a.coords[2 * start_a..2 * stop_a];
    let vertices_b = &store_b.coords[2 * start_b..2 * stop_b];
    let order = vertices_a.len().cmp(&vertices_b.len());
    if order.is_ne() {
        return order;
    }
    for (&x, &y) in vertices_a.iter().zip(vertices_b) {
        let order = float_order(x, y);
        if order.is_ne() {
            return order;
        }
    }
    let count = |offsets: &[i64], k: usize| offsets[k + 1] - offsets[k];
    let (first_a, first_b) = (store_a.geometry_offsets[g_a] as usize, store_b.geometry_offsets[g_b] as usize);
    let parts = count(store_a.geometry_offsets, g_a);
    let order = parts.cmp(&count(store_b.geometry_offsets, g_b));
    if order.is_ne() {
        return order;
    }
    for p in 0..parts as usize {
        let (part_a, part_b) = (first_a + p, first_b + p);
        let rings = count(store_a.part_offsets, part_a);
        let order = rings.cmp(&count(store_b.part_offsets, part_b));
        if order.is_ne() {
            return order;
        }
        let (ring_a, ring_b) = (store_a.part_offsets[part_a] as usize, store_b.part_offsets[part_b] as usize);
        for r in 0..rings as usize {
            let order = count(store_a.ring_offsets, ring_a + r).cmp(&count(store_b.ring_offsets, ring_b + r));
            if order.is_ne() {
                return order;
            }
        }
    }
    Ordering::Equal
}

/// `x` before `y` if smaller, -0.0 before 0.0 (equal as numbers, not the same bits); a NaN after all.
fn float_order(x: f64, y: f64) -> Ordering {
    if x != y {
        return if x < y { Ordering::Less } else { Ordering::Greater };
    }
    x.is_sign_positive().cmp(&y.is_sign_positive())
}
