//! A side of a pair laid out in the pair's frame: a "fan" of triangles, one per ring edge, with the
//! common apex O (the frame's origin).
//!
//! Each edge with O spans a triangle signed by the edge's direction; the signed triangles of a
//! polygon add up to its indicator function. Per edge the fan keeps its two rays from O in
//! counter-clockwise order (so the triangle runs from ray u to ray v), twice its area, its sign in
//! the polygon's sum and the pseudo-angles it spans: what `overlap` needs to find the edge pairs whose
//! triangles share an angle and to measure them.

use super::Store;
use crate::angles::{TURN, pseudo_angle};

/// One edge of a fan: its triangle with O, running counter-clockwise from ray u to ray v.
#[derive(Clone, Copy, Debug, Default)]
pub struct Edge {
    pub ux: f64,
    pub uy: f64,
    pub vx: f64,
    pub vy: f64,
    /// Twice the triangle's area (positive).
    pub twice: f64,
    /// +1 or -1: the triangle's sign in the polygon's sum.
    pub sign: f64,
    /// The pseudo-angle of u.
    pub angle: f64,
    /// The triangle's angle (below half a turn) and `TURN - width`.
    pub width: f64,
    pub rest: f64,
}

/// The edges of one side, in the order of its rings; the angles and rests again in their own vectors
/// (the test of every edge pair reads only those of the inner side).
#[derive(Default)]
pub struct Fan {
    pub edges: Vec<Edge>,
    pub angles: Vec<f64>,
    pub rests: Vec<f64>,
}

/// The frame a fan is laid out in: points are taken as `((x - ox) · inverse, (y - oy) · inverse)`.
#[derive(Clone, Copy)]
pub struct Frame {
    pub ox: f64,
    pub oy: f64,
    pub inverse: f64,
}

impl Fan {
    /// The edges the fan has room for.
    pub fn capacity(&self) -> usize {
        self.edges.capacity()
    }

    pub fn clear(&mut self) {
        self.edges.clear();
        self.angles.clear();
        self.rests.clear();
    }

    pub fn len(&self) -> usize {
        self.edges.len()
    }

    /// Lay out polygon `g` of `store` (every ring of every part) in `frame`, replacing what the fan held.
    pub fn of_polygon(&mut self, store: &Store<'_>, g: usize, frame: Frame) {
        self.clear();
        let (first_vertex, stop_vertex) = store.vertices(g);
        self.reserve(stop_vertex - first_vertex);
        let (first_part, stop_part) = (store.geometry_offsets[g] as usize, store.geometry_offsets[g + 1] as usize);
        for part in first_part..stop_part {
            let (first_ring, stop_ring) = (store.part_offsets[part] as usize, store.part_offsets[part + 1] as usize);
            for ring in first_ring..stop_ring {
                let (start, stop) = (store.ring_offsets[ring] as usize, store.ring_offsets[ring + 1] as usize);
                if stop <= start {
                    continue; // a ring of no vertex has no edge
                }
                let points = &store.coords[2 * start..2 * stop];
                let weight = ring_weight(points, ring == first_ring);
                self.add_ring(points, frame, weight);
            }
        }
    }

    /// Room for `edges` edges more.
    pub fn reserve(&mut self, edges: usize) {
        self.edges.reserve(edges);
        self.angles.reserve(edges);
        self.rests.reserve(edges);
    }

    /// Add the edges of the closed ring `points` (x, y pairs) of `weight`, taken in `frame`.
    ///
    /// A flat triangle (O on the edge's line) has no area and shares none: it is left out.
    pub fn add_ring(&mut self, points: &[f64], frame: Frame, weight: f64) {
        let at =
            |k: usize| ((points[2 * k] - frame.ox) * frame.inverse, (points[2 * k + 1] - frame.oy) * frame.inverse);
        let (mut px, mut py) = at(0);
        let mut angle_p = pseudo_angle(px, py); // each vertex's angle serves both its edges
        for k in 1..points.len() / 2 {
            let (qx, qy) = at(k);
            let angle_q = pseudo_angle(qx, qy);
            let cross = px * qy - py * qx;
            if cross > 0.0 {
                self.push((px, py), (qx, qy), angle_p, angle_q, cross, weight);
            } else if cross < 0.0 {
                self.push((qx, qy), (px, py), angle_q, angle_p, -cross, -weight);
            }
            (px, py, angle_p) = (qx, qy, angle_q);
        }
    }

    fn push(&mut self, u: (f64, f64), v: (f64, f64), angle_u: f64, angle_v: f64, twice: f64, sign: f64) {
        let mut width = angle_v - angle_u;
        if width < 0.0 {
            width += TURN;
        }
        let rest = TURN - width;
        self.edges.push(Edge { ux: u.0, uy: u.1, vx: v.0, vy: v.1, twice, sign, angle: angle_u, width, rest });
        self.angles.push(angle_u);
        self.rests.push(rest);
    }
}

/// +1 if the closed ring `points` adds area in its direction (counter-clockwise exterior, clockwise
/// hole), else -1.
///
/// The direction is the sign of the shoelace sum taken relative to the ring's first vertex, as
/// `RaggedPolygons.ring_signed_area` takes it.
pub fn ring_weight(points: &[f64], exterior: bool) -> f64 {
    let (x0, y0) = (points[0], points[1]);
    let mut total = 0.0;
    for k in 0..points.len() / 2 - 1 {
        let (px, py) = (points[2 * k] - x0, points[2 * k + 1] - y0);
        let (qx, qy) = (points[2 * k + 2] - x0, points[2 * k + 3] - y0);
        total += px * qy - qx * py;
    }
    if (total / 2.0 > 0.0) == exterior { 1.0 } else { -1.0 }
}
