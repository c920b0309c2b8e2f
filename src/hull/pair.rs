//! Twice the area of the convex hull of two convex hulls: by bridges when their bounds are apart, else
//! by walking both together (rotating calipers).
//!
//! Every point is held as its hull's centre plus a vertex in the hull's own frame, and the pair is
//! measured in the frame of its first hull: a product with a point of the second hull is expanded
//! (`(t + p) × (t + q) = t × (q - p) + p × q`, t joining the centres), so no term is the distance
//! between the hulls times itself.

use super::tables::{
    ANGLE, CENTRE_X, CENTRE_Y, EDGE_X, EDGE_Y, FRAME_WIDTH, GUESS_BUCKETS, MAX_X, MAX_Y, MIN_X, MIN_Y, RUNNING, WIDTH,
    X, Y,
};
use crate::angles::{TURN, pseudo_angle};

/// Turns of a bridge towards the normal of the line through its ends before the pair is walked instead.
pub const BRIDGE_TURNS: usize = 8;
/// Pairs with a hull of more vertices than this are walked: the search on from a guess would take long steps.
pub const STEPPED_VERTICES: usize = 256;

/// One hull as the kernel reads it: its rows of the vertex table, its frame and its guesses.
#[derive(Clone, Copy)]
pub struct Hull<'a> {
    /// Its `count` vertices then vertex 0 again, `WIDTH` values a row (`tables`).
    pub rows: &'a [f64],
    pub count: usize,
    /// Its centre and bounds (`FRAME_WIDTH` values).
    pub frame: &'a [f64],
    /// Where the search for its furthest vertex in a direction of each bucket starts.
    pub guesses: &'a [i32],
}

/// A frame and guesses for a `Hull` that only the walk reads (`hull_walked`).
pub const NO_FRAME: [f64; FRAME_WIDTH] = [f64::NAN; FRAME_WIDTH];
pub const NO_GUESSES: [i32; GUESS_BUCKETS] = [0; GUESS_BUCKETS];

impl Hull<'_> {
    #[inline(always)]
    fn at(&self, vertex: usize, column: usize) -> f64 {
        self.rows[vertex * WIDTH + column]
    }

    #[inline(always)]
    fn x(&self, vertex: usize) -> f64 {
        self.at(vertex, X)
    }

    #[inline(always)]
    fn y(&self, vertex: usize) -> f64 {
        self.at(vertex, Y)
    }

    #[inline(always)]
    fn angle(&self, vertex: usize) -> f64 {
        self.at(vertex, ANGLE)
    }

    #[inline(always)]
    fn running(&self, vertex: usize) -> f64 {
        self.at(vertex, RUNNING)
    }

    /// The vertex furthest in the direction of pseudo-angle `angle`: the one after every normal below
    /// it, found from the guess for its bucket and a step or two (more when a bucket holds several
    /// normals). The row past the last vertex has an infinite angle; past the last normal is vertex 0.
    #[inline(always)]
    fn furthest(&self, angle: f64) -> usize {
        let mut vertex = self.guesses[bucket(angle)] as usize;
        while self.angle(vertex) < angle {
            vertex += 1;
        }
        if vertex < self.count { vertex } else { 0 }
    }

    /// Whether `vertex` is furthest in the direction `(n_x, n_y)`: the edge before it runs towards n and
    /// the one after it not (a point is furthest in every direction). The row past the last edge holds
    /// the edge before vertex 0.
    #[inline(always)]
    fn is_furthest(&self, vertex: usize, n_x: f64, n_y: f64) -> bool {
        let before = if vertex > 0 { vertex - 1 } else { self.count };
        self.count == 1
            || (self.at(before, EDGE_X) * n_x + self.at(before, EDGE_Y) * n_y > 0.0
                && self.at(vertex, EDGE_X) * n_x + self.at(vertex, EDGE_Y) * n_y <= 0.0)
    }
}

/// The guess bucket of a pseudo-angle: the last one for NaN (no direction) and for a whole turn (rounded up).
#[inline(always)]
fn bucket(angle: f64) -> usize {
    if (0.0..TURN).contains(&angle) { (angle * (GUESS_BUCKETS as f64 / TURN)) as usize } else { GUESS_BUCKETS - 1 }
}

/// Twice the area of the convex hull of `a ∪ b`; the same bits for `(b, a)`.
#[inline(always)]
pub fn twice_area(a: &Hull<'_>, b: &Hull<'_>) -> f64 {
    if a.count == 0 || b.count == 0 {
        return a.running(a.count) + b.running(b.count); // an empty hull adds nothing
    }
    let t_x = b.frame[CENTRE_X] - a.frame[CENTRE_X];
    let t_y = b.frame[CENTRE_Y] - a.frame[CENTRE_Y];
    let apart = a.frame[MAX_X] < b.frame[MIN_X]
        || b.frame[MAX_X] < a.frame[MIN_X]
        || a.frame[MAX_Y] < b.frame[MIN_Y]
        || b.frame[MAX_Y] < a.frame[MIN_Y];
    if apart && a.count <= STEPPED_VERTICES && b.count <= STEPPED_VERTICES {
        if let Some(twice) = bridged(a, b, t_x, t_y) {
            return twice;
        }
    }
    // Not apart, or a bridge not settled: the walk, in the canonical order (vertex count, centre, vertices).
    let after = if a.count != b.count { a.count > b.count } else { comes_after(a, b) };
    if after { walked(b, a, -t_x, -t_y) } else { walked(a, b, t_x, t_y) }
}

/// Twice the hull's area from the two outer tangents (bridges) of hulls whose bounds are apart, `t`
/// joining their centres; None when a bridge is not settled in `BRIDGE_TURNS` turns.
///
/// The lower bridge runs from a's vertex L_a to b's L_b (both hulls on its left: its outward normal
/// points right of t), the upper one from b's U_b to a's U_a. Each starts from both hulls' furthest
/// vertices in the normal of t. The hull runs U_a -> (along a) -> L_a -> L_b -> (along b) -> U_b -> U_a:
/// with a's vertices w and b's t + z, its shoelace sum is the two chains, each in its hull's frame
/// (running sums), plus `t × (z_U - z_L + w_U - w_L) + w_L × z_L + z_U × w_U`. Symmetric by
/// construction: from (b, a), t is exactly negated, each bridge comes out as the other one, and every
/// group of the sum has the same terms.
#[inline(always)]
fn bridged(a: &Hull<'_>, b: &Hull<'_>, t_x: f64, t_y: f64) -> Option<f64> {
    let (angle_l, angle_u) = opposite_pseudo_angles(t_y, -t_x);
    // The four searches are independent: the processor overlaps them.
    let (lower_a, upper_a) = (a.furthest(angle_l), a.furthest(angle_u));
    let (lower_b, upper_b) = (b.furthest(angle_l), b.furthest(angle_u));
    let (lower_a, lower_b) = settled(a, b, lower_a, lower_b, 1.0, t_x, t_y)?;
    let (upper_a, upper_b) = settled(a, b, upper_a, upper_b, -1.0, t_x, t_y)?;
    let mut chain_a = a.running(lower_a) - a.running(upper_a);
    if lower_a < upper_a {
        chain_a += a.running(a.count); // around past vertex 0
    }
    let mut chain_b = b.running(upper_b) - b.running(lower_b);
    if upper_b < lower_b {
        chain_b += b.running(b.count);
    }
    let (w_lx, w_ly) = (a.x(lower_a), a.y(lower_a));
    let (w_ux, w_uy) = (a.x(upper_a), a.y(upper_a));
    let (z_lx, z_ly) = (b.x(lower_b), b.y(lower_b));
    let (z_ux, z_uy) = (b.x(upper_b), b.y(upper_b));
    let (q_x, q_y) = ((z_ux - z_lx) + (w_ux - w_lx), (z_uy - z_ly) + (w_uy - w_ly));
    Some((chain_a + chain_b) + (t_x * q_y - t_y * q_x) + ((w_lx * z_ly - w_ly * z_lx) + (z_ux * w_uy - z_uy * w_ux)))
}

/// The ends `(i, j)` of the bridge on `side` (1: the lower, -1: the upper) from the ends `(i, j)`:
/// turned to the normal of the line through its ends until both ends are still the furthest vertices
/// in it (both hulls then lie on one side of it); None after `BRIDGE_TURNS` turns.
#[inline(always)]
fn settled(
    a: &Hull<'_>,
    b: &Hull<'_>,
    mut i: usize,
    mut j: usize,
    side: f64,
    t_x: f64,
    t_y: f64,
) -> Option<(usize, usize)> {
    for _ in 0..BRIDGE_TURNS {
        let e_x = t_x + (b.x(j) - a.x(i)); // from a's end to b's
        let e_y = t_y + (b.y(j) - a.y(i));
        let (n_x, n_y) = (side * e_y, -side * e_x);
        if a.is_furthest(i, n_x, n_y) && b.is_furthest(j, n_x, n_y) {
            return Some((i, j));
        }
        let angle = pseudo_angle(n_x, n_y);
        (i, j) = (a.furthest(angle), b.furthest(angle));
    }
    None
}

/// `(pseudo_angle(x, y), pseudo_angle(-x, -y))` with one division: the two share the ratio up to its
/// sign, which IEEE division gives exactly (`-x / d` is `-(x / d)`), and `1 - (-r)` is `1 + r`.
#[inline(always)]
pub fn opposite_pseudo_angles(x: f64, y: f64) -> (f64, f64) {
    let r = x / (x.abs() + y.abs());
    let angle = if y >= 0.0 { 1.0 - r } else { 3.0 + r };
    let opposite = if -y >= 0.0 { 1.0 + r } else { 3.0 - r };
    (angle, opposite)
}

/// Whether hull a comes after hull b (of as many vertices) in the canonical order: centre, then vertices.
fn comes_after(a: &Hull<'_>, b: &Hull<'_>) -> bool {
    for column in [CENTRE_X, CENTRE_Y] {
        if a.frame[column] != b.frame[column] {
            return a.frame[column] > b.frame[column];
        }
    }
    for vertex in 0..a.count {
        if a.x(vertex) != b.x(vertex) {
            return a.x(vertex) > b.x(vertex);
        }
        if a.y(vertex) != b.y(vertex) {
            return a.y(vertex) > b.y(vertex);
        }
    }
    false // the same hull
}

/// A point of the walk: a vertex of a (`of_b` false) or of b, in its hull's frame.
#[derive(Clone, Copy)]
struct Point {
    of_b: bool,
    x: f64,
    y: f64,
}

/// `P × Q` in a's frame, where a point of b is `t +` its vertex: expanded, so no term is `t × t`.
#[inline(always)]
fn cross(p: Point, q: Point, t_x: f64, t_y: f64) -> f64 {
    let mut cross = p.x * q.y - p.y * q.x;
    if p.of_b && q.of_b {
        cross += t_x * (q.y - p.y) - t_y * (q.x - p.x);
    } else if q.of_b {
        cross += p.x * t_y - p.y * t_x;
    } else if p.of_b {
        cross += t_x * q.y - t_y * q.x;
    }
    cross
}

/// Twice the hull's area by walking both hulls in the order of their normals (rotating calipers), b's
/// centre at `t` in a's frame.
///
/// At each edge, taken in the order of the normals' angles, each hull's current vertex is its furthest
/// in that normal: the edge is on the hull of the union if its hull reaches at least as far (its two
/// ends are listed), else the other hull's vertex is (listed once). The list starts at the vertex
/// further along +x; the shoelace sum over it is twice the hull's area.
pub fn walked(a: &Hull<'_>, b: &Hull<'_>, t_x: f64, t_y: f64) -> f64 {
    let start_of_b = !(a.x(0) >= t_x + b.x(0));
    let start = if start_of_b { Point { of_b: true, x: b.x(0), y: b.y(0) } } else { vertex_of_a(a, 0) };
    let mut previous = start;
    let mut twice = 0.0;
    let (mut i, mut j) = (0, 0); // the current vertices
    for _ in 0..a.count + b.count {
        let (angle_a, angle_b) = (a.angle(i), b.angle(j));
        let take_a = angle_a <= angle_b;
        if !((if take_a { angle_a } else { angle_b }) < f64::INFINITY) {
            break;
        }
        let (n_x, n_y) = if take_a {
            (a.y(i + 1) - a.y(i), a.x(i) - a.x(i + 1))
        } else {
            (b.y(j + 1) - b.y(j), b.x(j) - b.x(j + 1))
        };
        let reach_a = a.x(i) * n_x + a.y(i) * n_y;
        let reach_b = (t_x * n_x + t_y * n_y) + (b.x(j) * n_x + b.y(j) * n_y);
        let wins = if take_a { reach_a >= reach_b } else { reach_b >= reach_a };
        let first_of_b = take_a != wins; // a's vertex when a's edge wins or b's edge loses to a
        let first = if first_of_b { vertex_of_b(b, j) } else { vertex_of_a(a, i) };
        let second = if !wins {
            first
        } else if take_a {
            vertex_of_a(a, i + 1)
        } else {
            vertex_of_b(b, j + 1)
        };
        twice += cross(previous, first, t_x, t_y) + cross(first, second, t_x, t_y);
        previous = second;
        if take_a {
            i += 1;
        } else {
            j += 1;
        }
    }
    twice + cross(previous, start, t_x, t_y)
}

#[inline(always)]
fn vertex_of_a(a: &Hull<'_>, vertex: usize) -> Point {
    Point { of_b: false, x: a.x(vertex), y: a.y(vertex) }
}

#[inline(always)]
fn vertex_of_b(b: &Hull<'_>, vertex: usize) -> Point {
    Point { of_b: true, x: b.x(vertex), y: b.y(vertex) }
}
