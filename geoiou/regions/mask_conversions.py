"""Conversions between masks and polygons: rasterizing by a named rule, and the exact outline of pixels.

Rasterizing (`rasterize`) is a choice, so it is named: a pixel is inside when its centre is
(``"centre"``), when the region covers any of it (``"any"``), or when it covers at least a
fraction of it (``"coverage"``). The coverage is the exact area of the region in the pixel
(`geoiou.regions.coverage`), so "any" and "coverage" have no sampling error.

Tracing (`outline`) is exact: the outline of a mask's pixel squares, as polygons with holes and
several parts, so a mask and its outline are the same region. The whole batch is traced at once:

1. every unit edge between a true pixel and a false one (the batch padded with false pixels) is a
   directed edge with the true pixel on its left, in the data's own ``(x, y)`` frame;
2. each edge's successor is the edge that leaves its end vertex; where two leave it (two true
   pixels touching at a corner only), the turn that keeps the rings simple: to the true pixel
   when the two are in different 4-connected parts (two parts touching at a point), to the false
   pixel between them when they are in the same part (a hole touching the exterior at a point);
3. rings are the cycles of the successor permutation, found and ordered by pointer doubling;
   only the vertices where the direction changes are kept;
4. a ring that turns counter-clockwise is an exterior, otherwise a hole; each belongs to the
   4-connected component of pixels on its left, and each component is one part of its mask's
   polygon. Labelling components (`scipy.ndimage.label`) reads every pixel, so only masks with a
   hole or a saddle are labelled; elsewhere each ring is a part of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from scipy import ndimage

from geoiou._validation import fail, invalid_argument
from geoiou.regions.coverage import coverage_windows

if TYPE_CHECKING:
    from geoiou.regions.mask import Mask
    from geoiou.regions.polygon import Polygon

__all__ = ["RULES", "outline", "rasterize"]

Rule = Literal["centre", "any", "coverage"]
#: The exact coverage of a pixel is computed to rounding (about 1e-15 of a pixel): a polygon that
#: only touches a pixel along its edge may show 1e-16 there, a pixel it fills 0.9999999999999998.
#: Coverages within this of a rule's bound count as on the bound.
COVERAGE_ROUNDING = 1e-12
RULES = ("centre", "any", "coverage")

#: Unit steps of the four edge directions: +x, +y, -x, -y. A left turn (interior on the left, in
#: the counter-clockwise sense of the (x, y) frame) is the next direction, a right turn the previous.
_STEPS = np.array([(1, 0), (0, 1), (-1, 0), (0, -1)])


# --------------------------------------------------------------------------- polygons -> masks
def rasterize(
    regions: Any, shape: tuple[int, int] | None, origin: Any, rule: Rule, fraction: float
) -> tuple[np.ndarray, np.ndarray]:
    """Pixels ``(*batch, H, W)`` of vector regions by `rule`, and the grid's origin."""
    from geoiou.regions.box import Box
    from geoiou.regions.polygon import Polygon
    from geoiou.regions.rotated_box import RotatedBox

    if isinstance(regions, (Box, RotatedBox)):
        regions = regions.to_polygon()
    if not isinstance(regions, Polygon):
        raise fail("polygon", "a Polygon, Box or RotatedBox (one or a batch)", type(regions).__name__)
    if rule not in RULES:
        raise invalid_argument("rule", f"one of {RULES}", rule)
    if rule == "coverage" and not (isinstance(fraction, (int, float)) and 0 < fraction <= 1):
        raise invalid_argument("fraction", "a number in (0, 1]", fraction)
    grid, origin = _grid(regions, shape, origin)
    flat = regions.reshape(regions.size)
    pixels = np.zeros((flat.size, *grid), dtype=bool)
    if rule == "centre":
        for k in range(flat.size):  # one polygon at a time: each test is vectorized over its window
            _centres_in(flat[k], pixels[k], origin)
    else:
        _covered_pixels(flat, pixels, origin, rule, fraction)
    return pixels.reshape(*regions.shape, *grid), origin


def _grid(regions: Any, shape: tuple[int, int] | None, origin: Any) -> tuple[tuple[int, int], np.ndarray]:
    """The grid's shape and origin: as given, or the integer grid around every region's bounds."""
    from geoiou._validation import as_float_array

    if shape is not None:
        try:
            height, width = (int(n) for n in shape)
        except (TypeError, ValueError):
            raise invalid_argument("shape", "two integers (H, W)", shape) from None
        if height < 0 or width < 0:
            raise invalid_argument("shape", "two non-negative integers (H, W)", shape)
        return (height, width), as_float_array((0.0, 0.0) if origin is None else origin, "origin", trailing=2)
    bounds = regions.bounds.reshape(-1, 4)
    bounds = bounds[~np.isnan(bounds[:, 0])]
    low = np.floor(bounds[:, :2].min(axis=0)) if len(bounds) else np.zeros(2)
    if origin is not None:
        low = as_float_array(origin, "origin", trailing=2)
    high = np.ceil(bounds[:, 2:].max(axis=0) - low) if len(bounds) else np.zeros(2)
    return (int(max(high[1], 0)), int(max(high[0], 0))), low


def _covered_pixels(flat: Polygon, pixels: np.ndarray, origin: np.ndarray, rule: str, fraction: float) -> None:
    """Set the pixels ``(n, H, W)`` whose exact coverage by polygon k passes the rule: every polygon's coverage
    on its window in one call of the crate, then every window's pixels placed at once."""
    count, height, width = pixels.shape
    windows, coverage = coverage_windows(
        flat._store, flat._index, (height, width), (float(origin[0]), float(origin[1]))
    )
    passed = coverage > COVERAGE_ROUNDING if rule == "any" else coverage >= fraction - COVERAGE_ROUNDING
    sizes = windows[:, 2] * windows[:, 3]
    owner = np.repeat(np.arange(count), sizes)
    at = np.arange(len(coverage)) - np.repeat(np.cumsum(sizes) - sizes, sizes)  # the pixel within its window
    window_width = np.maximum(windows[owner, 3], 1)
    row, column = at // window_width, at % window_width
    place = (owner * height + windows[owner, 0] + row) * width + windows[owner, 1] + column
    pixels.reshape(-1)[place[passed]] = True


def _centres_in(polygon: Polygon, out: np.ndarray, origin: np.ndarray) -> None:
    """Set the pixels of `out` ``(H, W)`` whose centre is in the polygon."""
    geometry = polygon.to_shapely()
    import shapely

    # Pixel centres in the polygon's window; a centre on the boundary counts as inside.
    if geometry.is_empty:
        return
    x0, y0 = origin
    min_x, min_y, max_x, max_y = geometry.bounds
    columns = np.arange(max(int(np.floor(min_x - x0 - 0.5)), 0), min(int(np.ceil(max_x - x0 - 0.5)) + 1, out.shape[1]))
    lines = np.arange(max(int(np.floor(min_y - y0 - 0.5)), 0), min(int(np.ceil(max_y - y0 - 0.5)) + 1, out.shape[0]))
    if not (columns.size and lines.size):
        return
    xs, ys = np.meshgrid(x0 + columns + 0.5, y0 + lines + 0.5)
    out[lines[0] : lines[-1] + 1, columns[0] : columns[-1] + 1] = shapely.intersects_xy(geometry, xs, ys)


# --------------------------------------------------------------------------- masks -> polygons
def outline(mask: Mask) -> Polygon:
    """The exact outline of every mask's true pixels, as a Polygon batch of the mask's batch shape."""
    from geoiou.regions.polygon import Polygon
    from geoiou.regions.ragged import RaggedPolygons

    count = mask.size
    height, width = mask.grid_shape
    padded = np.pad(np.asarray(mask.data).reshape(count, height, width), ((0, 0), (1, 1), (1, 1)))
    edges = _boundary_edges(padded)
    if edges.x.size == 0:  # no true pixel anywhere: every polygon is empty
        empty = RaggedPolygons(
            np.zeros((0, 2)), np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(count + 1, np.int64)
        )
        return Polygon._attached(empty, np.arange(count).reshape(mask.shape))
    ring, rank = _parts_and_rings(edges, padded, height, width)
    # Visit each ring from its first edge on; keep the start of every edge that turns.
    order = np.lexsort((rank, ring))
    ring, direction = ring[order], edges.direction[order]
    start_x, start_y, mask_of_edge, component = (
        edges.x[order],
        edges.y[order],
        edges.mask[order],
        edges.component[order],
    )
    first = np.flatnonzero(np.diff(ring, prepend=-1) != 0)
    previous_direction = np.roll(direction, 1)
    previous_direction[first] = direction[np.append(first[1:], ring.size) - 1]  # the ring's last edge
    corner = direction != previous_direction
    ring, start_x, start_y, mask_of_edge, component = (
        ring[corner],
        start_x[corner],
        start_y[corner],
        mask_of_edge[corner],
        component[corner],
    )
    ring_start = np.flatnonzero(np.diff(ring, prepend=-1) != 0)
    lengths = np.diff(np.append(ring_start, ring.size))
    # Shoelace sum of each ring (integer lattice: exact): positive for an exterior (counter-clockwise).
    following = np.arange(ring.size) + 1
    following[ring_start + lengths - 1] = ring_start
    twice_area = (
        np.add.reduceat(start_x * start_y[following] - start_y * start_x[following], ring_start)
        if ring.size
        else np.zeros(0, dtype=np.int64)
    )
    ring_mask, ring_component, is_hole = mask_of_edge[ring_start], component[ring_start], twice_area < 0
    # Rings in polygon order: by mask, by component (a part), the exterior first, then its holes.
    ring_order = np.lexsort((is_hole, ring_component, ring_mask))
    vertex_ring = np.repeat(np.arange(ring_start.size), lengths)
    vertex_order = np.lexsort((np.arange(ring.size), np.argsort(ring_order)[vertex_ring]))
    lengths = lengths[ring_order]
    ring_component, ring_mask = ring_component[ring_order], ring_mask[ring_order]
    origin = np.asarray(mask.origin, dtype=np.float64).reshape(count, 2)
    xs = start_x[vertex_order] + origin[mask_of_edge[vertex_order], 0]
    ys = start_y[vertex_order] + origin[mask_of_edge[vertex_order], 1]
    coords, ring_offsets = _closed_rings(np.column_stack([xs, ys]), lengths)
    part_starts = np.flatnonzero(np.diff(ring_component, prepend=-1) != 0)
    part_offsets = np.append(part_starts, lengths.size)
    parts_per_mask = np.bincount(ring_mask[part_starts], minlength=count)
    geometry_offsets = np.concatenate([[0], np.cumsum(parts_per_mask)])
    store = RaggedPolygons(
        coords, ring_offsets.astype(np.int64), part_offsets.astype(np.int64), geometry_offsets.astype(np.int64)
    )
    return Polygon._attached(store, np.arange(count).reshape(mask.shape))


class _Edges:
    """Directed unit edges with the true pixel on their left: start vertex, direction, mask, that pixel, its part."""

    def __init__(
        self, x: np.ndarray, y: np.ndarray, direction: np.ndarray, mask: np.ndarray, row: np.ndarray, col: np.ndarray
    ) -> None:
        self.x, self.y, self.direction, self.mask, self.row, self.col = x, y, direction, mask, row, col
        #: The 4-connected part of the true pixel (any distinct value per part; set by `_parts_and_rings`).
        self.component = np.arange(x.size)


def _parts_and_rings(edges: _Edges, padded: np.ndarray, height: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Set each edge's part, and return each edge's ring and rank along it (`_rings`).

    Labelling pixels into 4-connected parts (`scipy.ndimage.label`) is a pass over every pixel,
    so only the masks that need it are labelled: those with a saddle (two true pixels touching
    at a corner only, where the ring's turn depends on the parts) or a hole (which belongs to the
    part around it). In every other mask each ring is the exterior of a part of its own.
    """
    ring, rank = _rings(_successors(edges, height, width))  # distinct parts for now: the left turn at saddles
    end_x, end_y = edges.x + _STEPS[edges.direction, 0], edges.y + _STEPS[edges.direction, 1]
    # Twice each ring's signed area is the sum of its edges' cross products, in any order: < 0 for a hole.
    twice_area = np.bincount(ring, weights=edges.x * end_y - edges.y * end_x, minlength=ring.size)
    vertex = (edges.mask * (height + 1) + edges.y) * (width + 1) + edges.x
    leaving = np.sort(vertex)
    saddle_vertex = leaving[1:][leaving[1:] == leaving[:-1]]  # two edges leave a saddle
    with_saddle = np.unique(saddle_vertex // ((height + 1) * (width + 1)))
    needs_labels = np.union1d(with_saddle, edges.mask[twice_area[ring] < 0])
    edges.component = ring.copy()
    if needs_labels.size == 0:
        return ring, rank
    structure = np.zeros((3, 3, 3), dtype=bool)
    structure[1] = ndimage.generate_binary_structure(2, 1)  # 4-connected, never across the batch axis
    labels, _ = ndimage.label(padded[needs_labels], structure=structure)
    labelled = np.isin(edges.mask, needs_labels)
    position = np.searchsorted(needs_labels, edges.mask[labelled])
    # Labels count from 1 and ring indices from 0: shift the labels past every ring index.
    edges.component[labelled] = ring.size + labels[position, edges.row[labelled] + 1, edges.col[labelled] + 1]
    return _rings(_successors(edges, height, width))


def _boundary_edges(padded: np.ndarray) -> _Edges:
    """Every unit edge between a true and a false pixel of masks padded with a border of false pixels.

    Each pixel's four sides are marked as bits of one byte, so that the pixels are scanned once.
    """
    core = padded[:, 1:-1, 1:-1]
    rows, cols = padded.shape[1], padded.shape[2]
    sides = np.zeros(core.shape, dtype=np.uint8)
    for bit, (dr, dc), _, _ in _SIDES:
        outside = ~padded[:, 1 + dr : rows - 1 + dr, 1 + dc : cols - 1 + dc]
        sides |= np.logical_and(core, outside).view(np.uint8) << np.uint8(bit)
    n, r, c = np.nonzero(sides)
    marked = sides[n, r, c]
    pieces = []
    for bit, _, side, (sx, sy) in _SIDES:
        on = (marked >> bit) & 1 == 1
        pieces.append((c[on] + sx, r[on] + sy, np.full(int(on.sum()), side), n[on], r[on], c[on]))
    x, y, direction, mask, row, col = (np.concatenate(column).astype(np.int64) for column in zip(*pieces))
    return _Edges(x, y, direction, mask, row, col)


#: A pixel's sides: (bit, offset of the neighbour across it, direction of its edge, the edge's start
#: relative to the pixel's top-left corner). The true pixel is on the edge's left: the top side runs
#: +x from (c, r), the right side +y from (c+1, r), the bottom side -x from (c+1, r+1), the left side
#: -y from (c, r+1).
_SIDES = ((0, (-1, 0), 0, (0, 0)), (1, (0, 1), 1, (1, 0)), (2, (1, 0), 2, (1, 1)), (3, (0, -1), 3, (0, 1)))


def _successors(edges: _Edges, height: int, width: int) -> np.ndarray:
    """The edge that follows each edge: the one leaving its end vertex.

    Where two leave it (two true pixels touching at a corner only, a saddle), the ring keeps to
    its own side: the right turn when both true pixels are in one component (the turn that keeps
    to the false pixel between them, so that a hole touching the exterior at the corner stays a
    hole), the left turn otherwise (the turn that keeps to the true pixel, so that two parts
    touching at the corner stay two parts). Either way no ring touches itself, as a valid
    polygon's rings must not.
    """
    vertices = (height + 1) * (width + 1)

    def key(mask: np.ndarray, x: np.ndarray, y: np.ndarray, direction: np.ndarray | int) -> np.ndarray:
        keys: np.ndarray = ((mask * vertices + y * (width + 1) + x) * 4) + direction
        return keys

    keys = key(edges.mask, edges.x, edges.y, edges.direction)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    end_x, end_y = edges.x + _STEPS[edges.direction, 0], edges.y + _STEPS[edges.direction, 1]

    def leaving(turn: int) -> np.ndarray:
        """The edge leaving each edge's end with the given turn (1 left, 0 straight, 3 right), or -1."""
        wanted = key(edges.mask, end_x, end_y, (edges.direction + turn) % 4)
        at = np.minimum(np.searchsorted(sorted_keys, wanted), keys.size - 1)
        return np.where(sorted_keys[at] == wanted, order[at], -1)

    left, straight, right = leaving(1), leaving(0), leaving(3)
    same_part_on_the_right = (right >= 0) & (edges.component[np.maximum(right, 0)] == edges.component)
    return np.where(same_part_on_the_right, right, np.where(left >= 0, left, np.where(straight >= 0, straight, right)))


def _rings(successor: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each edge's ring (the smallest edge index on its cycle) and its rank along the ring from there."""
    size = successor.size
    label, jump, reach = np.arange(size), successor.copy(), 1
    while reach < size:  # after k rounds each label is the minimum over the 2**k edges from it on
        label = np.minimum(label, label[jump])
        jump, reach = jump[jump], 2 * reach
    # Cut each cycle before its first edge into a list, and rank by pointer jumping: `after` counts the
    # edges that follow an edge on its list.
    head = label == np.arange(size)
    pointer = np.where(head[successor], -1, successor)
    after = (pointer >= 0).astype(np.int64)
    while (pointer >= 0).any():
        valid = np.flatnonzero(pointer >= 0)
        after_next, pointer_next = after.copy(), pointer.copy()
        after_next[valid] += after[pointer[valid]]
        pointer_next[valid] = pointer[pointer[valid]]
        after, pointer = after_next, pointer_next
    length = np.bincount(label, minlength=size)[label]
    return label, length - 1 - after


def _closed_rings(vertices: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rings laid end to end, each closed by repeating its first vertex, and their offsets."""
    starts = np.cumsum(lengths) - lengths
    offsets = np.concatenate([[0], np.cumsum(lengths + 1)]).astype(np.int64)
    ring = np.repeat(np.arange(lengths.size), lengths + 1)
    position = np.arange(offsets[-1]) - offsets[ring]
    position[position == lengths[ring]] = 0  # the closing vertex repeats the first
    return np.ascontiguousarray(vertices[starts[ring] + position].reshape(-1, 2), dtype=np.float64), offsets
