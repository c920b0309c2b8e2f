"""COCO run-length encoding (RLE) of binary masks, in NumPy, byte for byte as ``pycocotools.mask``.

A COCO RLE is a dict ``{"size": [h, w], "counts": ...}``. The counts are the lengths of alternating
runs of false and true pixels in column-major order (down the first column, then the next),
starting with a run of false pixels that may be empty. They come *uncompressed* (a list of ints,
as in COCO's ``iscrowd`` annotations) or *compressed* into a string: each count, minus the count two
before it (from the fourth count on), is written as a signed little-endian number in groups of 5
bits, one character per group (``chr(48 + group)``, plus 32 when another group follows).

`encode` writes compressed RLE; `decode` reads both forms. `to_runs` gives the foreground runs
as arrays, which `Mask.from_rle` uses without ever building the dense pixels.

Examples
--------
>>> import numpy as np
>>> from geoiou import rle
>>> mask = np.array([[0, 1, 1], [0, 1, 0]], dtype=bool)
>>> encoded = rle.encode(mask)
>>> encoded
{'size': [2, 3], 'counts': b'231'}
>>> np.array_equal(rle.decode(encoded), mask)
True
>>> rle.decode({"size": [2, 3], "counts": [2, 3, 1]}).astype(int)  # uncompressed counts
array([[0, 1, 1],
       [0, 1, 0]])
"""

from __future__ import annotations

import functools
import operator
from itertools import chain, repeat
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np
from numpy.typing import ArrayLike

from geoiou._ranges import ragged_arange
from geoiou._validation import fail

__all__ = [
    "Runs",
    "compress",
    "compress_runs",
    "decode",
    "decode_batch",
    "decompress",
    "encode",
    "encode_batch",
    "to_runs",
]


#: Runs of the masks that array work over millions of runs takes at a time (`Runs.stretches`).
_STRETCH_RUNS = 1 << 18

#: Characters of one compressed count at most: 12 groups of 5 bits fill a signed 64-bit integer.
_MAX_GROUPS = 12


class Runs(NamedTuple):
    """The true runs of n masks in column-major order (pixel ``(r, c)`` of an ``h × w`` mask is ``c·h + r``).

    Mask k owns the runs ``offsets[k]:offsets[k + 1]``; run i covers ``starts[i] <= p < stops[i]``.
    Runs are sorted and never empty; two may touch (uncompressed counts can hold an empty run).
    """

    sizes: np.ndarray  #: (n, 2) int64: ``(h, w)`` of each mask
    starts: np.ndarray  #: (R,) int64
    stops: np.ndarray  #: (R,) int64
    offsets: np.ndarray  #: (n + 1,) int64

    @classmethod
    def concatenate(cls, pieces: Sequence[Runs]) -> Runs:
        """The masks of every piece, in order.

        Examples
        --------
        >>> from geoiou import rle
        >>> runs = rle.to_runs([{"size": [2, 2], "counts": [1, 2, 1]}, {"size": [1, 3], "counts": [0, 1, 1, 1]}])
        >>> rle.Runs.concatenate([runs.slice(1, 2), runs.slice(0, 1)]).offsets
        array([0, 2, 3])
        """
        shifts = np.cumsum([0] + [len(piece.starts) for piece in pieces[:-1]])
        offsets = [piece.offsets[1:] + shift for piece, shift in zip(pieces, shifts)]
        return cls(
            np.concatenate([piece.sizes for piece in pieces]).reshape(-1, 2),
            np.concatenate([piece.starts for piece in pieces]),
            np.concatenate([piece.stops for piece in pieces]),
            np.concatenate([np.zeros(1, dtype=np.int64), *offsets]).astype(np.int64),
        )

    def pixels_before(self) -> np.ndarray:
        """(R + 1,) int64: true pixels of all runs before each run, masks end to end, and the total at the end.

        Examples
        --------
        >>> from geoiou import rle
        >>> runs = rle.to_runs([{"size": [2, 2], "counts": [1, 2, 1]}, {"size": [1, 3], "counts": [0, 1, 1, 1]}])
        >>> runs.pixels_before()
        array([0, 2, 3, 4])
        """
        before = np.zeros(len(self.starts) + 1, dtype=np.int64)
        np.cumsum(self.stops - self.starts, out=before[1:])
        return before

    def pixel_counts(self) -> np.ndarray:
        """(n,) int64: the true pixels of each mask.

        Examples
        --------
        >>> from geoiou import rle
        >>> rle.to_runs([{"size": [2, 2], "counts": [1, 2, 1]}, {"size": [1, 3], "counts": [3]}]).pixel_counts()
        array([2, 0])
        """
        counts = np.zeros(len(self.sizes), dtype=np.int64)
        for first, stop in self.stretches():
            piece = self.slice(first, stop)
            counts[first:stop] = np.diff(piece.pixels_before()[piece.offsets])
        return counts

    def stretches(self, runs: int | None = None) -> list[tuple[int, int]]:
        """Consecutive ranges ``(first, stop)`` of masks holding about `runs` runs each (at least one mask each).

        Work over millions of runs goes a stretch at a time: its temporaries stay in cache and in
        memory the allocator reuses.

        Examples
        --------
        >>> from geoiou import rle
        >>> rle.to_runs([{"size": [1, 4], "counts": [0, 1, 1, 1, 1]}] * 3).stretches(runs=3)
        [(0, 2), (2, 3)]
        """
        bounds = _stretch_bounds(self.offsets[1:], runs or _STRETCH_RUNS)
        return list(zip(bounds[:-1], bounds[1:]))

    def take(self, index: ArrayLike) -> Runs:
        """The runs of masks `index` (1-D), in that order.

        Examples
        --------
        >>> from geoiou import rle
        >>> runs = rle.to_runs([{"size": [2, 2], "counts": [1, 2, 1]}, {"size": [1, 3], "counts": [0, 1, 1, 1]}])
        >>> runs.take([1, 1]).starts
        array([0, 2, 0, 2])
        """
        index = np.asarray(index, dtype=np.int64).reshape(-1)
        counts = self.offsets[index + 1] - self.offsets[index]
        owner = np.repeat(np.arange(len(index)), counts)
        run = np.arange(owner.size) - np.repeat(np.cumsum(counts) - counts, counts) + self.offsets[index][owner]
        return Runs(
            self.sizes[index],
            self.starts[run],
            self.stops[run],
            np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        )

    def slice(self, first: int, stop: int) -> Runs:
        """The runs of masks ``first:stop`` alone.

        Examples
        --------
        >>> from geoiou import rle
        >>> runs = rle.to_runs([{"size": [2, 2], "counts": [1, 2, 1]}, {"size": [1, 3], "counts": [0, 1, 1, 1]}])
        >>> runs.slice(1, 2)
        Runs(sizes=array([[1, 3]]), starts=array([0, 2]), stops=array([1, 3]), offsets=array([0, 2]))
        """
        low, high = int(self.offsets[first]), int(self.offsets[stop])
        return Runs(
            self.sizes[first:stop], self.starts[low:high], self.stops[low:high], self.offsets[first : stop + 1] - low
        )

    def on_grid(self, height: int, width: int) -> Runs:
        """The same masks on an ``height × width`` grid at least as large as each: padded with false pixels.

        Padding keeps a mask's pixels where they are; only the positions of the runs of a mask
        shorter than `height` move (a position counts the pixels of the columns before it): its
        runs are cut at the ends of its columns and each piece is placed in its column on the new grid.

        Examples
        --------
        >>> from geoiou import rle
        >>> runs = rle.to_runs({"size": [2, 2], "counts": [1, 2, 1]})  # pixels (1, 0) and (0, 1): one run over both
        >>> padded = runs.on_grid(3, 4)
        >>> padded.sizes.tolist(), padded.starts.tolist(), padded.stops.tolist()  # (1, 0) is 1, (0, 1) is 3
        ([[3, 4]], [1, 3], [2, 4])
        """
        if (self.sizes > np.array([height, width])).any():
            raise ValueError("on_grid() needs a grid at least as large as every mask")
        sizes = np.broadcast_to(np.array([height, width], dtype=np.int64), self.sizes.shape).copy()
        if (self.sizes[:, 0] == height).all():
            return Runs(sizes, self.starts, self.stops, self.offsets)
        owner = np.repeat(np.arange(len(self.sizes)), np.diff(self.offsets))
        own = np.maximum(self.sizes[owner, 0], 1)  # an empty mask (height 0) has no runs
        first_col, last_col = self.starts // own, (self.stops - 1) // own
        step, run = ragged_arange(0, last_col - first_col + 1)
        col = first_col[run] + step
        low = np.maximum(self.starts[run] - col * own[run], 0)
        high = np.minimum(self.stops[run] - col * own[run], own[run])
        offsets = np.searchsorted(owner[run], np.arange(len(self.sizes) + 1)).astype(np.int64)
        return Runs(sizes, col * height + low, col * height + high, offsets)

    def paint(self, first: int, stop: int, col_start: ArrayLike, col_stop: ArrayLike) -> np.ndarray:
        """Pixels of masks ``first:stop`` (all of one height h), column after column, mask after mask.

        Mask ``first + k`` contributes its columns ``col_start[k] <= c < col_stop[k]`` (scalars
        apply to every mask), each as h pixels from the top: the result is 1-D, of length
        ``h · sum(col_stop - col_start)``.

        Examples
        --------
        >>> from geoiou import rle
        >>> runs = rle.to_runs({"size": [2, 3], "counts": [2, 3, 1]})
        >>> runs.paint(0, 1, 1, 3).astype(int)  # columns 1 and 2, top to bottom
        array([1, 1, 1, 0])
        >>> runs.paint(0, 1, 2, 2).size  # no columns
        0
        """
        heights = self.sizes[first:stop, 0]
        height = int(heights[0]) if heights.size else 0
        if (heights != height).any():
            raise ValueError("paint() needs masks of one height")
        count = stop - first
        low = np.broadcast_to(np.asarray(col_start, dtype=np.int64), (count,)) * height
        spans = np.broadcast_to(np.asarray(col_stop, dtype=np.int64), (count,)) * height - low
        base = np.cumsum(spans) - spans  # where each mask's columns begin in the result
        runs = slice(self.offsets[first], self.offsets[stop])
        owner = np.repeat(np.arange(count), np.diff(self.offsets[first : stop + 1]))
        # Clip every run to its mask's columns, then lay the masks' columns end to end.
        starts = np.clip(self.starts[runs] - low[owner], 0, spans[owner]) + base[owner]
        stops = np.clip(self.stops[runs] - low[owner], 0, spans[owner]) + base[owner]
        kept = stops > starts
        boundaries = np.column_stack([starts[kept], stops[kept]]).ravel()
        lengths = np.diff(boundaries, prepend=0, append=spans.sum())
        return np.repeat(np.arange(lengths.size) % 2 == 1, lengths)  # false, true, ... between the boundaries


def encode(mask: ArrayLike) -> dict[str, Any]:
    """Encode one binary mask as compressed COCO RLE, exactly as ``pycocotools.mask.encode``.

    Parameters
    ----------
    mask : array_like of shape (h, w)
        Boolean pixels, or numbers that are all 0 or 1.

    Returns
    -------
    dict
        ``{"size": [h, w], "counts": bytes}``.

    Raises
    ------
    InvalidRegionError
        If the mask is not 2-D or holds values other than 0 and 1.

    Examples
    --------
    >>> import numpy as np
    >>> from geoiou import rle
    >>> rle.encode(np.eye(3, dtype=bool))
    {'size': [3, 3], 'counts': b'013000'}
    >>> rle.encode(np.zeros((0, 4), dtype=bool))  # no pixels at all
    {'size': [0, 4], 'counts': b'0'}
    """
    array = _binary(mask, "mask")
    if array.ndim != 2:
        raise fail("mask", "a 2-D array (h, w); use encode_batch for (n, h, w)", f"shape {array.shape}")
    return encode_batch(array[None])[0]


def encode_batch(masks: ArrayLike | Sequence[ArrayLike]) -> list[dict[str, Any]]:
    """Encode several masks as compressed COCO RLE; the compression is vectorized over all of them.

    Parameters
    ----------
    masks : array_like of shape (n, h, w), or a sequence of 2-D arrays of any sizes
        Boolean pixels, or numbers that are all 0 or 1.

    Returns
    -------
    list of dict
        One ``{"size": [h, w], "counts": bytes}`` per mask.

    Examples
    --------
    >>> import numpy as np
    >>> from geoiou import rle
    >>> rle.encode_batch(np.array([[[1, 0]], [[1, 1]]]))
    [{'size': [1, 2], 'counts': b'011'}, {'size': [1, 2], 'counts': b'02'}]
    >>> rle.encode_batch([])
    []
    """
    if isinstance(masks, np.ndarray) and masks.ndim != 3:
        raise fail("masks", "an array (n, h, w) or a sequence of 2-D arrays", f"shape {masks.shape}")
    # `masks` is an (n, h, w) array or a sequence of masks here: both iterate over their masks.
    arrays = [_binary(mask, f"masks[{k}]") for k, mask in enumerate(masks)]  # type: ignore[arg-type]
    for k, array in enumerate(arrays):
        if array.ndim != 2:
            raise fail(f"masks[{k}]", "a 2-D array (h, w)", f"shape {array.shape}")
    counts = [_counts_of(array) for array in arrays]
    strings = _compress_all(counts)
    return [{"size": [int(n) for n in array.shape], "counts": string} for array, string in zip(arrays, strings)]


def decode(rle: dict[str, Any]) -> np.ndarray:
    """Decode one COCO RLE, compressed or uncompressed, into a boolean array ``(h, w)``.

    Parameters
    ----------
    rle : dict
        ``{"size": [h, w], "counts": c}`` with `c` a compressed string (bytes or str) or a list of
        run lengths.

    Returns
    -------
    ndarray of bool, shape (h, w)
        Column-major in memory (Fortran order), like pycocotools' output.

    Raises
    ------
    InvalidRegionError
        If the RLE is malformed; the message says what was wrong.

    Examples
    --------
    >>> from geoiou import rle
    >>> rle.decode({"size": [2, 2], "counts": b"13"}).astype(int)
    array([[0, 1],
           [1, 1]])
    >>> rle.decode({"size": [0, 0], "counts": b"0"}).shape  # an RLE of no pixels
    (0, 0)
    """
    if not isinstance(rle, dict):
        raise fail("rle", "one COCO RLE dict; use decode_batch for several", rle)
    runs = to_runs(rle)
    height, width = (int(n) for n in runs.sizes[0])
    result: np.ndarray = runs.paint(0, 1, 0, width).reshape(width, height).T
    return result


def decode_batch(rles: Sequence[dict[str, Any]]) -> np.ndarray:
    """Decode several COCO RLEs of one size into a boolean array ``(n, h, w)``.

    Raises
    ------
    InvalidRegionError
        If an RLE is malformed, or the sizes differ (decode those one at a time, or build
        ``Mask.from_rle``, which pads them to a shared grid).

    Examples
    --------
    >>> from geoiou import rle
    >>> rle.decode_batch([{"size": [1, 3], "counts": [1, 2]}, {"size": [1, 3], "counts": b"3"}]).astype(int)
    array([[[0, 1, 1]],
    <BLANKLINE>
           [[0, 0, 0]]])
    >>> rle.decode_batch([]).shape
    (0, 0, 0)
    """
    runs = to_runs(rles)
    if len(runs.sizes) and (runs.sizes != runs.sizes[0]).any():
        raise fail(
            "rles", "RLEs of one size; decode them one at a time", f"sizes {np.unique(runs.sizes, axis=0).tolist()}"
        )
    height, width = (int(n) for n in runs.sizes[0]) if len(runs.sizes) else (0, 0)
    result: np.ndarray = (
        runs.paint(0, len(runs.sizes), 0, width).reshape(len(runs.sizes), width, height).transpose(0, 2, 1)
    )
    return result


def to_runs(rles: dict[str, Any] | Sequence[dict[str, Any]]) -> Runs:
    """Validate COCO RLEs (compressed or not, any sizes) and return their true runs.

    Parameters
    ----------
    rles : dict or sequence of dict
        One RLE (the result then holds one mask) or several.

    Raises
    ------
    InvalidRegionError
        If an RLE is malformed; the message names the RLE and what was wrong.

    Examples
    --------
    >>> from geoiou import rle
    >>> runs = rle.to_runs([{"size": [2, 2], "counts": [1, 2, 1]}, {"size": [2, 2], "counts": b"4"}])
    >>> runs.starts, runs.stops, runs.offsets
    (array([1]), array([3]), array([0, 1, 1]))
    """
    if isinstance(rles, dict):
        return _parse([rles], "rle")
    if isinstance(rles, (str, bytes)) or not isinstance(rles, Sequence):
        raise fail("rles", "a COCO RLE dict or a sequence of them", rles)
    return _parse(list(rles), "rles")


def compress(counts: ArrayLike) -> bytes:
    """Compress run lengths into COCO's string form (``pycocotools`` ``rleToString``).

    Examples
    --------
    >>> from geoiou import rle
    >>> rle.compress([2, 3, 1])
    b'231'
    >>> rle.compress([0, 100, 4])  # long runs take more than one character
    b'0T34'
    >>> rle.compress([])
    b''
    """
    values = np.asarray(counts, dtype=np.int64).reshape(-1)
    return _compress_all([values])[0]


def decompress(string: bytes | str) -> np.ndarray:
    """Read run lengths from COCO's compressed string form (``pycocotools`` ``rleFrString``).

    Raises
    ------
    InvalidRegionError
        If a character is outside ``'0'``–``'o'``, or the string stops inside a count.

    Examples
    --------
    >>> from geoiou import rle
    >>> rle.decompress(b"0T34")
    array([  0, 100,   4])
    >>> rle.decompress("")
    array([], dtype=int64)
    """
    data = _as_bytes(string, "string")
    deltas, lengths = _read_strings(data, np.array([len(data)]), lambda k: data, ["string"])
    return _undo_deltas(deltas, _Layout.of(lengths))


# --------------------------------------------------------------------------- encoding
def _binary(mask: ArrayLike, param: str) -> np.ndarray:
    """The mask as bool, refusing values other than 0 and 1."""
    array = np.asarray(mask)
    if array.dtype == bool:
        return array
    if not np.issubdtype(array.dtype, np.number):
        raise fail(param, "boolean or 0/1 numbers", f"dtype {array.dtype}")
    binary = (array == 0) | (array == 1)
    if not binary.all():
        raise fail(param, "boolean or only 0 and 1", array[tuple(np.argwhere(~binary)[0])])
    return array.astype(bool)


def _counts_of(mask: np.ndarray) -> np.ndarray:
    """COCO counts of a 2-D mask: alternating false/true run lengths in column-major order."""
    height, width = mask.shape
    boundaries = _column_boundaries(mask)
    counts = np.diff(boundaries, prepend=0, append=height * width)
    # pycocotools writes no empty final run of false pixels (but writes "0" for a mask of no pixels).
    return counts[:-1] if boundaries.size and boundaries[-1] == height * width else counts


def _column_boundaries(mask: np.ndarray) -> np.ndarray:
    """``[start0, stop0, start1, ...]`` of the true runs of a 2-D mask, in column-major positions.

    Only the bounding box is scanned, transposed so that each column becomes a contiguous row.
    """
    height = mask.shape[0]
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if rows.size == 0:
        return np.zeros(0, dtype=np.int64)
    row0, row1, col0, col1 = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
    # Each column of the box, with one false pixel above and below, so every run has two edges.
    padded = np.zeros((col1 - col0, row1 - row0 + 2), dtype=bool)
    padded[:, 1:-1] = mask[row0:row1, col0:col1].T
    edges = np.flatnonzero(padded[:, 1:] != padded[:, :-1])
    col, row = np.divmod(edges, row1 - row0 + 1)
    boundaries = (col0 + col) * height + row0 + row
    # A run reaching the bottom of a column goes on at the top of the next one: join the two.
    joined = boundaries[1:-1:2] == boundaries[2::2]
    if joined.any():
        drop = np.zeros(boundaries.size, dtype=bool)
        drop[1:-1:2] = drop[2::2] = joined
        boundaries = boundaries[~drop]
    result: np.ndarray = boundaries.astype(np.int64)
    return result


def compress_runs(runs: Runs, selection: ArrayLike) -> list[bytes]:
    """Return the compressed COCO strings of masks `selection` of `runs`, without decoding any pixel.

    The strings are byte for byte those of ``pycocotools.mask.encode`` of the decoded masks. The
    counts of a mask are the gaps between 0, its run boundaries and its pixel count, for all masks
    at once; they are then compressed in one vectorized call.

    Examples
    --------
    >>> runs = to_runs([{"size": [2, 3], "counts": [2, 3, 1]}, {"size": [2, 3], "counts": [1, 2, 0, 1, 2]}])
    >>> compress_runs(runs, [0, 1])  # the second's empty false run joins its neighbours
    [b'231', b'132']
    >>> encode(decode({"size": [2, 3], "counts": [1, 2, 0, 1, 2]}))["counts"]
    b'132'
    """
    selection = np.asarray(selection, dtype=np.int64)
    total = runs.sizes[selection].prod(axis=1)
    first, stop = runs.offsets[selection], runs.offsets[selection + 1]
    step, owner = ragged_arange(0, stop - first)
    run = first[owner] + step
    boundaries = np.column_stack([runs.starts[run], runs.stops[run]]).ravel()
    boundary_owner = np.repeat(owner, 2)
    # Uncompressed counts may hold an empty false run between two true ones: their pixels form one run.
    touching = (boundaries[1:-1:2] == boundaries[2::2]) & (boundary_owner[1:-1:2] == boundary_owner[2::2])
    kept = np.ones(boundaries.size, dtype=bool)
    kept[1:-1:2] &= ~touching
    kept[2::2] &= ~touching
    boundaries, boundary_owner = boundaries[kept], boundary_owner[kept]
    per_mask = np.bincount(boundary_owner, minlength=len(selection))
    # Each mask's edges: 0, its boundaries, total; its counts are the differences of consecutive edges.
    edge_step, edge_owner = ragged_arange(0, per_mask + 2)
    edges = np.where(edge_step == 0, 0, total[edge_owner])
    edges[(edge_step > 0) & (edge_step <= per_mask[edge_owner])] = boundaries
    same_mask = edge_owner[1:] == edge_owner[:-1]
    counts = np.diff(edges)[same_mask]
    lengths = per_mask + 1
    last = np.cumsum(lengths) - 1
    # pycocotools writes no empty final run of false pixels (but writes "0" for a mask of no pixels).
    ends_on_true = (per_mask > 0) & (counts[last] == 0)
    counts = np.delete(counts, last[ends_on_true])
    lengths = lengths - ends_on_true
    return _compress_all(np.split(counts, np.cumsum(lengths)[:-1]) if len(lengths) else [])


def _compress_all(counts: list[np.ndarray]) -> list[bytes]:
    """COCO strings of several count arrays at once (``rleToString``, vectorized over every count)."""
    lengths = np.array([len(c) for c in counts], dtype=np.int64)
    values = np.concatenate(counts).astype(np.int64) if counts else np.zeros(0, dtype=np.int64)
    local = np.arange(values.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    deltas = values.copy()
    later = np.flatnonzero(local > 2)  # from the fourth count on, write the change from two before
    deltas[later] -= values[later - 2]
    digits, n_chars = _five_bit_groups(deltas)
    chars = digits[np.arange(digits.shape[1]) < n_chars[:, None]].astype(np.uint8).tobytes()
    # Split the characters back into one string per count array.
    owner = np.repeat(np.arange(len(counts)), lengths)
    ends = np.cumsum(np.bincount(owner, weights=n_chars, minlength=len(counts))).astype(np.int64)
    starts = ends - np.bincount(owner, weights=n_chars, minlength=len(counts)).astype(np.int64)
    return [chars[s:e] for s, e in zip(starts.tolist(), ends.tolist())]


def _five_bit_groups(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Characters of each signed value (one row each, padded) and how many of them each uses.

    A group is 5 bits, least significant first; the value ends once the bits left are only the
    sign extension of the last group's top bit, and every group but the last has 32 added.
    """
    columns, n_chars = [], np.zeros(values.size, dtype=np.int64)
    rest, pending = values.copy(), np.ones(values.size, dtype=bool)
    while pending.any():
        group = rest & 0x1F
        rest >>= 5  # arithmetic shift: negative values keep their sign
        more = np.where(group & 0x10, rest != -1, rest != 0)
        columns.append(48 + group + 0x20 * more)
        n_chars += pending
        pending &= more
    digits = np.stack(columns, axis=1) if columns else np.zeros((0, 0), dtype=np.int64)
    return digits, n_chars


# --------------------------------------------------------------------------- decoding
class _Names:
    """The name of RLE k's fields in messages (``rles[3].counts``, or ``counts`` for a single RLE), made on demand.

    Messages name one faulty RLE; building a name for each of a million valid ones would cost
    more than decoding them.
    """

    def __init__(self, param: str, first: int = 0) -> None:
        self.param, self.first = param, first

    def after(self, first: int) -> _Names:
        """The names of RLEs ``first, first + 1, ...`` numbered from 0 (a stretch decoded on its own)."""
        return _Names(self.param, self.first + first)

    def rle(self, k: int) -> str:
        return f"{self.param}[{k + self.first}]" if self.param == "rles" else self.param

    def field(self, k: int, name: str) -> str:
        return f"{self.param}[{k + self.first}].{name}" if self.param == "rles" else name

    def __getitem__(self, k: int) -> str:  # the counts of RLE k, the field most messages name
        return self.field(k, "counts")


def _parse(rles: list[Any], param: str) -> Runs:
    """Validate RLE dicts and return their true runs; every array step runs over all RLEs at once."""
    names = _Names(param)
    columns = _columns(rles)
    if columns is None:  # some RLE is not a dict of 'size' and 'counts': find it and say why
        for k, rle in enumerate(rles):
            _size_of(rle, names.rle(k), names.field(k, ""))
        raise AssertionError("unreachable: _columns refuses only what _size_of refuses")  # pragma: no cover
    size_values, count_values = columns
    sizes = _sizes(size_values, rles, names)
    # Stretches of about `_CHUNK_CHARACTERS` are decoded one after another: their temporaries stay
    # in cache and in memory the allocator reuses, instead of a fresh mapping per array.
    try:
        ends = np.cumsum(np.fromiter(map(len, count_values), np.int64, len(count_values)))
    except TypeError:  # some count has no length: reading it in one stretch names it
        return _parse_stretch(sizes, count_values, names)
    bounds = _stretch_bounds(ends, _CHUNK_CHARACTERS)
    if len(bounds) == 2:
        return _parse_stretch(sizes, count_values, names)
    length = int(ends[-1])
    # Each stretch's runs are copied out while still in cache. An RLE of L counts (at least L
    # characters) holds at most L // 2 true runs: the arrays are sized for that, and only the
    # part written is ever touched.
    starts, stops = np.empty(length // 2 + 1, dtype=np.int64), np.empty(length // 2 + 1, dtype=np.int64)
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    for first, stop in zip(bounds[:-1], bounds[1:]):
        piece = _parse_stretch(sizes[first:stop], count_values[first:stop], names.after(first))
        at, count = int(offsets[first]), len(piece.starts)
        starts[at : at + count], stops[at : at + count] = piece.starts, piece.stops
        offsets[first + 1 : stop + 1] = piece.offsets[1:] + at
    return Runs(sizes, starts[: offsets[-1]], stops[: offsets[-1]], offsets)


def _stretch_bounds(ends: np.ndarray, size: int) -> list[int]:
    """``[0, ..., n]``: where stretches of about `size` begin, for n items ending at the running totals `ends`.

    A stretch closes after the item that reaches each multiple of `size`; no items make one empty stretch.
    """
    total = int(ends[-1]) if ends.size else 0
    cuts = np.searchsorted(ends, np.arange(size, total, size)) + 1
    return [0, *sorted({cut for cut in cuts.tolist() if 0 < cut < len(ends)}), len(ends)]


#: Characters (or uncompressed counts) of the RLEs decoded in one stretch.
_CHUNK_CHARACTERS = 1 << 18


def _parse_stretch(sizes: np.ndarray, count_values: list[Any], names: _Names) -> Runs:
    """The true runs of RLEs of `sizes` and `count_values` (validated sizes), every step over all of them at once."""
    values, lengths, compressed = _raw_counts(count_values, names)
    layout = _Layout.of(lengths)
    if compressed.any():  # compressed counts are stored as changes from two counts before
        deltas_undone = _undo_deltas(values, layout)
        values = deltas_undone if compressed.all() else np.where(compressed[layout.owner], deltas_undone, values)
    running = np.cumsum(values)
    _check_counts(values, running, layout, sizes, names)
    return _true_runs(sizes, values, running, layout)


def _columns(rles: list[Any]) -> tuple[list[Any], list[Any]] | None:
    """The 'size' and 'counts' of every RLE, read at C speed; None if some RLE is not a dict holding both."""
    if any(map(operator.is_not, map(type, rles), repeat(dict))):
        return None
    try:
        return list(map(operator.itemgetter("size"), rles)), list(map(operator.itemgetter("counts"), rles))
    except KeyError:
        return None


def _sizes(values: list[Any], rles: list[Any], names: _Names) -> np.ndarray:
    """``(n, 2)`` int64 sizes; lists of two plain non-negative ints are checked as one array, others one by one."""
    plain = (
        not any(map(operator.is_not, map(type, values), repeat(list)))
        and not any(map(operator.ne, map(len, values), repeat(2)))
        and not any(map(operator.is_not, map(type, chain.from_iterable(values)), repeat(int)))
    )
    if plain:
        try:
            sizes = np.array(values, dtype=np.int64).reshape(-1, 2)
        except OverflowError:
            sizes = None
        if sizes is not None and (sizes >= 0).all():
            return sizes
    return np.array(
        [_size_of(rle, names.rle(k), names.field(k, "")) for k, rle in enumerate(rles)], dtype=np.int64
    ).reshape(-1, 2)


class _Layout:
    """Where each RLE's counts sit in the concatenation of all of them.

    A count's RLE and place within it (`owner`, `local`) are arrays as long as all the counts:
    they are made only when a message needs them or counts of mixed forms are merged.
    """

    def __init__(self, lengths: np.ndarray) -> None:
        self.lengths: np.ndarray = lengths  #: (n,) number of counts of each RLE
        self.first: np.ndarray = np.cumsum(lengths) - lengths  #: (n,) index of each RLE's first count

    @classmethod
    def of(cls, lengths: np.ndarray) -> _Layout:
        return cls(lengths)

    @functools.cached_property
    def owner(self) -> np.ndarray:
        """(N,) the RLE of each count."""
        return np.repeat(np.arange(self.lengths.size), self.lengths)

    @functools.cached_property
    def local(self) -> np.ndarray:
        """(N,) the index of each count within its RLE."""
        local: np.ndarray = np.arange(self.owner.size) - self.first[self.owner]
        return local

    def odd(self) -> np.ndarray:
        """(N,) bool: whether each count sits at an odd place of its RLE (a run of true pixels)."""
        global_odd = np.zeros(int(self.lengths.sum()), dtype=bool)
        global_odd[1::2] = True
        # The place within the RLE is odd when the global index and the RLE's first index differ in parity.
        odd: np.ndarray = global_odd ^ np.repeat((self.first & 1).astype(bool), self.lengths)
        return odd


def _raw_counts(counts: list[Any], names: _Names) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Counts as written (deltas for compressed strings), concatenated; how many each RLE has; which are compressed."""
    kinds = set(map(type, counts))
    if kinds <= {str} or kinds <= {bytes}:  # the usual file: every RLE compressed alike, read in one piece
        values, lengths = _read_strings(
            _joined(counts, kinds, names),
            np.fromiter(map(len, counts), np.int64, len(counts)),
            lambda k: counts[k],
            names,
        )
        return values, lengths, np.ones(len(counts), dtype=bool)
    compressed = np.fromiter(map(isinstance, counts, repeat((bytes, str))), bool, len(counts))
    which = np.flatnonzero(compressed)
    strings = [_as_bytes(counts[k], names[k]) for k in which.tolist()]
    values, per_string = _read_strings(
        b"".join(strings),
        np.array([len(s) for s in strings], dtype=np.int64),
        lambda k: strings[k],
        _Subset(names, which),
    )
    parts = iter(np.split(values, np.cumsum(per_string)[:-1]) if strings else [])
    arrays = [
        next(parts) if is_compressed else _uncompressed(count, names[k])
        for k, (count, is_compressed) in enumerate(zip(counts, compressed))
    ]
    lengths = np.array([len(a) for a in arrays], dtype=np.int64)
    return (np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int64)), lengths, compressed


class _Subset:
    """Names of the RLEs `which` of `names`, numbered from 0 (the compressed ones among mixed RLEs)."""

    def __init__(self, names: _Names, which: np.ndarray) -> None:
        self.names, self.which = names, which

    def __getitem__(self, k: int) -> str:
        return self.names[int(self.which[k])]


def _joined(strings: list[Any], kinds: set[type], names: _Names) -> bytes:
    """All compressed strings end to end, as bytes (a string that is not ASCII cannot be a COCO string)."""
    if kinds <= {bytes}:
        return b"".join(strings)
    try:
        return "".join(strings).encode("ascii")
    except UnicodeEncodeError as error:
        k, _ = _locate(error.start, np.fromiter(map(len, strings), np.int64, len(strings)))
        raise fail(names[k], "an ASCII string of characters '0' to 'o'", strings[k]) from None


def _size_of(rle: Any, name: str, field: str) -> tuple[int, int]:
    if not isinstance(rle, dict) or "size" not in rle or "counts" not in rle:
        raise fail(name, "a COCO RLE dict with 'size' and 'counts'", rle)
    size = rle["size"]
    try:
        height, width = (int(n) for n in size)
        valid = all(float(n) == int(n) for n in size) and height >= 0 and width >= 0
    except (TypeError, ValueError):
        valid = False
    if not valid:
        raise fail(f"{field}size", "two non-negative integers [h, w]", size)
    return height, width


def _as_bytes(string: bytes | str, param: str) -> bytes:
    if isinstance(string, str):
        try:
            return string.encode("ascii")
        except UnicodeEncodeError:
            raise fail(param, "an ASCII string of characters '0' to 'o'", string) from None
    if isinstance(string, bytes):
        return string
    raise fail(param, "a compressed string (bytes or str)", string)


def _uncompressed(counts: Any, param: str) -> np.ndarray:
    """Uncompressed counts: a flat sequence of integers."""
    try:
        array = np.asarray(counts)
    except (TypeError, ValueError):
        array = np.asarray(None)
    if array.ndim != 1 or not (array.size == 0 or np.issubdtype(array.dtype, np.integer)):
        raise fail(param, "a compressed string (bytes or str) or a list of integers", counts)
    return array.astype(np.int64)


def _read_strings(
    joined: bytes, lengths: np.ndarray, string_of: Callable[[int], Any], names: Any
) -> tuple[np.ndarray, np.ndarray]:
    """The numbers written in the strings `joined` end to end (of `lengths`), and how many each holds.

    ``rleFrString``, vectorized over every character: each number is 5-bit groups, least
    significant first, the last one without the continuation bit 0x20; bit 0x10 of the last group
    is the sign. Deltas are not undone here. Per-character arrays are one byte wide and only the
    numbers' ends are indexed: a million masks are tens of millions of characters.
    """
    groups = np.frombuffer(joined, dtype=np.uint8) - np.uint8(48)  # below '0' wraps past 63
    bad = np.flatnonzero(groups > 63)
    if bad.size:
        k, at = _locate(bad[0], lengths)
        raise fail(
            names[k],
            "a COCO string of characters '0' to 'o'",
            f"{chr((int(groups[bad[0]]) + 48) & 0xFF)!r} at position {at}",
        )
    last = groups < 0x20
    string_stops = np.cumsum(lengths)
    string_ends = string_stops[lengths > 0] - 1
    unfinished = string_ends[~last[string_ends]]
    if unfinished.size:
        k, _ = _locate(unfinished[0], lengths)
        raise fail(names[k], "a complete COCO string", f"{string_of(k)!r}, which stops inside a count")
    # Each group as a signed byte: a number's last group is a 5-bit two's complement (bit 0x10 the
    # sign, so 16..31 read as -16..-1), the groups before it are plain 0..31.
    low = groups & np.uint8(0x1F)
    digits = (low - (((low & np.uint8(0x10)) * last) << np.uint8(1))).view(np.int8)
    ends = np.flatnonzero(last)
    values = digits[ends].astype(np.int64)
    # Horner's rule from the most significant group (the last) down; most numbers have one or two.
    continued = np.zeros(groups.size, dtype=bool)  # whether the group before this one continues into it
    np.logical_not(last[:-1], out=continued[1:])
    longer = np.flatnonzero(continued[ends])
    group = ends[longer]  # the group each longer number reads next, walking down from its end
    for _ in range(1, _MAX_GROUPS):
        if not longer.size:
            break
        group -= 1
        values[longer] = (values[longer] << 5) + digits[group]
        more = continued[group]
        longer, group = longer[more], group[more]
    if longer.size:
        k, _ = _locate(group[0], lengths)
        raise fail(names[k], f"a COCO string of counts of at most {_MAX_GROUPS} characters", string_of(k))
    # Numbers per string: the numbers that end before each string's end (none spans two strings).
    return values, np.diff(np.searchsorted(ends, string_stops), prepend=0)


def _locate(index: int, lengths: np.ndarray) -> tuple[int, int]:
    """Which piece of a concatenation of pieces of `lengths` holds `index`, and where in it."""
    k = int(np.searchsorted(np.cumsum(lengths), index, side="right"))
    return k, int(index - (np.cumsum(lengths) - lengths)[k])


def _undo_deltas(deltas: np.ndarray, layout: _Layout) -> np.ndarray:
    """Invert ``count[m] -= count[m - 2]`` (m >= 3) within each RLE, for all RLEs at once.

    Counts 1, 3, 5, ... of an RLE are running sums of its deltas at those places, and so are
    counts 2, 4, ...; count 0 is its own. Positions of one parity in the whole concatenation are
    summed in one pass each, and each RLE subtracts, per parity, the sum just before its chain
    starts: one value per RLE, repeated. Exact even if a sum wraps around (integers modulo 2**64).
    """
    first, lengths = layout.first, layout.lengths
    counts = np.empty_like(deltas)
    for parity in (0, 1):
        sums = np.cumsum(deltas[parity::2])
        # Chain of this parity in RLE r: its positions in [first, first + length), and the sum just before
        # it: through count 0 when count 0 has this parity (the chain then starts at count 2), else
        # through the position before the RLE.
        begin, end = (first + 1 - parity) // 2, (first + lengths + 1 - parity) // 2
        sums -= np.repeat(_sum_before(sums, np.minimum((first + 2 - parity) // 2, sums.size)), end - begin)
        counts[parity::2] = sums
    filled = first[lengths > 0]
    counts[filled] = deltas[filled]  # count 0 is written as it is
    return counts


def _sum_before(running: np.ndarray, stops: np.ndarray) -> np.ndarray:
    """``running[stop - 1]``, or 0 where `stop` is 0: the running sum of everything before each stop."""
    if not running.size:
        return np.zeros(stops.shape, dtype=running.dtype)
    before: np.ndarray = np.where(stops > 0, running[np.maximum(stops - 1, 0)], 0)
    return before


#: The most pixels an RLE may cover: pixel edges beyond 2**52 are no longer resolved in float64 (`Mask`).
_MAX_PIXELS = 2**52


def _check_counts(counts: np.ndarray, running: np.ndarray, layout: _Layout, sizes: np.ndarray, params: _Names) -> None:
    """Run lengths must be non-negative and add up to h·w for each RLE (`running` is the cumulative sum)."""
    negative = np.flatnonzero(counts < 0)
    if negative.size:
        k = layout.owner[negative[0]]
        raise fail(params[k], "non-negative run lengths", f"{counts[negative[0]]} at run {layout.local[negative[0]]}")
    # Counts are >= 0, so the running total falls only where it wrapped around int64; it cannot when
    # even the largest count, repeated, stays below 2**63 (any real image).
    largest = int(counts.max(initial=0))
    wrapped = (
        np.zeros(0, dtype=np.int64) if largest * counts.size < 2**63 else np.flatnonzero(running[1:] < running[:-1])
    )
    if wrapped.size:
        k = layout.owner[wrapped[0] + 1]
        raise fail(
            params[k],
            "run lengths adding up to h·w",
            f"a total beyond 64-bit integers at run {layout.local[wrapped[0] + 1]}",
        )
    huge = np.flatnonzero(sizes[:, 0].astype(np.float64) * sizes[:, 1] > _MAX_PIXELS)
    if huge.size:
        raise fail(params[huge[0]].replace("counts", "size"), "at most 2**52 pixels (h·w)", sizes[huge[0]].tolist())
    totals = _sum_before(running, layout.first + layout.lengths) - _sum_before(running, layout.first)
    wrong = np.flatnonzero(totals != sizes[:, 0] * sizes[:, 1])
    if wrong.size:
        k = wrong[0]
        h, w = sizes[k]
        raise fail(params[k], f"run lengths adding up to h·w = {h * w}", f"a total of {int(totals[k])}")


def _true_runs(sizes: np.ndarray, counts: np.ndarray, running: np.ndarray, layout: _Layout) -> Runs:
    """True runs from validated counts: every second count (odd positions) is a run of true pixels."""
    is_true = layout.odd() & (counts > 0)
    true_run = np.flatnonzero(is_true)
    per_mask = np.diff(np.searchsorted(true_run, np.append(layout.first, counts.size)))
    owner = np.repeat(np.arange(len(sizes)), per_mask)
    # Position after each true run within its own mask: the running total restarted at each RLE.
    stops = running[true_run] - _sum_before(running, layout.first)[owner]
    offsets = np.concatenate([[0], np.cumsum(per_mask)]).astype(np.int64)
    return Runs(sizes, stops - counts[true_run], stops, offsets)
