"""One-to-one matching of two sets of regions by IoU, greedy or optimal, within groups such as images.

A pair can be matched when its IoU is at least ``min_iou`` and its regions share area; each
region is in at most one pair. These candidate pairs are the edges of a sparse bipartite graph
(found by `geoiou.overlaps`, or by `geoiou.grouped_overlaps` within groups), and the two methods
choose among them:

- ``"greedy"`` takes pairs by decreasing IoU, skipping a pair whose region on either side is
  already taken. Pairs of equal IoU are taken in order of their index in ``a``, then in ``b``, so
  the result is deterministic and does not depend on how the regions are stored.
- ``"optimal"`` maximises the summed IoU of the pairs (a maximum-weight bipartite matching). A
  connected component of the graph with a single region on one side takes its best pair (ties
  as in greedy); the rest go to SciPy's sparse assignment solver
  (`scipy.sparse.csgraph.min_weight_full_bipartite_matching`, LAPJVsp) with one "stay unmatched"
  option per region, so that the cost follows the pairs that overlap, not ``N × M``. Among
  matchings of equal sum, the one the solver returns is kept.

Greedy runs in vectorized rounds: every pair that comes first (in the order above) among the
pairs of both its regions is taken, pairs that touch a taken region are dropped, and the rest
go to the next round. Such rounds give exactly the sequential result, in a handful of rounds on
real annotations. Where they stall (long chains of regions each overlapping the next, such as
sliding windows of equal IoU, where a round settles one pair), the remaining pairs are settled
in one sequential pass: greedy matching is inherently sequential, and one pass over the rest is
linear where further rounds would be quadratic.

Groups (`group_a`, `group_b`) restrict pairs to regions of the same group: an image, or an image
and a category. No edge joins two groups, so each group is matched on its own, exactly as if
matched alone, and a table split into parts that hold whole groups gives the same pairs part by
part.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal, Sequence

import numpy as np
from numpy.typing import ArrayLike

from geoiou._validation import invalid_argument
from geoiou.grouped_overlaps import RowBlocks, check_comparable, grouped_overlaps
from geoiou.regions import Region
from geoiou.sparse import overlaps

__all__ = ["METHODS", "Matching", "match"]

Method = Literal["greedy", "optimal"]
METHODS = ("greedy", "optimal")
#: Greedy rounds continue while a round removes at least this share of the remaining pairs (each
#: round costs one pass over them); below it, one sequential pass settles the rest.
GREEDY_ROUND_SHARE = 0.125
#: Weight of a region's "stay unmatched" option in the assignment: positive (the solver needs
#: non-zero weights) and smaller than any IoU that can be matched.
UNMATCHED_WEIGHT = np.finfo(np.float64).tiny


@dataclass(frozen=True)
class Matching:
    """A one-to-one matching of two batches: the pairs with their IoU, and the regions left over.

    Attributes
    ----------
    index_a, index_b : ndarray of int64, shape (K,)
        The matched pairs ``(index_a[k], index_b[k])``, sorted by `index_a`.
    iou : ndarray of float64, shape (K,)
        IoU of each pair, at least `min_iou`.
    unmatched_a, unmatched_b : ndarray of int64
        Indices of the regions of each side in no pair, sorted.
    min_iou : float
    method : {"greedy", "optimal"}

    Examples
    --------
    >>> import geoiou
    >>> found = geoiou.match(geoiou.Box([[0, 0, 10, 10]]), geoiou.Box([[0, 0, 10, 8], [50, 50, 60, 60]]))
    >>> len(found), found.iou, found.unmatched_b
    (1, array([0.8]), array([1]))
    """

    index_a: np.ndarray
    index_b: np.ndarray
    iou: np.ndarray
    unmatched_a: np.ndarray
    unmatched_b: np.ndarray
    min_iou: float
    method: str

    def __len__(self) -> int:
        return len(self.iou)

    @property
    def total_iou(self) -> float:
        """Sum of the IoU of the pairs: what ``method="optimal"`` maximises."""
        return float(self.iou.sum())


def match(
    a: Region | Sequence[Region],
    b: Region | Sequence[Region],
    *,
    min_iou: float = 0.5,
    method: Method = "greedy",
    group_a: ArrayLike | tuple[ArrayLike, ...] | None = None,
    group_b: ArrayLike | tuple[ArrayLike, ...] | None = None,
) -> Matching:
    """Match the regions of `a` one-to-one with those of `b` by IoU.

    Parameters
    ----------
    a, b : Region or sequence of Region
        Batches of shape ``(N,)`` and ``(M,)`` of any kinds that `iou` compares (polygons against
        rotated boxes, masks against polygons: all exact), or sequences of such batches and of
        single regions whose rows follow one another, so that one side may mix kinds (and masks
        of different sizes).
    min_iou : float, default 0.5
        A pair is matched only with an IoU at least this, in ``[0, 1]``; with 0, any pair that
        shares area can be matched. Pairs that share no area are never matched.
    method : {"greedy", "optimal"}, default "greedy"
        ``"greedy"``: pairs by decreasing IoU, ties in order of the index in `a`, then in `b`.
        ``"optimal"``: the matching with the largest summed IoU.
    group_a, group_b : array_like of shape (N,) and (M,), or tuples of them, optional
        Keys (ints or strings) that restrict pairs to regions with equal keys, for example the
        image of each region. A tuple gives several key columns, such as ``(image_id,
        category_id)``, all of which must be equal. Give both or neither.

    Returns
    -------
    Matching
        The pairs (sorted by their index in `a`) with their IoU, and the unmatched indices of
        each side. Indices count the rows of all batches of a side in order.

    Raises
    ------
    InvalidArgumentError
        If `min_iou` or `method` is out of range, a side is not a 1-D batch (or sequence of
        them), or the groups do not have one key per region.
    UnsupportedPairError
        If some kind of `a` cannot be compared with some kind of `b` (an interval with a box).

    Notes
    -----
    Greedy and optimal find the same pairs whenever no region has two candidates, which is the
    usual case at ``min_iou >= 0.5`` for regions that do not overlap their own side's: two
    disjoint regions cannot both cover more than half of a third. See the module documentation
    for how each method is computed.

    Examples
    --------
    >>> import geoiou
    >>> a = geoiou.Box([[0, 0, 10, 10], [8, 0, 18, 10]])
    >>> b = geoiou.Box([[1, 0, 11, 10], [30, 30, 40, 40]])
    >>> found = geoiou.match(a, b)
    >>> found.index_a, found.index_b, found.iou.round(4)
    (array([0]), array([0]), array([0.8182]))
    >>> found.unmatched_a, found.unmatched_b
    (array([1]), array([1]))

    Greedy and optimal differ on a chain: ``a[0]`` overlaps ``b[0]`` best, but giving ``b[0]``
    to ``a[1]`` lets ``a[0]`` take ``b[1]``, two pairs instead of one:

    >>> a = geoiou.Interval([[0, 10], [-2, 8]])
    >>> b = geoiou.Interval([[0, 9], [4, 10]])
    >>> geoiou.pairwise_iou(a, b).round(3)
    array([[0.9  , 0.6  ],
           [0.727, 0.333]])
    >>> geoiou.match(a, b, method="greedy").total_iou, geoiou.match(a, b, method="optimal").total_iou
    (0.9, 1.3272727272727272)

    Groups keep images apart; nothing is matched across them:

    >>> boxes = geoiou.Box([[0, 0, 4, 4], [0, 0, 4, 4]])
    >>> len(geoiou.match(boxes, boxes, group_a=["img1", "img2"], group_b=["img2", "img3"]))
    1
    >>> len(geoiou.match(geoiou.Box([[0, 0, 1, 1]]), geoiou.Box([[1, 1, 2, 2]]), min_iou=0.0))  # touching only
    0
    """
    if (
        isinstance(min_iou, bool)
        or not isinstance(min_iou, (int, float, np.integer, np.floating))
        or math.isnan(min_iou)
        or not 0 <= min_iou <= 1
    ):
        raise invalid_argument("min_iou", "a number in [0, 1]", min_iou)
    if method not in METHODS:
        raise invalid_argument("method", f"one of {METHODS}", method)
    blocks_a, blocks_b = RowBlocks(side_batches(a, "a")), RowBlocks(side_batches(b, "b"))
    check_comparable(blocks_a, blocks_b)
    if (group_a is None) != (group_b is None):
        raise invalid_argument(
            "group_b" if group_b is None else "group_a", "given together with the other side's groups", None
        )
    if group_a is None and len(blocks_a.blocks) == 1 and len(blocks_b.blocks) == 1:
        # One batch a side: its rows are the block's, in order, and the public sparse search applies.
        found = overlaps(blocks_a.blocks[0], blocks_b.blocks[0], min_iou=float(min_iou))
        edges = (found.index_a, found.index_b, found.iou)
    else:
        codes_a, codes_b = group_codes(group_a, group_b, blocks_a.size, blocks_b.size)
        edges = grouped_overlaps(blocks_a, blocks_b, codes_a, codes_b, float(min_iou))
    chosen = (greedy_assignment if method == "greedy" else optimal_assignment)(*edges)
    return _matching(edges, chosen, blocks_a.size, blocks_b.size, float(min_iou), method)


def side_batches(side: Any, param: str) -> list[Region]:
    """A side of `match` as a list of 1-D batches (single regions of a sequence become batches of one).

    Examples
    --------
    >>> import geoiou
    >>> [batch.shape for batch in side_batches([geoiou.Box([0, 0, 1, 1]), geoiou.Box([[0, 0, 2, 2]] * 3)], "a")]
    [(1,), (3,)]
    """
    pieces = [side] if isinstance(side, Region) else side
    if (
        isinstance(pieces, (str, bytes, np.ndarray))
        or not isinstance(pieces, Sequence)
        or not all(isinstance(piece, Region) and len(piece.shape) <= 1 for piece in pieces)
        or (isinstance(side, Region) and side.shape == ())
    ):
        raise invalid_argument(
            param,
            "a 1-D batch of regions, shape (N,), or a sequence of batches and regions",
            getattr(side, "shape", type(side).__name__),
        )
    return [piece.reshape(1) if piece.shape == () else piece for piece in pieces]


def _matching(
    edges: tuple[np.ndarray, np.ndarray, np.ndarray],
    chosen: np.ndarray,
    size_a: int,
    size_b: int,
    min_iou: float,
    method: str,
) -> Matching:
    row_a, row_b, values = (column[chosen] for column in edges)
    order = np.argsort(row_a, kind="stable")
    taken_a, taken_b = np.zeros(size_a, dtype=bool), np.zeros(size_b, dtype=bool)
    taken_a[row_a], taken_b[row_b] = True, True
    return Matching(
        row_a[order].astype(np.int64),
        row_b[order].astype(np.int64),
        values[order],
        np.flatnonzero(~taken_a),
        np.flatnonzero(~taken_b),
        min_iou,
        method,
    )


# --------------------------------------------------------------------------- groups
def group_codes(group_a: Any, group_b: Any, size_a: int, size_b: int) -> tuple[np.ndarray, np.ndarray]:
    """One integer code per region, equal exactly where all key columns are equal (both sides share the codes).

    Examples
    --------
    >>> group_codes((["x", "y", "x"], [1, 1, 2]), (["y", "x"], [1, 2]), 3, 2)
    (array([0, 2, 1]), array([2, 1]))
    """
    if group_a is None:
        return np.zeros(size_a, dtype=np.int64), np.zeros(size_b, dtype=np.int64)
    columns_a = group_a if isinstance(group_a, tuple) else (group_a,)
    columns_b = group_b if isinstance(group_b, tuple) else (group_b,)
    if len(columns_a) != len(columns_b):
        raise invalid_argument(
            "group_b", f"as many key columns as 'group_a' ({len(columns_a)})", f"{len(columns_b)} columns"
        )
    codes: np.ndarray | None = None
    for column_a, column_b in zip(columns_a, columns_b):
        distinct, code_a, code_b = joint_keys(column_a, column_b, size_a, size_b)
        inverse = np.r_[code_a, code_b]
        # Mixed-radix code of the columns so far, renumbered so that it never grows beyond N + M.
        codes = inverse if codes is None else _compact(codes * len(distinct) + inverse)
    assert codes is not None  # zip ran at least once: both sides have one key column or more
    return codes[:size_a], codes[size_a:]


def joint_keys(
    column_a: Any, column_b: Any, size_a: int, size_b: int, *, names: tuple[str, str] = ("group_a", "group_b")
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct keys of two key columns, sorted, and the position of each row's key among them.

    Examples
    --------
    >>> joint_keys(["b", "a"], ["c", "b", "b"], 2, 3)
    (array(['a', 'b', 'c'], dtype='<U1'), array([1, 0]), array([2, 1, 1]))
    """
    keys_a, keys_b = _key_column(column_a, names[0], size_a), _key_column(column_b, names[1], size_b)
    if len(keys_a) and len(keys_b) and (keys_a.dtype.kind == "U") != (keys_b.dtype.kind == "U"):
        # np.concatenate would turn the ints into strings, and 1 would silently equal "1".
        raise invalid_argument(
            names[1],
            f"keys of the same type as {names[0]!r} (both strings or both not)",
            f"{keys_b.dtype} keys against {keys_a.dtype}",
        )
    keys = np.concatenate(
        [keys_a if len(keys_a) else keys_a.astype(keys_b.dtype), keys_b if len(keys_b) else keys_b.astype(keys_a.dtype)]
    )
    try:
        distinct, inverse = _distinct(keys)
    except TypeError:
        raise invalid_argument(
            names[1],
            f"keys of the same type as {names[0]!r}, such as all ints or all strings",
            sorted({type(key).__name__ for key in keys}),
        ) from None
    return distinct, inverse[:size_a], inverse[size_a:]


def _key_column(values: Any, param: str, size: int) -> np.ndarray:
    """Keys as an array of one comparable type: ints, strings, or Python objects of one type."""
    keys = np.asarray(values)
    if keys.dtype == object and keys.size:
        kinds = {type(key) for key in keys.ravel()}
        if all(issubclass(kind, str) for kind in kinds):
            keys = keys.astype(str)
        elif all(issubclass(kind, (int, np.integer)) and not issubclass(kind, (bool, np.bool_)) for kind in kinds):
            keys = keys.astype(np.int64)
    if keys.shape != (size,):
        raise invalid_argument(param, f"one key per region, shape ({size},)", f"shape {keys.shape}")
    if keys.dtype.kind in "iub":
        keys = keys.astype(np.int64)
    return keys if keys.dtype.kind in "iU" else keys.astype(object)


# --------------------------------------------------------------------------- assignment
def greedy_order(row_a: np.ndarray, row_b: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Edge indices in greedy order: decreasing IoU, then increasing `row_a`, then `row_b`."""
    return np.lexsort((row_b, row_a, -values))


def greedy_assignment(row_a: np.ndarray, row_b: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Indices of the edges greedy matching takes (see the module documentation).

    Examples
    --------
    >>> import numpy as np
    >>> greedy_assignment(np.array([0, 0, 1]), np.array([0, 1, 0]), np.array([0.9, 0.6, 0.7]))
    array([0])
    """
    order = greedy_order(row_a, row_b, values)
    node_a, node_b = row_a[order], row_b[order]
    rank = np.arange(len(order))
    taken_a = np.zeros(node_a.max(initial=-1) + 1, dtype=bool)
    taken_b = np.zeros(node_b.max(initial=-1) + 1, dtype=bool)
    first_a = np.full(len(taken_a), len(rank))
    first_b = np.full(len(taken_b), len(rank))
    chosen = []
    while len(rank):
        # The first remaining edge of every node; an edge first at both its ends is taken in this round.
        first_a[node_a], first_b[node_b] = len(order), len(order)
        np.minimum.at(first_a, node_a, rank)
        np.minimum.at(first_b, node_b, rank)
        dominant = (first_a[node_a] == rank) & (first_b[node_b] == rank)
        chosen.append(rank[dominant])
        taken_a[node_a[dominant]] = True
        taken_b[node_b[dominant]] = True
        free = ~taken_a[node_a] & ~taken_b[node_b]
        settled_share = 1 - np.count_nonzero(free) / len(rank)
        rank, node_a, node_b = rank[free], node_a[free], node_b[free]
        if len(rank) and settled_share < GREEDY_ROUND_SHARE:
            chosen.append(_sequential_greedy(rank, node_a, node_b, taken_a, taken_b))
            break
    return np.sort(order[np.concatenate(chosen)]) if chosen else np.zeros(0, dtype=np.int64)


def _sequential_greedy(
    rank: np.ndarray, node_a: np.ndarray, node_b: np.ndarray, taken_a: np.ndarray, taken_b: np.ndarray
) -> np.ndarray:
    """Settle the remaining edges (in rank order) one after another: linear in them, where rounds stalled."""
    free_a, free_b = bytearray(~taken_a), bytearray(~taken_b)
    chosen = []
    for edge, i, j in zip(rank.tolist(), node_a.tolist(), node_b.tolist()):
        if free_a[i] and free_b[j]:
            free_a[i] = free_b[j] = 0
            chosen.append(edge)
    return np.array(chosen, dtype=np.int64)


def optimal_assignment(row_a: np.ndarray, row_b: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Indices of the edges of a matching with the largest summed IoU (see the module documentation).

    Examples
    --------
    >>> import numpy as np
    >>> optimal_assignment(np.array([0, 0, 1]), np.array([0, 1, 0]), np.array([0.9, 0.6, 0.7]))
    array([1, 2])
    """
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64)
    import scipy.sparse  # scipy.sparse costs about 0.1 s to import: not at `import geoiou`
    from scipy.sparse.csgraph import connected_components

    node_a, node_b = _compact(row_a), _compact(row_b)
    count_a, count_b = int(node_a.max()) + 1, int(node_b.max()) + 1
    graph = scipy.sparse.coo_array(
        (np.ones(len(values)), (node_a, count_a + node_b)), shape=(count_a + count_b, count_a + count_b)
    )
    _, component = connected_components(graph, directed=False)
    edge_component = component[node_a]
    per_side_a = np.bincount(component[:count_a], minlength=component.max() + 1)
    per_side_b = np.bincount(component[count_a:], minlength=component.max() + 1)
    star = (per_side_a[edge_component] == 1) | (per_side_b[edge_component] == 1)
    # A component with one region on a side: its best edge, the first in greedy order.
    stars = np.flatnonzero(star)
    stars = stars[np.lexsort((row_b[stars], row_a[stars], -values[stars], edge_component[stars]))]
    star_component = edge_component[stars]
    chosen = [stars[np.r_[True, star_component[1:] != star_component[:-1]][: len(stars)]]]
    rest = np.flatnonzero(~star)
    if len(rest):
        chosen.append(rest[_sparse_assignment(_compact(node_a[rest]), _compact(node_b[rest]), values[rest])])
    return np.sort(np.concatenate(chosen))


def _sparse_assignment(node_a: np.ndarray, node_b: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Edges of a maximum-weight matching, by a full matching of the rows with one "unmatched" column per row."""
    import scipy.sparse
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    rows, columns = int(node_a.max()) + 1, int(node_b.max()) + 1
    weights = np.r_[values, np.full(rows, UNMATCHED_WEIGHT)]
    matrix = scipy.sparse.csr_array(
        (weights, (np.r_[node_a, np.arange(rows)], np.r_[node_b, columns + np.arange(rows)])),
        shape=(rows, columns + rows),
    )
    matched_row, matched_column = min_weight_full_bipartite_matching(matrix, maximize=True)
    real = matched_column < columns
    # Back from (row, column) to the edge: the edges sorted by (row, column), searched.
    order = np.lexsort((node_b, node_a))
    keys = node_a[order].astype(np.int64) * columns + node_b[order]
    wanted = matched_row[real].astype(np.int64) * columns + matched_column[real]
    result: np.ndarray = order[np.searchsorted(keys, wanted)]
    return result


def _distinct(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``numpy.unique(keys, return_inverse=True)``; for integers of a small range, by counting instead of sorting."""
    if keys.dtype.kind == "i" and len(keys):
        low, high = int(keys.min()), int(keys.max())
        if high - low < 4 * len(keys):  # image and category ids usually are: a table of that size is cheap
            present = np.zeros(high - low + 1, dtype=bool)
            present[keys - low] = True
            position = np.cumsum(present) - 1
            return np.flatnonzero(present) + low, position[keys - low]
    distinct, inverse = np.unique(keys, return_inverse=True)
    return distinct, inverse.ravel()


def _compact(nodes: np.ndarray) -> np.ndarray:
    """Node numbers renumbered to ``0..k-1`` in order of value."""
    return _distinct(nodes)[1]
