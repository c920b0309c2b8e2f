//! The kernel's tables of a set of convex hulls, derived once per `ConvexHulls` and cached on it.
//!
//! Hull k owns the rows `slots[k] .. slots[k + 1]` of the vertex table (`WIDTH` columns each): its
//! `count` vertices counter-clockwise, in a frame centred on its bounds, starting at the edge whose
//! outward normal has the smallest pseudo-angle (so the angles rise along the hull), then vertex 0
//! again (an infinite angle, the whole running sum: twice the hull's area). Its frame row holds the
//! centre and the bounds; its guess row, for each of `GUESS_BUCKETS` directions, the number of its
//! normals below the bucket's start.

use crate::angles::{TURN, pseudo_angle};
use crate::numeric::{max, min};

/// Directions of the first-guess table of each hull: one per 1/16 of pseudo-angle (a turn is 4).
pub const GUESS_BUCKETS: usize = 64;

/// Columns of the vertex table: the vertex in its hull's frame, the pseudo-angle of the outward normal
/// of the edge it starts (inf past the last edge), the running shoelace sum up to it, and that edge as
/// a vector (past the last edge: the last edge, the one before vertex 0).
pub const WIDTH: usize = 6;
pub const X: usize = 0;
pub const Y: usize = 1;
pub const ANGLE: usize = 2;
pub const RUNNING: usize = 3;
pub const EDGE_X: usize = 4;
pub const EDGE_Y: usize = 5;

/// Columns of the frame table: the hull's centre (the centre of its bounds), then its bounds.
pub const FRAME_WIDTH: usize = 6;
pub const CENTRE_X: usize = 0;
pub const CENTRE_Y: usize = 1;
pub const MIN_X: usize = 2;
pub const MIN_Y: usize = 3;
pub const MAX_X: usize = 4;
pub const MAX_Y: usize = 5;

/// The tables of `H` hulls, flat and row-major: vertices `(V, WIDTH)`, frames `(H, FRAME_WIDTH)`
/// (NaN for an empty hull), slots `(H + 1,)`, guesses `(H, GUESS_BUCKETS)`.
pub struct Tables {
    pub vertices: Vec<f64>,
    pub frames: Vec<f64>,
    pub slots: Vec<i64>,
    pub guesses: Vec<i32>,
}

/// The vertices of hull k, `coords[offsets[k]..offsets[k + 1]]` (rows of x, y) without the repeated
/// first vertex of a closed ring.
fn vertex_count(coords: &[f64], first: usize, stop: usize) -> usize {
    let count = stop - first;
    let closed =
        count > 1 && coords[2 * first] == coords[2 * (stop - 1)] && coords[2 * first + 1] == coords[2 * (stop - 1) + 1];
    if closed { count - 1 } else { count }
}

/// The tables of the hulls `coords[offsets[k]..offsets[k + 1]]` (rows of x, y; rings in either
/// direction, closed or not). `offsets` rises from 0 to at most the number of rows (checked by the
/// caller).
pub fn derive(coords: &[f64], offsets: &[usize]) -> Tables {
    let size = offsets.len() - 1;
    let mut slots = vec![0i64; size + 1];
    let mut longest = 0;
    for k in 0..size {
        let count = vertex_count(coords, offsets[k], offsets[k + 1]);
        slots[k + 1] = slots[k] + count as i64 + 1;
        longest = longest.max(count);
    }
    let mut tables = Tables {
        vertices: vec![0.0; slots[size] as usize * WIDTH],
        frames: vec![f64::NAN; size * FRAME_WIDTH],
        slots,
        guesses: vec![0; size * GUESS_BUCKETS],
    };
    let mut local = vec![[0.0; 2]; longest];
    for k in 0..size {
        let start = tables.slots[k] as usize;
        let count = tables.slots[k + 1] as usize - start - 1;
        let rows = &mut tables.vertices[start * WIDTH..(start + count + 1) * WIDTH];
        rows[count * WIDTH + ANGLE] = f64::INFINITY; // past the last edge (an empty hull's only row)
        if count == 0 {
            continue;
        }
        let points = &coords[2 * offsets[k]..2 * (offsets[k] + count)];
        let frame = &mut tables.frames[k * FRAME_WIDTH..(k + 1) * FRAME_WIDTH];
        let local = &mut local[..count];
        let twice = centred(points, frame, local);
        ordered(local, twice, rows);
        accumulated(rows, count);
        guessed(rows, count, &mut tables.guesses[k * GUESS_BUCKETS..(k + 1) * GUESS_BUCKETS]);
    }
    tables
}

/// Write the bounds and their centre of the hull's `points` (x, y pairs) into `frame`, its vertices
/// relative to the centre into `local`, and return twice its signed area in that frame.
fn centred(points: &[f64], frame: &mut [f64], local: &mut [[f64; 2]]) -> f64 {
    let (mut min_x, mut min_y) = (points[0], points[1]);
    let (mut max_x, mut max_y) = (min_x, min_y);
    for point in points.chunks_exact(2).skip(1) {
        (min_x, max_x) = (min(min_x, point[0]), max(max_x, point[0]));
        (min_y, max_y) = (min(min_y, point[1]), max(max_y, point[1]));
    }
    let (centre_x, centre_y) = (min_x / 2.0 + max_x / 2.0, min_y / 2.0 + max_y / 2.0); // halves first: no overflow
    frame.copy_from_slice(&[centre_x, centre_y, min_x, min_y, max_x, max_y]);
    for (vertex, point) in local.iter_mut().zip(points.chunks_exact(2)) {
        *vertex = [point[0] - centre_x, point[1] - centre_y];
    }
    let count = local.len();
    let mut twice = 0.0;
    for i in 0..count {
        let following = if i + 1 < count { i + 1 } else { 0 };
        twice += local[i][0] * local[following][1] - local[i][1] * local[following][0];
    }
    twice
}

/// Write the vertices `local` counter-clockwise into the x and y columns of `rows`, from the one whose
/// edge has the outward normal of the smallest angle, then that vertex again.
///
/// Vertex `rank` is input vertex `rank`, or, for a clockwise ring (`twice < 0`), input vertex `-rank`
/// (read backwards from vertex 0).
fn ordered(local: &[[f64; 2]], twice: f64, rows: &mut [f64]) {
    let count = local.len() as i64;
    let step: i64 = if twice < 0.0 { -1 } else { 1 };
    let input = |rank: i64| (step * rank).rem_euclid(count) as usize; // Python's modulo
    let (mut shift, mut smallest) = (0, f64::INFINITY);
    for rank in 0..(if count > 1 { count } else { 0 }) {
        let (i, following) = (input(rank), input(rank + 1));
        let angle = pseudo_angle(local[following][1] - local[i][1], local[i][0] - local[following][0]);
        if angle < smallest {
            (shift, smallest) = (rank, angle);
        }
    }
    for (rank, row) in rows.chunks_exact_mut(WIDTH).enumerate() {
        let [x, y] = local[input(rank as i64 + shift)];
        (row[X], row[Y]) = (x, y);
    }
}

/// Fill the angle, running-sum and edge columns of a hull's `count + 1` rows from their vertices.
fn accumulated(rows: &mut [f64], count: usize) {
    let mut running = 0.0;
    for rank in 0..count {
        let (x0, y0) = (rows[rank * WIDTH + X], rows[rank * WIDTH + Y]);
        let (x1, y1) = (rows[(rank + 1) * WIDTH + X], rows[(rank + 1) * WIDTH + Y]);
        let row = &mut rows[rank * WIDTH..(rank + 1) * WIDTH];
        row[ANGLE] = if count > 1 { pseudo_angle(y1 - y0, x0 - x1) } else { f64::INFINITY };
        row[RUNNING] = running;
        (row[EDGE_X], row[EDGE_Y]) = (x1 - x0, y1 - y0);
        running += x0 * y1 - y0 * x1;
    }
    let last = count * WIDTH;
    rows[last + RUNNING] = running;
    rows[last + EDGE_X] = rows[last - WIDTH + EDGE_X];
    rows[last + EDGE_Y] = rows[last - WIDTH + EDGE_Y];
}

/// For each direction bucket, the number of the hull's normals whose angle is below the bucket's start.
fn guessed(rows: &[f64], count: usize, guesses: &mut [i32]) {
    let mut below = 0;
    for (bucket, guess) in guesses.iter_mut().enumerate() {
        while below < count && rows[below * WIDTH + ANGLE] < bucket as f64 * (TURN / GUESS_BUCKETS as f64) {
            below += 1;
        }
        *guess = below as i32;
    }
}
