"""The exact area shared by two polygons, from their edges alone: a sum over pairs of edge triangles.

Pick a point O. Every directed ring edge e = (p, q) spans the triangle T_e = (O, p, q), signed
by its orientation. For a valid polygon A (exteriors and holes, several parts), the signed
triangles add up to A's indicator function almost everywhere:

    1_A(x) = Σ_e σ_e · 1_{T_e}(x),    σ_e = ±1,

which is the shoelace formula before it is integrated. Multiplying the sums for A and B and
integrating gives an identity with no approximation in it:

    |A ∩ B| = Σ_{e ∈ ∂A} Σ_{f ∈ ∂B} σ_e σ_f · |T_e ∩ T_f|.

Each term is the area shared by two triangles with the common apex O, which has a closed form:
inside the angle the two triangles share, each triangle reaches from O to its edge's line, so the
shared part reaches to the nearer of the two lines, switching at most once, where they cross.
The intersection polygon is never built, and each term needs only a fixed handful of
operations, so all terms of all candidate pairs run as flat NumPy arrays.

Why this is exact and robust: every term is a continuous function of the vertices, bounded by
the smaller of the two triangles' areas. There are no topological decisions whose error could
be larger than rounding (a vertex on an edge, shared or overlapping edges, touching holes and
identical polygons are not special cases), so no configuration needs another method. O is
placed at the centre of the pair's common bounds and coordinates are scaled by a power of two,
so the result does not depend on where the pair lies (coordinates at 1e9, near 1e-300, or near
the smallest normal float behave alike).

How it runs: pairs are sorted by their edge counts and taken a block at a time; each side's
edges sit in a ``(pairs, edges)`` table, so every edge pair of the block is one cell of a
broadcast ``(pairs, edges_a, edges_b)`` array that stays in the CPU cache. A cheap test on the
edges' angles around O keeps only the cells whose triangles share an angle (for two convex
polygons around O, about ``n + m`` of the ``n · m``), and the closed form runs on those.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from geoiou.regions.ragged import Edges, RaggedPolygons, offsets_of, ragged_arange

__all__ = ["TURN", "EdgeSource", "JoinedEdges", "pseudo_angle", "shared_area"]

#: Edge pairs (cells) handled per block: the block's few float64 arrays stay in a 1 MiB L2 cache.
BLOCK_CELLS = 1 << 16
#: Empty cells a block may carry to take in pairs of other edge counts: about what the fixed cost of
#: one more block (a few dozen NumPy calls) would buy in cells.
PADDING_CELLS = 1 << 14
#: Edges (both sides) prepared at once: bounds the memory of the per-edge tables.
CHUNK_EDGES = 1 << 17
#: Bound on the relative rounding error of one term (a generous count of its roundings, times 2^-53).
ROUNDING = 64 * np.finfo(np.float64).eps
#: One turn in pseudo-angle units (see `pseudo_angle`).
TURN = 4.0


class EdgeSource(Protocol):
    """What `shared_area` reads of a batch of polygons: a `RaggedPolygons`, or two of them joined (`JoinedEdges`)."""

    @property
    def edges(self) -> Edges: ...

    @property
    def bounds(self) -> np.ndarray: ...

    @property
    def area(self) -> np.ndarray: ...


@dataclass(frozen=True)
class JoinedEdges:
    """The edges, bounds and areas of two batches of polygons, the second's geometries numbered after the first's.

    One `shared_area` call then measures pairs whose sides come from either batch, where two
    calls would each pay the kernel's fixed cost (about 0.2 ms of NumPy calls).

    Examples
    --------
    >>> import shapely
    >>> a = RaggedPolygons.from_shapely(np.array([shapely.box(0, 0, 2, 2)]))
    >>> b = RaggedPolygons.from_shapely(np.array([shapely.box(1, 1, 3, 3)]))
    >>> both = JoinedEdges.of(a, b)
    >>> both.area, shared_area(both, both, np.array([0, 1]), np.array([1, 0]))  # geometry 1 is b's first
    (array([4., 4.]), array([1., 1.]))
    """

    edges: Edges
    bounds: np.ndarray
    area: np.ndarray

    @classmethod
    def of(cls, first: RaggedPolygons, second: RaggedPolygons) -> JoinedEdges:
        e, f = first.edges, second.edges
        shifts = {"start": len(first.coords), "geometry": first.size}
        columns = {name: np.concatenate([getattr(e, name), getattr(f, name) + shifts.get(name, 0)])
                   for name in ("start", "geometry", "weight_sign", "x0", "y0", "x1", "y1")}
        offsets = np.concatenate([e.offsets[:-1], f.offsets + e.offsets[-1]])
        return cls(Edges(offsets=offsets, **columns), np.concatenate([first.bounds, second.bounds]),
                   np.concatenate([first.area, second.area]))


def shared_area(store_a: EdgeSource, store_b: EdgeSource, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
    """Area of ``store_a[index_a[k]] ∩ store_b[index_b[k]]`` for every k, exactly up to rounding.

    Examples
    --------
    >>> import shapely
    >>> a = RaggedPolygons.from_shapely(np.array([shapely.box(0, 0, 2, 2)]))
    >>> b = RaggedPolygons.from_shapely(np.array([shapely.box(1, 1, 3, 3), shapely.box(2, 0, 3, 2)]))
    >>> shared_area(a, b, np.array([0, 0]), np.array([0, 1]))  # overlap, and a shared edge only
    array([1., 0.])
    """
    index_a, index_b = np.asarray(index_a, dtype=np.int64), np.asarray(index_b, dtype=np.int64)
    count_a = np.diff(store_a.edges.offsets)[index_a]
    count_b = np.diff(store_b.edges.offsets)[index_b]
    # Sorted by edge counts, a block of consecutive pairs needs little padding.
    order = np.lexsort((count_b, count_a))
    sorted_a, sorted_b = index_a[order], index_b[order]
    origin, scale = _pair_frames(store_a.bounds[sorted_a], store_b.bounds[sorted_b])
    sums, magnitudes = np.zeros(len(order)), np.zeros(len(order))
    # A chunk of pairs at a time keeps the edge tables small: no huge temporaries, nothing evicted from cache.
    ends = np.cumsum(count_a[order] + count_b[order])
    chunk_start = 0
    while chunk_start < len(order):
        done = ends[chunk_start - 1] if chunk_start else 0
        chunk = slice(chunk_start, max(chunk_start + 1, int(np.searchsorted(ends, done + CHUNK_EDGES, side="right"))))
        side_a = _FanEdges.of_pairs(store_a, sorted_a[chunk], origin[chunk], scale[chunk])
        side_b = _FanEdges.of_pairs(store_b, sorted_b[chunk], origin[chunk], scale[chunk])
        for start, stop in _blocks(count_a[order][chunk], count_b[order][chunk]):
            at = slice(chunk.start + start, chunk.start + stop)
            sums[at], magnitudes[at] = _block_sums(side_a, side_b, start, stop)
        chunk_start = chunk.stop
    area, rounding = np.empty(len(order)), np.empty(len(order))
    area[order], rounding[order] = sums * scale * scale, magnitudes * (ROUNDING * scale * scale)
    # The result is within `rounding` of the true area, which lies in [0, min(|a|, |b|)]. Where
    # an end of that range is within reach, it is the answer: a polygon inside the other (also an
    # identical one) shares exactly its own area, and polygons that only touch share exactly 0.
    upper = np.minimum(store_a.area[index_a], store_b.area[index_b])
    area = np.where(area >= upper - rounding, upper, area)
    return np.where(area <= rounding, 0.0, area)


def _blocks(count_a: np.ndarray, count_b: np.ndarray) -> list[tuple[int, int]]:
    """Consecutive runs of pairs (sorted by edge counts) of at most about `BLOCK_CELLS` edge pairs each.

    A run's table is padded to its largest counts: ``pairs · (its last count_a) · (its largest
    count_b)`` cells. A run grows while those cells fit in `BLOCK_CELLS` and the padding (cells
    no edge fills) stays within `PADDING_CELLS` or a quarter of the filled ones. So runs of many
    pairs keep to one count_a, while the few pairs of many counts that small batches bring
    share a run: each run costs the few dozen NumPy calls of `_block_sums`, whatever its size.
    """
    a, b = np.maximum(count_a, 1), np.maximum(count_b, 1)
    filled_before = np.concatenate([[0], np.cumsum(a * b)])
    blocks, start = [], 0
    while start < len(a):
        # k pairs from `start` take at least k · a[start] · b[start] cells.
        limit = min(len(a), start + max(1, BLOCK_CELLS // int(a[start] * b[start])))
        pairs = np.arange(1, limit - start + 1)
        cells = pairs * a[start:limit] * np.maximum.accumulate(b[start:limit])
        padding = cells - (filled_before[start + 1:limit + 1] - filled_before[start])
        fits = (cells <= BLOCK_CELLS) & (padding <= np.maximum(PADDING_CELLS, cells // 5))
        stop = start + max(1, int(np.argmin(fits)) if not fits.all() else len(fits))
        blocks.append((start, stop))
        start = stop
    return blocks


def _block_sums(side_a: _FanEdges, side_b: _FanEdges, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
    """Sum of the signed terms of each pair of a block, and of their magnitudes (in the pairs' frames)."""
    table_a, table_b = side_a.table(start, stop), side_b.table(start, stop)
    n, m = table_a.angle.shape[1], table_b.angle.shape[1]
    # The angle from the start of e's triangle to the start of f's, in [0, TURN).
    turn = table_b.angle[:, None, :] - table_a.angle[:, :, None]
    turn += (turn < 0) * TURN
    # Two angles (each below half a turn) overlap when either starts inside the other.
    f_starts_in_e = turn < table_a.width[:, :, None]
    e_starts_in_f = turn > table_b.rest[:, None, :]
    cell = np.flatnonzero(f_starts_in_e | e_starts_in_f)
    pair = cell // (n * m)
    edge_a = cell // m
    edge_b = pair * m + cell % m
    terms = _triangle_overlaps(table_a, edge_a, table_b, edge_b, turn.ravel()[cell], f_starts_in_e.ravel()[cell])
    # Each term is computed to a few dozen roundings of its own size at most.
    return (np.bincount(pair, weights=terms, minlength=stop - start),
            np.bincount(pair, weights=np.abs(terms), minlength=stop - start))


def _pair_frames(bounds_a: np.ndarray, bounds_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Origin (the centre of the common bounds) and power-of-two scale of each pair's local frame."""
    low = np.maximum(bounds_a[:, :2], bounds_b[:, :2])
    high = np.minimum(bounds_a[:, 2:], bounds_b[:, 2:])
    origin = low / 2 + high / 2  # halves first: the sum could overflow near the largest float
    reach = np.maximum(np.abs(np.minimum(bounds_a[:, :2], bounds_b[:, :2]) - origin).max(axis=1),
                       np.abs(np.maximum(bounds_a[:, 2:], bounds_b[:, 2:]) - origin).max(axis=1))
    _, exponent = np.frexp(np.where(reach > 0, reach, 1.0))
    return origin, np.ldexp(1.0, exponent)


def pseudo_angle(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """A cheap stand-in for the angle of (x, y): increasing counter-clockwise from 0 on +x to `TURN` (one turn).

    Only its order matters to the kernels; it needs no trigonometry. (0, 0) gives NaN.

    Examples
    --------
    >>> pseudo_angle(np.array([1.0, 0.0, -1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0, -1.0, 0.0]))
    array([ 0.,  1.,  2.,  3., nan])
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        r = x / (np.abs(x) + np.abs(y))
    # 1 - r above the x axis, 3 + r below, as c + (c - 2)·r with c = 1 or 3: the same roundings
    # (the product is exact), without a branch per element.
    c = (y < 0) * 2.0
    c += 1.0
    r *= c - 2.0
    r += c
    return r


@dataclass
class _FanTable:
    """The edges of one side of a block of pairs as ``(pairs, columns)`` tables (see `_FanEdges`)."""

    ux: np.ndarray
    uy: np.ndarray
    vx: np.ndarray
    vy: np.ndarray
    twice: np.ndarray
    sign: np.ndarray
    angle: np.ndarray
    width: np.ndarray
    rest: np.ndarray


_ATTRIBUTES = tuple(_FanTable.__dataclass_fields__)


@dataclass
class _FanEdges(_FanTable):
    """The edges of one side of every pair, in the pair's frame, laid end to end pair after pair.

    Each edge, as a triangle with O, runs counter-clockwise from ray ``u`` to ray ``v``;
    ``twice`` is twice its area (>= 0), ``sign`` its sign in the polygon's sum, ``angle`` the
    pseudo-angle of ``u`` and ``width`` the triangle's angle, below half a turn; ``rest`` is
    ``TURN - width``. Pair k's edges are ``offsets[k]`` to ``offsets[k + 1] - 1``; one more edge at
    the end pads tables. It and flat triangles (O on the edge's line, no area) have a NaN
    ``angle``, so no angle test keeps them.
    """

    offsets: np.ndarray

    @classmethod
    def of_pairs(cls, store: EdgeSource, index: np.ndarray, origin: np.ndarray, scale: np.ndarray) -> _FanEdges:
        edges = store.edges
        first, last = edges.offsets[index], edges.offsets[index + 1]
        edge, pair = ragged_arange(first, last)
        inverse = 1.0 / scale[pair]
        ox, oy = origin[pair, 0], origin[pair, 1]
        px, py = (edges.x0[edge] - ox) * inverse, (edges.y0[edge] - oy) * inverse
        qx, qy = (edges.x1[edge] - ox) * inverse, (edges.y1[edge] - oy) * inverse
        cross = px * qy - py * qx
        flip = cross < 0
        # Every column gets one more slot, the padding edge: (0, 0) rays, no area, NaN angle.
        table = {name: np.zeros(len(edge) + 1) for name in _ATTRIBUTES}
        table["ux"][:-1] = np.where(flip, qx, px)
        table["uy"][:-1] = np.where(flip, qy, py)
        table["vx"][:-1] = np.where(flip, px, qx)
        table["vy"][:-1] = np.where(flip, py, qy)
        np.abs(cross, out=table["twice"][:-1])
        table["sign"][:-1] = np.where(flip, -edges.weight_sign[edge], edges.weight_sign[edge])
        angle = table["angle"]
        angle[:-1] = pseudo_angle(table["ux"][:-1], table["uy"][:-1])
        angle[:-1][cross == 0] = np.nan
        angle[-1] = np.nan
        width = table["width"]
        np.subtract(pseudo_angle(table["vx"][:-1], table["vy"][:-1]), angle[:-1], out=width[:-1])
        width[:-1] += (width[:-1] < 0) * TURN
        np.subtract(TURN, width, out=table["rest"])
        return cls(**table, offsets=offsets_of(last - first))

    def table(self, start: int, stop: int) -> _FanTable:
        """The tables of pairs ``start`` to ``stop - 1``: views when they all have one edge count."""
        first, last = self.offsets[start:stop], self.offsets[start + 1:stop + 1]
        counts = last - first
        columns = int(counts.max(initial=0))
        if (counts == columns).all():
            rows = slice(int(first[0]) if len(first) else 0, int(last[-1]) if len(last) else 0)
            return _FanTable(*(getattr(self, name)[rows].reshape(stop - start, columns) for name in _ATTRIBUTES))
        rank = np.arange(columns)
        at = np.where(rank < counts[:, None], first[:, None] + rank, len(self.ux) - 1)
        return _FanTable(*(getattr(self, name)[at] for name in _ATTRIBUTES))


def _cross(ax, ay, bx, by):
    return ax * by - ay * bx


def _triangle_overlaps(a: _FanTable, ea: np.ndarray, b: _FanTable, eb: np.ndarray, turn: np.ndarray,
                       f_starts_in_e: np.ndarray) -> np.ndarray:
    """Signed ``σ_e σ_f |T_e ∩ T_f|`` for edge cells ``(ea[k], eb[k])`` whose angles overlap.

    `turn` is the angle from the start of e to the start of f and `f_starts_in_e` whether f's
    start lies in e's angle: the shared angle then runs from f's start, else from e's.
    """
    flat = lambda table, at: table.ravel()[at]  # noqa: E731
    uex, uey, vex, vey = flat(a.ux, ea), flat(a.uy, ea), flat(a.vx, ea), flat(a.vy, ea)
    ufx, ufy, vfx, vfy = flat(b.ux, eb), flat(b.uy, eb), flat(b.vx, eb), flat(b.vy, eb)
    twice_e, twice_f = flat(a.twice, ea), flat(b.twice, eb)
    # The shared angle runs from s (the later start) to t (the earlier end).
    end_turn = turn + flat(b.width, eb)
    end_turn -= (end_turn >= TURN) * TURN
    f_ends_in_e = end_turn <= flat(a.width, ea)
    sx, sy = np.where(f_starts_in_e, ufx, uex), np.where(f_starts_in_e, ufy, uey)
    tx, ty = np.where(f_ends_in_e, vfx, vex), np.where(f_ends_in_e, vfy, vey)
    wedge = _cross(sx, sy, tx, ty)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        # How far each triangle reaches along s and t: its edge's line at λ·s, λ·t.
        dex, dey = vex - uex, vey - uey
        dfx, dfy = vfx - ufx, vfy - ufy
        se = twice_e / _cross(sx, sy, dex, dey)
        sf = twice_f / _cross(sx, sy, dfx, dfy)
        te = twice_e / _cross(tx, ty, dex, dey)
        tf = twice_f / _cross(tx, ty, dfx, dfy)
        near_s, near_t = np.minimum(se, sf), np.minimum(te, tf)
        area = 0.5 * near_s * near_t * wedge
        switch = (wedge > 0) & ((se <= sf) != (te <= tf))
        if switch.any():
            k = np.flatnonzero(switch)
            area[k] = _area_past_crossing(sx[k], sy[k], tx[k], ty[k], se[k], sf[k], te[k], tf[k], near_s[k], near_t[k])
    # A term is at most the smaller triangle. Only a nearly flat triangle (O almost on its edge's
    # line) can make the closed form overflow; its whole area, the most this can be off by, is tiny.
    area = np.where((wedge > 0) & np.isfinite(area), area, 0.0)
    cap = 0.5 * np.minimum(twice_e, twice_f)
    return np.clip(area, 0.0, cap) * (flat(a.sign, ea) * flat(b.sign, eb))


def _area_past_crossing(sx, sy, tx, ty, se, sf, te, tf, near_s, near_t):
    """Area from O to the nearer line when the nearer line changes inside the angle: O, n_s, X, n_t."""
    # The two lines between the rays: e from (se·s) to (te·t), f from (sf·s) to (tf·t); X where they cross.
    ax, ay = se * sx, se * sy
    aex, aey = te * tx - ax, te * ty - ay
    bx, by = sf * sx, sf * sy
    bfx, bfy = tf * tx - bx, tf * ty - by
    denominator = _cross(aex, aey, bfx, bfy)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = np.clip(_cross(bx - ax, by - ay, bfx, bfy) / denominator, 0.0, 1.0)
    tau = np.where(np.isfinite(tau), tau, 0.0)
    xx, xy = ax + tau * aex, ay + tau * aey
    nsx, nsy = near_s * sx, near_s * sy
    ntx, nty = near_t * tx, near_t * ty
    return 0.5 * (_cross(nsx, nsy, xx, xy) + _cross(xx, xy, ntx, nty))
