"""Binary raster masks under the unit-square pixel model.

How a Mask holds its pixels
---------------------------
A Mask's fields, the arrays that indexing, ``reshape`` and broadcasting move around, are small:
``_index`` (one integer per mask, pointing into a pixel store) and ``_origin``. The store
(`_PixelStore`) holds the pixels of every mask built together, in the form they arrived in: the
dense boolean array ``(M, H, W)`` given to ``Mask(array)``, or the COCO runs given to
``Mask.from_rle``. The other forms are derived from it on first use and cached in the store, so
all masks indexed or reshaped from one construction share the work:

- ``dense``, the boolean pixels; decoded from runs only when something asks for pixels (``data``,
  ``centroid``, ``to_rle``, ``to_shapely``, Mask×Box, Mask×Polygon, masks on offset grids);
- packed windows (`_Windows`): each mask's bounding box and its pixels packed 64 to a word along
  the lines of the grid, over the lines and words that cover the box. Dense masks are packed along
  rows, each straight from its pixels over its box by the crate; masks from runs are packed along columns
  straight from the runs (COCO runs go down the columns), without decoding a pixel. A mask from
  runs is packed along rows as well only to be compared with a dense mask.

Areas, bounds and the Mask×Mask kernel read only the windows, so comparing two masks costs work in
proportion to the overlap of their bounding boxes, whatever the size of the grid.

Why a shared store rather than more fields? A field is gathered on every indexing, so a dense
field would copy ``(N, H, W)`` pixels each time a metric reshapes a batch, and anything cached on
one Mask object would be lost at the next ``reshape``. With one store the fields stay tiny and
each derived form is computed once per construction. The store keeps a read-only view of the
caller's array, as every region does: changing that array afterwards is not supported (the
cached windows would not follow).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Mapping, Sequence

import numpy as np
import shapely
from numpy.typing import ArrayLike

from geoiou._ranges import ragged_arange
from geoiou import rle as coco_rle
from geoiou._validation import as_float_array, as_numpy, fail
from geoiou.regions.base import Region, as_measure, readonly
from geoiou.regions.hulls import ConvexHulls
from geoiou.regions import mask_windows

if TYPE_CHECKING:
    from geoiou.regions.box import Box
    from geoiou.regions.polygon import Polygon
    from geoiou.regions.rotated_box import RotatedBox

__all__ = ["Mask"]

#: Pixels per packed word.
WORD_BITS = 64


class Mask(Region):
    """Binary masks: pixel ``(row r, col c)`` is the unit square ``[x0 + c, x0 + c + 1) × [y0 + r, y0 + r + 1)``.

    Because pixels are squares, a mask compares exactly with vector regions: a polygon covering
    half of a true pixel counts half. Masks of different shapes and origins compare correctly.

    Parameters
    ----------
    array : array_like of shape (H, W) or (..., H, W)
        Boolean values, or numbers that are all 0 or 1.
    origin : array_like of shape (2,) or (..., 2), default (0, 0)
        ``(x0, y0)``: where the top-left corner of pixel (0, 0) lies; one per mask or shared.

    Raises
    ------
    InvalidRegionError
        If the array has fewer than two axes or holds values other than 0 and 1 (probabilities
        must be thresholded, label maps compared with one label), or the origin is not finite or
        puts a pixel edge beyond ``±2**52``, where float64 can no longer resolve a pixel.

    See Also
    --------
    Mask.from_rle : build masks from COCO run-length encoding.

    Examples
    --------
    >>> import numpy as np, geoiou
    >>> mask = geoiou.Mask(np.eye(3, dtype=bool), origin=(10, 20))
    >>> mask.area
    3.0
    >>> mask.bounds
    array([10., 20., 13., 23.])
    >>> geoiou.Mask(np.zeros((2, 2), dtype=bool)).area  # an empty mask is allowed
    0.0
    """

    _fields = {"_index": 0, "_origin": 1}
    _shared = ("_store",)  # the pixels of every mask of the batch: indexing moves indices only
    _index: np.ndarray  # (...) int64: each mask's position in the store
    _origin: np.ndarray  # (..., 2) float64
    _store: _PixelStore

    def __init__(self, array: ArrayLike, *, origin: ArrayLike = (0.0, 0.0)) -> None:
        data = _binary(array)
        batch = data.shape[:-2]
        store = _PixelStore(data.shape[-2:], dense=data.reshape(_count(batch), *data.shape[-2:]))
        self._attach(store, np.arange(store.size).reshape(batch), _origins(origin, batch, store.grid))

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_rle(cls, rle: dict[str, Any] | Sequence[dict[str, Any]], *, origin: ArrayLike = (0.0, 0.0)) -> Mask:
        """Build masks from COCO run-length encoding, compressed or uncompressed.

        The runs are kept as they are: areas, bounds and IoU between masks are computed from them
        (and from each mask's bounding box) without decoding the masks to full size.

        Parameters
        ----------
        rle : dict or sequence of dict
            ``{"size": [h, w], "counts": c}``, `c` a compressed string (bytes or str) or a list of
            run lengths; one dict gives a single mask, a sequence a batch of shape ``(N,)``. RLEs
            of different sizes are padded with false pixels to the largest, as `stack` does.
        origin : array_like of shape (2,) or (N, 2), default (0, 0)
            ``(x0, y0)`` of pixel (0, 0): one per mask or shared.

        Raises
        ------
        InvalidRegionError
            If an RLE is malformed (the message names what was wrong) or the origin is not finite.

        Examples
        --------
        >>> import geoiou
        >>> mask = geoiou.Mask.from_rle({"size": [2, 3], "counts": b"231"})
        >>> mask.area, mask.data.astype(int).tolist()
        (3.0, [[0, 1, 1], [0, 1, 0]])
        >>> geoiou.Mask.from_rle([]).shape  # an empty batch
        (0,)
        """
        runs = coco_rle.to_runs(rle)
        return cls._from_runs(runs, origin=origin, single=isinstance(rle, dict))

    @classmethod
    def _from_runs(cls, runs: coco_rle.Runs, *, origin: ArrayLike = (0.0, 0.0), single: bool = False) -> Mask:
        """Masks from validated runs, kept as runs: RLEs of several sizes on the largest grid, padded with false
        pixels (one run table whatever the sizes and their order; each mask's own size is its `source_shape`)."""
        batch = () if single else (len(runs.sizes),)
        store = _PixelStore.of_runs(runs)
        mask = object.__new__(cls)
        mask._attach(store, np.arange(store.size).reshape(batch), _origins(origin, batch, store.grid))
        return mask

    @classmethod
    def stack(cls, masks: Sequence[Mask]) -> Mask:
        """Stack single masks of any sizes and origins into one batch of shape ``(N,)``.

        Each mask keeps its origin and is padded with false pixels to the largest height and width,
        so its region is unchanged.

        Examples
        --------
        >>> import numpy as np, geoiou
        >>> batch = geoiou.Mask.stack([geoiou.Mask(np.ones((2, 2))), geoiou.Mask(np.ones((1, 3)), origin=(5, 5))])
        >>> batch.shape, batch.area
        ((2,), array([4., 3.]))
        >>> geoiou.Mask.stack([]).shape
        (0,)
        """
        if any(mask.shape for mask in masks):
            raise fail("masks", "single masks (shape ())", [mask.shape for mask in masks])
        origins = np.array([mask._origin for mask in masks]).reshape(len(masks), 2)
        stacked = object.__new__(cls)
        if masks and all(mask._store is masks[0]._store for mask in masks):
            # Masks taken from one batch: point into its store, keeping its runs or pixels and its cache.
            stacked._attach(masks[0]._store, np.array([mask._index for mask in masks]), origins)
            return stacked
        height = max((mask._store.grid[0] for mask in masks), default=0)
        width = max((mask._store.grid[1] for mask in masks), default=0)
        data = np.zeros((len(masks), height, width), dtype=bool)
        for i, mask in enumerate(masks):
            h, w = mask._store.grid
            data[i, :h, :w] = mask._data
        stacked._attach(_PixelStore((height, width), dense=data), np.arange(len(masks)), origins)
        return stacked

    @classmethod
    def _joined(cls, masks: list[Mask], join: Any) -> Mask:
        """Join batches (`concatenate`) or single masks: one store if they share one, else pixels padded to one grid."""
        joined = object.__new__(cls)
        origins = join([mask._origin for mask in masks])
        if all(mask._store is masks[0]._store for mask in masks):
            joined._attach(masks[0]._store, join([mask._index for mask in masks]), origins)
            return joined
        if all(mask._store.held_as_runs for mask in masks):
            # The runs of every batch in one table (on the largest grid): nothing is decoded.
            starts = np.cumsum([0] + [mask._index.size for mask in masks[:-1]])
            positions = join(
                [start + np.arange(mask._index.size).reshape(mask.shape) for mask, start in zip(masks, starts)]
            )
            store = _PixelStore.joined([(mask._store, mask._index.ravel()) for mask in masks])
            joined._attach(store, positions, origins)
            return joined
        height = max(mask._store.grid[0] for mask in masks)
        width = max(mask._store.grid[1] for mask in masks)
        padded = [
            np.pad(
                mask._data,
                [(0, 0)] * len(mask.shape) + [(0, height - mask._store.grid[0]), (0, width - mask._store.grid[1])],
            )
            for mask in masks
        ]
        data = join(padded)
        batch = data.shape[:-2]
        joined._attach(
            _PixelStore((height, width), dense=data.reshape(_count(batch), height, width)),
            np.arange(_count(batch)).reshape(batch),
            origins,
        )
        return joined

    def _attach(self, store: _PixelStore, index: np.ndarray, origin: np.ndarray) -> None:
        object.__setattr__(self, "_store", store)
        object.__setattr__(self, "_index", readonly(index))
        object.__setattr__(self, "_origin", readonly(origin))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle these masks only (a slice of a batch shares its store): their COCO runs when held as runs, else
        their pixels packed eight to a byte."""
        index = self._index.ravel()
        runs = self._store._runs
        if runs is not None:
            return _masks_from_runs, (runs.take(index), self._origin, self.shape, self._store.grid)
        pixels = self._store.select(index)
        return _masks_from_bits, (np.packbits(pixels, axis=-1), self._store.grid, self._origin, self.shape)

    # ----------------------------------------------------------------- export
    def to_rle(self) -> dict[str, Any] | list[Any]:
        """Encode as compressed COCO RLE, byte for byte as ``pycocotools.mask.encode``.

        An RLE has no origin: the origin is left out. A mask read from an RLE comes back at that
        RLE's size (its `source_shape`), byte for byte, even in a batch of larger masks; a mask
        stacked with larger dense masks by `stack` comes back padded to their grid.

        Returns
        -------
        dict or list
            ``{"size": [H, W], "counts": bytes}`` for a single mask; a list of them for a batch
            (nested lists for a batch of more than one dimension).

        Examples
        --------
        >>> import numpy as np, geoiou
        >>> geoiou.Mask(np.array([[0, 1, 1], [0, 1, 0]])).to_rle()
        {'size': [2, 3], 'counts': b'231'}
        >>> geoiou.Mask(np.zeros((2, 2, 2))).to_rle()  # empty masks: one run of false pixels
        [{'size': [2, 2], 'counts': b'4'}, {'size': [2, 2], 'counts': b'4'}]
        """
        encoded = self._store.encode(self._index.reshape(-1))
        if not self.shape:
            return encoded[0]
        nested = np.empty(self.size, dtype=object)
        for k, one in enumerate(encoded):
            nested[k] = one
        rles: list[Any] = nested.reshape(self.shape).tolist()
        return rles

    # ----------------------------------------------------------------- pixels and geometry
    @functools.cached_property
    def _data(self) -> np.ndarray:
        """The boolean pixels ``(*shape, H, W)``: a view of the store when the masks are consecutive."""
        return self._store.select(self._index)

    @property
    def data(self) -> np.ndarray:
        """The boolean pixels, shape ``(*shape, H, W)`` (read-only)."""
        return self._data

    @property
    def grid_shape(self) -> tuple[int, int]:
        """``(H, W)``: the rows and columns of pixels every mask of the batch has (nothing is decoded).

        Examples
        --------
        >>> import numpy as np, geoiou
        >>> geoiou.Mask(np.zeros((3, 4, 5), dtype=bool)).grid_shape
        (4, 5)
        """
        return self._store.grid

    @property
    def source_shape(self) -> np.ndarray:
        """``(height, width)`` each mask was given with, shape ``(*shape, 2)``: its RLE's size, or its array's grid.

        A batch of masks of several sizes shares the largest grid (`grid_shape`), each padded with
        false pixels; this is each one's own size (what an evaluation checks against its image).

        Examples
        --------
        >>> import geoiou
        >>> masks = geoiou.Mask.from_rle([{"size": [2, 3], "counts": [6]}, {"size": [4, 1], "counts": [4]}])
        >>> masks.grid_shape, masks.source_shape.tolist()
        ((4, 3), [[2, 3], [4, 1]])
        """
        return np.array(self._store.source_shapes[self._index])

    @property
    def origin(self) -> np.ndarray:
        """``(x0, y0)`` of each mask, shape ``(*shape, 2)``."""
        return np.array(self._origin)

    @property
    def area(self) -> float | np.ndarray:
        return as_measure(self._store.counts[self._index].astype(np.float64))

    @property
    def bounds(self) -> np.ndarray:
        row0, row1, col0, col1 = np.moveaxis(self._store.boxes[self._index].astype(np.float64), -1, 0)
        x0, y0 = self._origin[..., 0], self._origin[..., 1]
        bounds = np.stack([x0 + col0, y0 + row0, x0 + col1, y0 + row1], axis=-1)
        bounds[row1 == row0] = np.nan  # an empty mask has an empty box
        return bounds

    @property
    def centroid(self) -> np.ndarray:
        height, width = self._store.grid
        count = self._store.counts[self._index]
        with np.errstate(invalid="ignore", divide="ignore"):
            # Pixel centres lie at half-integers; an empty mask has no centroid (NaN).
            cx = (self._data.sum(axis=-2) @ (np.arange(width) + 0.5)) / count
            cy = (self._data.sum(axis=-1) @ (np.arange(height) + 0.5)) / count
        centroids: np.ndarray = np.stack([cx, cy], axis=-1) + self._origin
        return centroids

    def to_shapely(self) -> shapely.Geometry | np.ndarray:
        """Return the exact region as shapely (Multi)Polygons: the union of the true pixel squares.

        Examples
        --------
        >>> import numpy as np, geoiou
        >>> geoiou.Mask(np.array([[1, 1], [0, 1]])).to_shapely().area
        3.0
        """
        return self.to_polygons().to_shapely()

    def to_polygons(self) -> Polygon:
        """Return the exact outline of each mask's true pixels as a `Polygon` batch of the same shape.

        The polygons are the masks' regions, not an approximation: pixel squares joined along
        their shared edges, with holes, and one part per 4-connected group of pixels (pixels that
        touch only at a corner are parts that touch at a point). So ``iou(mask,
        mask.to_polygons())`` is 1. The whole batch is traced at once, with vertices only where
        the outline turns. An empty mask gives an empty polygon.

        Examples
        --------
        >>> import numpy as np, geoiou
        >>> mask = geoiou.Mask(np.array([[1, 1, 0], [1, 0, 0], [0, 0, 1]]), origin=(10, 20))
        >>> outline = mask.to_polygons()
        >>> outline.to_shapely().wkt
        'MULTIPOLYGON (((10 20, 12 20, 12 21, 11 21, 11 22, 10 22, 10 20)), ((12 22, 13 22, 13 23, 12 23, 12 22)))'
        >>> geoiou.iou(mask, outline)
        1.0
        >>> geoiou.Mask(np.zeros((2, 2))).to_polygons().area  # an empty mask
        0.0
        """
        from geoiou.regions.mask_conversions import outline

        return outline(self)

    @classmethod
    def from_polygon(
        cls,
        polygon: Polygon | Box | RotatedBox,
        *,
        shape: tuple[int, int] | None = None,
        origin: ArrayLike | None = None,
        rule: Literal["centre", "any", "coverage"] = "centre",
        fraction: float = 0.5,
    ) -> Mask:
        """Rasterize vector regions to masks on one pixel grid, by a named rule.

        Rasterizing changes the region (a mask is made of whole pixels), so the rule is the
        caller's choice; compare a polygon with a mask directly (exact pixel coverage) when the
        mask is only needed for the comparison.

        Parameters
        ----------
        polygon : Polygon, Box or RotatedBox
            One region or a batch; the masks have its batch shape.
        shape : (int, int), optional
            The grid ``(H, W)``; by default the smallest integer grid that holds every region.
        origin : array_like of shape (2,), optional
            ``(x0, y0)`` of the grid's pixel (0, 0): by default ``(0, 0)`` with `shape`, else the
            integer point below and left of every region.
        rule : {"centre", "any", "coverage"}, default "centre"
            A pixel is true when its centre is in the region (on the boundary counts), when the
            region covers any of its area, or when it covers at least `fraction` of it. The
            coverage is exact, not sampled.
        fraction : float, default 0.5
            The least covered fraction of a pixel for ``rule="coverage"``, in ``(0, 1]``.

        Examples
        --------
        >>> import geoiou
        >>> triangle = geoiou.Polygon([(0, 0), (2.6, 0), (0, 2.6)])  # covers pixels 1, 0.92 (twice), 0.18 (three times)
        >>> geoiou.Mask.from_polygon(triangle).data.astype(int)  # centres (0.5, 0.5), (1.5, 0.5), (0.5, 1.5)
        array([[1, 1, 0],
               [1, 0, 0],
               [0, 0, 0]])
        >>> [int(geoiou.Mask.from_polygon(triangle, rule="any").area),
        ...  int(geoiou.Mask.from_polygon(triangle, rule="coverage", fraction=0.95).area)]
        [6, 1]
        >>> geoiou.Mask.from_polygon(geoiou.Box([0.5, 0, 2, 1]), shape=(1, 3), rule="coverage", fraction=1.0).data
        array([[False,  True, False]])
        """
        from geoiou.regions.mask_conversions import rasterize

        pixels, grid_origin = rasterize(polygon, shape, origin, rule, fraction)
        return cls(pixels, origin=grid_origin)

    def _hull_table(self, needed: np.ndarray | None = None) -> tuple[ConvexHulls, np.ndarray]:
        """The convex hulls of the masks and each mask's row in them, by flat index (the GIoU hull kernel's input).

        With `needed` (flat indices), only the hulls of those masks are gathered: a few pairs of a
        large batch cost a few hulls. Each mask's hull is computed once per pixel store
        (`_PixelStore.hull_vertices`, in grid units) and moved to the mask's origin here.
        """
        used = np.arange(self.size) if needed is None else np.unique(needed)
        rows = np.zeros(self.size, dtype=np.int64)
        rows[used] = np.arange(len(used))
        stored, origins = self._index.reshape(-1)[used], self._origin.reshape(-1, 2)[used]
        parts = [self._store.hull_vertices(int(mask)) for mask in stored]
        counts = np.array([len(part) for part in parts], dtype=np.int64)
        offsets = np.zeros(len(parts) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        coords = np.concatenate(parts) if parts else np.zeros((0, 2))
        coords = coords + np.repeat(origins, counts, axis=0)  # one rounding per coordinate
        return ConvexHulls(np.ascontiguousarray(coords, dtype=np.float64), offsets), rows

    def _describe_one(self) -> str:
        h, w = self._store.grid
        x0, y0 = self._origin
        return f"<{h}x{w} pixels, {int(self.area)} true, origin=({x0:g}, {y0:g})>"


# --------------------------------------------------------------------------- the pixel store
@dataclass(frozen=True)
class _Windows:
    """Each mask's pixels packed 64 to a word along the lines of the grid, cut down to its bounding box.

    A line is a grid row (its bits are the columns), or a grid column when `column_major` (its
    bits are the rows, the order of COCO runs). Mask m keeps the lines of its box from
    ``line0[m]`` on, each as ``stride[m]`` words that start at word ``word0[m]`` of the line (bit
    b of word w is pixel ``64·w + b`` of the line), from ``words[offsets[m]]`` on. Two masks'
    windows in one orientation are thus aligned word for word over the overlap of their boxes,
    and all windows together are about as small as the boxes, which keeps the kernel's reads in cache.
    """

    column_major: bool
    boxes: np.ndarray  #: (M, 4) int64: first row, last row + 1, first column, last column + 1; zeros when empty
    line0: np.ndarray  #: (M,) int64: first line kept
    word0: np.ndarray  #: (M,) int64: first word kept of each line
    stride: np.ndarray  #: (M,) int64: words kept per line
    offsets: np.ndarray  #: (M,) int64: first word of each mask
    words: np.ndarray  #: (T,) little-endian uint64

    @classmethod
    def zeros(cls, column_major: bool, boxes: np.ndarray) -> _Windows:
        """Windows for the given boxes, all words zero: the lines of each box and the words that cover its bits."""
        boxes = boxes.astype(np.int64)
        lines, bits = (boxes[:, 2:], boxes[:, :2]) if column_major else (boxes[:, :2], boxes[:, 2:])
        word0 = bits[:, 0] // WORD_BITS
        stride = np.where(bits[:, 1] > bits[:, 0], -(-bits[:, 1] // WORD_BITS) - word0, 0)
        sizes = (lines[:, 1] - lines[:, 0]) * stride
        words = np.zeros(int(sizes.sum()), dtype="<u8")
        return cls(column_major, boxes, lines[:, 0].copy(), word0, stride, np.cumsum(sizes) - sizes, words)

    @functools.cached_property
    def counts(self) -> np.ndarray:
        """True pixels of each mask, (M,) int64."""
        owner = np.repeat(np.arange(len(self.boxes)), np.diff(self.offsets, append=self.words.size))
        return np.bincount(owner, weights=np.bitwise_count(self.words), minlength=len(self.boxes)).astype(np.int64)

    def spans(self, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Bounding boxes of `masks` as line range and bit range: ``(line_lo, line_hi, bit_lo, bit_hi)``."""
        boxes = self.boxes[masks]
        lines, bits = (boxes[:, 2:], boxes[:, :2]) if self.column_major else (boxes[:, :2], boxes[:, 2:])
        return lines[:, 0], lines[:, 1], bits[:, 0], bits[:, 1]

    def pixels(self, masks: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """The pixels ``(rows[k], cols[k])`` of masks ``masks[k]`` (grid coordinates), read from the packed words.

        Nothing is decoded: a pixel outside its mask's bounding box is false.
        """
        line, bit = (cols, rows) if self.column_major else (rows, cols)
        line_lo, line_hi, bit_lo, bit_hi = self.spans(masks)
        inside = (line >= line_lo) & (line < line_hi) & (bit >= bit_lo) & (bit < bit_hi)
        at = (
            self.offsets[masks] + (line - self.line0[masks]) * self.stride[masks] + bit // WORD_BITS - self.word0[masks]
        )
        words = self.words[np.where(inside, at, 0)] if self.words.size else np.zeros(len(at), dtype="<u8")
        bits: np.ndarray = inside & ((words >> (bit % WORD_BITS).astype(np.uint64)) & np.uint64(1)).astype(bool)
        return bits

    def cells(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For every word, in storage order: its mask, its line within the window and its word within the line."""
        line_lo, line_hi, _, _ = self.spans(np.arange(len(self.boxes)))
        line, owner = ragged_arange(0, np.where(self.stride > 0, line_hi - line_lo, 0))
        word, cell = ragged_arange(0, self.stride[owner])  # each line holds stride words
        return owner[cell], line[cell], word


def _dense_row_windows(dense: np.ndarray) -> _Windows:
    """Windows along the rows of dense masks ``(M, H, W)``: each mask's box found and its window packed straight
    from its pixels by the crate (`mask_windows`), masks in parallel."""
    windows = _Windows.zeros(False, mask_windows.dense_boxes(dense))
    mask_windows.pack_dense_windows(dense, windows.line0, windows.word0, windows.stride, windows.offsets, windows.words)
    return windows


def _run_column_windows(runs: coco_rle.Runs) -> _Windows:
    """Windows along the columns of masks given as COCO runs, built from the runs alone (`mask_windows`).

    Runs are column-major, so a run cut at column ends sets a range of bits in one line: whole
    words in its middle, partial words at its ends. The cost follows the number of runs and
    words, not of pixels, and nothing is decoded or transposed.
    """
    return _packed_runs(runs, True)


def _run_row_windows(runs: coco_rle.Runs) -> _Windows:
    """Windows along the rows of masks given as COCO runs (only to compare them with dense masks).

    A run piece, rows ``low:high`` of one column, sets that column's bit in those rows' lines.
    """
    return _packed_runs(runs, False)


def _packed_runs(runs: coco_rle.Runs, column_major: bool) -> _Windows:
    windows = _Windows.zeros(column_major, _run_boxes(runs))
    pack = mask_windows.pack_run_columns if column_major else mask_windows.pack_run_rows
    pack(
        runs.starts,
        runs.stops,
        runs.offsets,
        np.maximum(runs.sizes[:, 0], 1),  # a mask of height 0 has no runs
        windows.line0,
        windows.word0,
        windows.stride,
        windows.offsets,
        windows.words,
    )
    return windows


def _run_boxes(runs: coco_rle.Runs) -> np.ndarray:
    """Bounding boxes ``(M, 4)`` of masks given as column-major runs, each of its own height (zeros when empty)."""
    return mask_windows.run_boxes(runs.starts, runs.stops, runs.offsets, np.maximum(runs.sizes[:, 0], 1))


def _masks_from_runs(
    runs: coco_rle.Runs, origin: np.ndarray, shape: tuple[int, ...], grid: tuple[int, int] | None = None
) -> Mask:
    """Unpickle masks sent as runs, on the grid of the batch they came from."""
    mask = object.__new__(Mask)
    mask._attach(_PixelStore.of_runs(runs, grid), np.arange(len(runs.sizes)).reshape(shape), origin)
    return mask


def _masks_from_bits(packed: np.ndarray, grid: tuple[int, int], origin: np.ndarray, shape: tuple[int, ...]) -> Mask:
    """Unpickle masks sent as packed pixels."""
    pixels = np.unpackbits(packed, axis=-1, count=grid[1]).astype(bool).reshape(-1, *grid)
    mask = object.__new__(Mask)
    mask._attach(_PixelStore(grid, dense=pixels), np.arange(len(pixels)).reshape(shape), origin)
    return mask


class _PixelStore:
    """The pixels of M masks on one ``H × W`` grid, built from dense pixels or from COCO runs.

    The form given is kept; the dense pixels and the packed windows are derived on first use and
    cached. Windows come in the orientation that is cheap for the form given (rows for dense
    pixels, columns for runs); the other one is built only to compare with a mask of the other form.
    """

    def __init__(
        self, grid: tuple[int, int], *, dense: np.ndarray | None = None, runs: coco_rle.Runs | None = None
    ) -> None:
        self.grid = (int(grid[0]), int(grid[1]))
        self._given_dense = None if dense is None else readonly(dense)
        self._runs = runs
        self.size = len(dense) if dense is not None else len(self._held_runs().sizes)
        #: ``(M, 2)``: the ``(height, width)`` each mask was given with (an RLE's size), at most the grid.
        #: Runs are read with their own mask's height: masks of several sizes share one run table.
        self.source_shapes = readonly(
            np.broadcast_to(np.array(self.grid, dtype=np.int64), (self.size, 2)) if runs is None else runs.sizes
        )
        #: Whether the cheap windows run along columns (built from runs) rather than rows.
        self.column_major = runs is not None
        #: Each mask's convex hull in grid units, by mask, computed on first use (`hull_vertices`).
        self._hulls: dict[int, np.ndarray] = {}

    @classmethod
    def of_runs(cls, runs: coco_rle.Runs, grid: tuple[int, int] | None = None) -> _PixelStore:
        """A store of masks given as runs of any sizes, on `grid` (by default the largest of them)."""
        if grid is None:
            grid = (int(runs.sizes[:, 0].max(initial=0)), int(runs.sizes[:, 1].max(initial=0)))
        return cls(grid, runs=runs)

    @classmethod
    def joined(cls, parts: Sequence[tuple[_PixelStore, np.ndarray]]) -> _PixelStore:
        """The masks ``index`` of each store held as runs, in order, in one store (on the largest grid)."""
        grid = (max(store.grid[0] for store, _ in parts), max(store.grid[1] for store, _ in parts))
        return cls.of_runs(coco_rle.Runs.concatenate([store._held_runs().take(index) for store, index in parts]), grid)

    @property
    def one_height(self) -> bool:
        """Whether every mask held as runs has the grid's height (their positions then mean the same pixels)."""
        return self._runs is None or bool((self._runs.sizes[:, 0] == self.grid[0]).all())

    @functools.cached_property
    def dense(self) -> np.ndarray:
        """Boolean pixels ``(M, H, W)``, read-only."""
        if self._given_dense is not None:
            return self._given_dense
        height, width = self.grid
        # Decoded column by column, as the runs go: the (M, H, W) result is a transposed view. Masks shorter than
        # the grid are first placed on it (their runs re-cut per column).
        runs = self._held_runs() if self.one_height else self._held_runs().on_grid(height, width)
        columns = runs.paint(0, self.size, 0, width).reshape(self.size, width, height)
        return readonly(columns.transpose(0, 2, 1))

    @functools.cached_property
    def counts(self) -> np.ndarray:
        """True pixels of each mask, (M,) int64: summed from the runs when held as runs (no windows built)."""
        if self._runs is None:
            return self.windows().counts
        return self._runs.pixel_counts()

    @functools.cached_property
    def boxes(self) -> np.ndarray:
        """Bounding boxes (M, 4) int64 (first row, last row + 1, first column, last column + 1; zeros when empty)."""
        return self.windows().boxes if self._runs is None else _run_boxes(self._runs)

    def windows(self, rows: bool = False) -> _Windows:
        """The packed windows: along columns when built from runs, unless `rows` asks for rows."""
        return self._row_windows if rows or not self.column_major else self._column_windows

    @functools.cached_property
    def _row_windows(self) -> _Windows:
        return _dense_row_windows(self.dense) if self._runs is None else _run_row_windows(self._runs)

    @functools.cached_property
    def _column_windows(self) -> _Windows:
        return _run_column_windows(self._held_runs())

    def encode(self, index: np.ndarray) -> list[dict[str, Any]]:
        """Compressed COCO RLEs of the masks at `index`; masks held as runs are encoded from their runs."""
        runs = self._runs
        if runs is None:
            return coco_rle.encode_batch(self.select(index))
        # Each at its own size: the grid's padding is no part of it.
        strings = coco_rle.compress_runs(runs, index)
        return [{"size": size, "counts": string} for size, string in zip(runs.sizes[index].tolist(), strings)]

    def hull_vertices(self, mask: int) -> np.ndarray:
        """The vertices ``(k, 2)`` of the convex hull of a mask's true pixel squares, in grid units (computed once).

        Pixel ``(r, c)`` is ``[c, c + 1) × [r, r + 1)``: the vertices are whole numbers, exact.
        Only the outer corners of the first and last true pixel of each row can be hull vertices,
        and only the mask's bounding box is decoded (masks from COCO runs stay runs). An empty
        mask has none.
        """
        vertices = self._hulls.get(mask)
        if vertices is None:
            row0, row1, col0, col1 = (int(v) for v in self.boxes[mask])
            if row1 == row0:
                vertices = np.zeros((0, 2))
            else:
                data = self.window(mask, slice(row0, row1), slice(col0, col1))
                rows = np.flatnonzero(data.any(axis=1))
                first = np.argmax(data[rows], axis=1)
                last = data.shape[1] - np.argmax(data[rows, ::-1], axis=1)
                xs = np.concatenate([first, first, last, last]) + col0
                ys = np.concatenate([rows, rows + 1, rows, rows + 1]) + row0
                corners = shapely.multipoints(np.stack([xs, ys], axis=1).astype(np.float64))
                vertices = shapely.get_coordinates(shapely.convex_hull(corners))
            self._hulls[mask] = vertices
        return vertices

    def window(self, mask: int, rows: slice, cols: slice) -> np.ndarray:
        """Pixels of one mask in a window ``[rows, cols]``, decoding only those columns of its runs."""
        if self._runs is None or "dense" in self.__dict__:
            return self.dense[mask, rows, cols]
        height, width = (int(n) for n in self._runs.sizes[mask])  # the mask's own grid: beyond it, false pixels
        window = np.zeros((rows.stop - rows.start, cols.stop - cols.start), dtype=bool)
        own_cols = min(cols.stop, width)
        if own_cols > cols.start and min(rows.stop, height) > rows.start:
            columns = self._runs.paint(mask, mask + 1, cols.start, own_cols).reshape(own_cols - cols.start, height)
            own_rows = columns.T[rows.start : min(rows.stop, height)]
            window[: own_rows.shape[0], : own_rows.shape[1]] = own_rows
        return window

    @property
    def held_as_runs(self) -> bool:
        """Whether the store was built from COCO runs (then `runs` is not None)."""
        return self._runs is not None

    @property
    def runs(self) -> coco_rle.Runs | None:
        """The COCO runs the store was built from; None for dense pixels."""
        return self._runs

    def _held_runs(self) -> coco_rle.Runs:
        """The runs of a store built from runs (callers know it was: dense stores never ask)."""
        if self._runs is None:  # pragma: no cover - unreachable by construction
            raise TypeError("a pixel store built from dense pixels holds no runs")
        return self._runs

    def select(self, index: np.ndarray) -> np.ndarray:
        """Pixels of the masks at `index`, shape ``(*index.shape, H, W)``: a view when they are consecutive."""
        flat = index.ravel()
        consecutive = flat.size > 0 and flat[-1] - flat[0] == flat.size - 1 and (np.diff(flat) == 1).all()
        pixels = self.dense[flat[0] : flat[-1] + 1] if consecutive else self.dense[flat]
        return readonly(pixels.reshape(*index.shape, *self.grid))


def _span(flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First true index and one past the last along the last axis; ``(0, 0)`` where none is true."""
    n = flags.shape[-1]
    if n == 0:  # argmax needs at least one element
        zeros = np.zeros(flags.shape[:-1], dtype=np.int64)
        return zeros, zeros
    any_true = flags.any(axis=-1)
    first = np.argmax(flags, axis=-1)
    stop = n - np.argmax(flags[..., ::-1], axis=-1)
    return np.where(any_true, first, 0), np.where(any_true, stop, 0)


# --------------------------------------------------------------------------- helpers
def _count(shape: tuple[int, ...]) -> int:
    return int(np.prod(shape, dtype=np.int64))


#: The largest magnitude of a pixel edge: beyond 2**52 float64 numbers are more than half a pixel
#: apart, so pixel edges (and a mask's bounds) could no longer be told apart or placed.
LARGEST_PIXEL_EDGE = 2.0**52


def _origins(origin: ArrayLike, batch: tuple[int, ...], grid: tuple[int, int]) -> np.ndarray:
    """Validate the origin and broadcast it to one ``(x0, y0)`` per mask of a grid ``(H, W)``."""
    origin_array = as_float_array(origin, "origin", trailing=2)
    # The far edge of the grid along x is x0 + W, along y it is y0 + H.
    reach = np.abs(origin_array) + np.array([grid[1], grid[0]], dtype=np.float64)
    too_far = ~(reach <= LARGEST_PIXEL_EDGE)
    if too_far.any():
        raise fail(
            "origin",
            "pixel edges within ±2**52 (about 4.5e15), where float64 still resolves a pixel: "
            "translate the data towards 0",
            f"{origin_array[tuple(np.argwhere(too_far)[0][:-1])].tolist()} with a grid of {grid[0]} × {grid[1]} pixels",
        )
    try:
        return np.broadcast_to(origin_array, (*batch, 2))
    except ValueError:
        raise fail("origin", f"of shape (2,) or {(*batch, 2)}", f"shape {origin_array.shape}") from None


def _binary(array: ArrayLike) -> np.ndarray:
    """Validate a 0/1 raster and return it as bool, explaining the usual mistakes."""
    if isinstance(array, Mapping) and "counts" in array:
        raise fail(
            "array",
            "a 2-D raster (H, W) or a batch (..., H, W); for a COCO RLE dict use geoiou.Mask.from_rle(rle)",
            array,
        )
    data = as_numpy(array, "array")
    if data.ndim < 2:
        raise fail("array", "a 2-D raster (H, W) or a batch (..., H, W)", f"shape {data.shape}")
    if data.dtype == bool:
        return data
    if not np.issubdtype(data.dtype, np.number) or np.issubdtype(data.dtype, np.complexfloating):
        raise fail("array", "boolean or 0/1 real numbers", f"dtype {data.dtype}")
    binary = (data == 0) | (data == 1)
    if binary.all():
        return data.astype(bool)
    value = data[tuple(np.argwhere(~binary)[0])]
    if np.isin(data, (0, 255)).all():  # an 8-bit image of a mask (PNG masks are written 0/255)
        hint = "; it looks like a 0/255 image: use Mask(array > 0)"
    elif np.issubdtype(data.dtype, np.floating) and np.nanmin(data) >= 0 and np.nanmax(data) <= 1:
        hint = "; it looks like probabilities: threshold them first, e.g. Mask(probs >= 0.5)"
    elif np.issubdtype(data.dtype, np.integer):
        hint = "; it looks like a label map: select one label, e.g. Mask(labels == k)"
    else:
        hint = ""
    raise fail("array", "boolean or only 0 and 1" + hint, value)
