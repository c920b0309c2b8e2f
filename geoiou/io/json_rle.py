"""COCO RLEs decoded into runs straight from a JSON file's bytes, in one compiled pass.

The RLE strings of a result file are tens of megabytes: their characters are read where they lie
in the file (a `Tape` knows each string's bytes), with no Python string per mask. Every check of
`geoiou.rle.to_runs` is made (characters ``'0'`` to ``'o'``, no count cut short or longer than
12 characters, non-negative run lengths adding up to h·w, at most 2**52 pixels); a mask that
fails any of them makes the answer None, and the reader then reads the file record by record,
where `geoiou.rle` names the fault. The runs are those `geoiou.rle.to_runs` gives.

Examples
--------
>>> buf = np.frombuffer(b"231", dtype=np.uint8)  # one string, then the list [0, 1, 1, 1]
>>> is_string, start, stop = np.array([True, False]), np.array([0, 0]), np.array([3, 4])
>>> runs = runs_of_bytes(buf, is_string, start, stop, np.array([0, 1, 1, 1]), np.array([[2, 3], [1, 3]]))
>>> runs.starts, runs.stops, runs.offsets
(array([2, 0, 2]), array([5, 1, 3]), array([0, 1, 3]))
>>> runs_of_bytes(buf, is_string, start, stop, np.array([0, 1, 1, 1]), np.array([[2, 3], [2, 3]])) is None
True
"""

from __future__ import annotations


import numpy as np

from geoiou import threads
from geoiou._compiled import jit, prefaulted
from geoiou.io.json_tokens import wanted_pieces
from geoiou.rle import Runs

__all__ = ["runs_of_bytes"]

#: Characters of one compressed count at most, as `geoiou.rle`: 12 groups of 5 bits.
_MAX_GROUPS = 12
#: The most pixels an RLE may cover, as `geoiou.rle`.
_MAX_PIXELS = 2**52
_INT64_MAX = 2**63 - 1


def runs_of_bytes(
    buf: np.ndarray, is_string: np.ndarray, start: np.ndarray, stop: np.ndarray, integers: np.ndarray, sizes: np.ndarray
) -> Runs | None:
    """The true runs of RLEs of `sizes` ``(n, 2)``; None if some mask is not a valid RLE of its size.

    RLE k's counts are the compressed string ``buf[start[k]:stop[k]]`` where `is_string`, else the
    list ``integers[start[k]:stop[k]]`` (COCO's crowd annotations). Many masks are decoded in
    pieces of about as many characters, one per thread (the pass releases the GIL), each into its
    own share of the arrays; the pieces are then moved down against the one before.
    """
    sizes = np.asarray(sizes, dtype=np.int64).reshape(-1, 2)
    slots = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum((stop - start) // 2 + 1, out=slots[1:])  # a true run takes two counts at least
    bounds = _pieces(slots, wanted_pieces() if slots[-1] >= PIECE_SLOTS else 1)
    # Pages touched here first when pieces' threads write them (two threads faulting fresh pages at once: 7-10x slower).
    fresh = prefaulted if len(bounds) > 2 else (lambda array: array)
    starts, stops = fresh(np.empty(slots[-1], dtype=np.int64)), fresh(np.empty(slots[-1], dtype=np.int64))
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)

    def piece(k: int) -> bool:
        first, last = bounds[k], bounds[k + 1]
        masks = slice(first, last)
        ends = offsets[first + 1 : last + 1]
        rle = (is_string[masks], start[masks], stop[masks], integers, sizes[masks])
        return bool(_runs(buf, *rle, starts, stops, int(slots[first]), ends))

    valid = threads.on_threads(piece, len(bounds) - 1)
    if not all(valid):
        return None
    count = _moved_down(starts, stops, offsets, slots, bounds)
    return Runs(sizes, starts[:count], stops[:count], offsets)


#: Masks whose counts could fill this many runs (half their characters) are decoded in pieces on threads.
PIECE_SLOTS = 1 << 20


def _pieces(slots: np.ndarray, wanted: int) -> list[int]:
    """``[0, ..., n]``: the first mask of each of `wanted` pieces of about as many slots (one piece if few masks)."""
    masks = len(slots) - 1
    cuts = np.searchsorted(slots, slots[-1] * np.arange(1, wanted) // max(wanted, 1))
    return [0, *sorted({cut for cut in cuts.tolist() if 0 < cut < masks}), masks]


def _moved_down(
    starts: np.ndarray, stops: np.ndarray, offsets: np.ndarray, slots: np.ndarray, bounds: list[int]
) -> int:
    """Move each piece's runs down against the piece before, its masks' offsets with them; the runs' count."""
    at = int(offsets[bounds[1]])
    for first, last in zip(bounds[1:-1], bounds[2:]):
        base, end = int(slots[first]), int(offsets[last])
        starts[at : at + end - base] = starts[base:end]
        stops[at : at + end - base] = stops[base:end]
        offsets[first + 1 : last + 1] -= base - at
        at += end - base
    return at


@jit
def _runs(
    buf: np.ndarray,
    is_string: np.ndarray,
    start: np.ndarray,
    stop: np.ndarray,
    integers: np.ndarray,
    sizes: np.ndarray,
    starts: np.ndarray,
    stops: np.ndarray,
    base: int,
    ends: np.ndarray,
) -> bool:
    """Write the true runs of every RLE into `starts` and `stops` from `base` on, and where each RLE's runs end into
    `ends`; whether every RLE is valid. Counts come from the string's bytes, or from the RLE's range of `integers`.

    One pass over each RLE's characters: a count is read, its delta undone, checked and, every
    second one, written as a run; only the two counts before it are kept.
    """

    # A closure, not a function of its own: numba would count references to `buf` at every call.
    def read_count(i: int, end: int) -> tuple[int, int]:
        """``rleFrString``'s next number at byte `i`: ``(value, next byte)``; next byte -1 if invalid.

        5-bit groups, least significant first, 0x20 set on all but the last, whose bit 0x10 is the
        sign. The only escape a COCO character can need, a backslash's, is read as one backslash.
        """
        value = np.int64(0)
        groups = 0
        more = True
        while more:
            if i >= end or groups >= _MAX_GROUPS:
                return value, -1  # the string stops inside a count, or a count has too many characters
            c = np.int64(buf[i])
            i += 1
            if c == 92:  # escaped: only an escaped backslash is a COCO character
                if i >= end or buf[i] != 92:
                    return value, -1
                i += 1
            c -= 48
            if c < 0 or c > 63:
                return value, -1
            value |= (c & 0x1F) << (5 * groups)
            groups += 1
            more = (c & 0x20) != 0
            if not more and (c & 0x10) != 0:
                value |= np.int64(-1) << (5 * groups)
        return value, i

    at = base
    for k in range(start.size):
        height, width = sizes[k, 0], sizes[k, 1]
        if height < 0 or width < 0 or float(height) * float(width) > _MAX_PIXELS:
            return False
        total = np.int64(0)
        m = 0
        before, two_before = np.int64(0), np.int64(0)
        j = start[k]
        while j < stop[k]:
            if is_string[k]:
                count, j = read_count(j, stop[k])
                if j < 0:
                    return False
                if m > 2:  # from the fourth count on, the string holds the change from two counts before
                    count += two_before
            else:
                count = integers[j]
                j += 1
            if count < 0 or count > _INT64_MAX - total:
                return False
            if m % 2 == 1 and count > 0:  # counts alternate false, true, ...: a run of true pixels
                starts[at] = total
                stops[at] = total + count
                at += 1
            total += count
            two_before, before = before, count
            m += 1
        if total != height * width:
            return False
        ends[k] = at
    return True
