"""`Annotations`: the detection table that readers build and evaluations consume.

One row per object: its image, category and region (a Box, RotatedBox, Polygon, Mask or
Interval), and a score for predictions, crowd and ignore flags and a COCO ``area`` for ground
truths. The COCO, DOTA and YOLO readers of `geoiou.io` return it and the detection and agreement
evaluations of `geoiou.evaluation` take it, so it lives below both (users import it from
`geoiou.evaluation`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Iterable, Sequence

import numpy as np
from numpy.typing import ArrayLike

from geoiou._distinct import distinct
from geoiou._validation import invalid_argument as _fail
from geoiou.errors import FrozenRegionError
from geoiou.regions import Region

__all__ = ["Annotations", "as_annotations", "id_list"]

#: Record keys `Annotations.from_records` understands.
RECORD_KEYS = ("image_id", "category_id", "region", "score", "iscrowd", "area", "ignore")


# --------------------------------------------------------------------------- column checks
def _ids(value: Any, param: str, n: int) -> np.ndarray:
    """Integer or string ids, one per row (a single id is repeated)."""
    array = np.asarray(value)
    if array.dtype.kind == "U" and isinstance(value, (list, tuple)) and not all(map(str.__instancecheck__, value)):
        # NumPy turns [1, "1"] into the strings ["1", "1"]: two ids that differ would be merged into one.
        kinds = sorted({type(v).__name__ for v in value})
        raise _fail(param, "ids of one type, all integers or all strings", f"a mix of {', '.join(kinds)}")
    if array.size == 0 and array.ndim == 1:
        array = array.astype(np.int64)  # no ids at all: their type does not matter
    if array.dtype == object:
        if all(isinstance(v, str) for v in array.ravel()):
            array = array.astype(str)
        elif all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in array.ravel()):
            array = array.astype(np.int64)
    if array.dtype.kind not in "iuU" or (array.dtype.kind == "u" and array.dtype.itemsize == 8):
        raise _fail(param, "integer or string ids", f"dtype {array.dtype}" if array.size else value)
    if array.ndim == 0:
        array = np.full(n, array.item(), dtype=array.dtype)
    if array.shape != (n,):
        raise _fail(param, f"one id per region, shape ({n},)", f"shape {array.shape}")
    return array.astype(np.int64) if array.dtype.kind in "iu" else array


def _numbers(value: Any, param: str, n: int) -> np.ndarray:
    raw = (
        value if isinstance(value, np.ndarray) else np.asarray(value) if isinstance(value, (list, tuple, str)) else None
    )
    if raw is not None and (
        raw.dtype.kind in "US" or (raw.dtype.kind == "O" and any(isinstance(item, (str, bytes)) for item in raw.flat))
    ):
        # "0.9" is not a score: NumPy would convert it, but it is a file read as text, or a mistake.
        raise _fail(param, "an array of numbers, not strings (convert text with float(...) first)", value)
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise _fail(param, "an array of numbers", value) from None
    if array.ndim == 0:
        array = np.full(n, float(array))
    if array.shape != (n,):
        raise _fail(param, f"one number per region, shape ({n},)", f"shape {array.shape}")
    return array


def _scores(value: Any, n: int) -> np.ndarray | None:
    if value is None:
        return None
    array = _numbers(value, "score", n)
    bad = np.flatnonzero(np.isnan(array))
    if bad.size:
        raise _fail("score", "real numbers (no NaN)", f"NaN at row {bad[0]}")
    return array


def _areas(value: Any, n: int) -> np.ndarray | None:
    if value is None:
        return None
    array = _numbers(value, "area", n)
    bad = np.flatnonzero(~np.isfinite(array) | (array < 0))
    if bad.size:
        raise _fail("area", "finite and non-negative", f"{array[bad[0]]} at row {bad[0]}")
    return array


def _flags(value: Any, param: str, n: int) -> np.ndarray | None:
    if value is None:
        return None
    array = np.asarray(value)
    if array.ndim == 0:
        array = np.full(n, array.item())
    if array.shape != (n,):
        raise _fail(param, f"one flag per region, shape ({n},)", f"shape {array.shape}")
    if array.dtype != bool:
        if array.dtype.kind not in "iuf" or not np.isin(array, (0, 1)).all():
            raise _fail(
                param, "booleans or 0/1", array[~np.isin(array, (0, 1))][0] if array.dtype.kind in "iuf" else value
            )
        array = array.astype(bool)
    return array


def _region_pieces(region: Any, param: str) -> list[Region]:
    """The region column as 1-D batches: a batch of shape (N,), or a sequence of batches and single regions."""
    pieces = [region] if isinstance(region, Region) else region
    if not isinstance(pieces, Iterable) or isinstance(pieces, (str, bytes, np.ndarray)):
        raise _fail(param, "a geoiou Region batch of shape (N,) or a sequence of regions", type(region).__name__)
    result = []
    for i, piece in enumerate(pieces):
        if not isinstance(piece, Region):
            raise _fail(
                param if isinstance(region, Region) else f"{param}[{i}]",
                "a geoiou Region such as Box, Polygon or Mask",
                type(piece).__name__,
            )
        if len(piece.shape) > 1:
            raise _fail(
                param, "a batch of shape (N,) (or a sequence of such batches)", f"a batch of shape {piece.shape}"
            )
        result.append(piece.reshape(1) if piece.shape == () else piece)
    dims = {p.ndim for p in result}
    if len(dims) > 1:
        raise _fail(
            param,
            "regions of one dimension: intervals cannot be mixed with 2-D regions",
            sorted({type(p).__name__ for p in result}),
        )
    return result


# --------------------------------------------------------------------------- the table
class Annotations:
    """Ground truths or predictions of a detection task: one row per object.

    Parameters
    ----------
    image_id : array_like of int or str, shape (N,)
        The image (or sample, video...) of each object; a single id is repeated for all rows.
    category_id : array_like of int or str, shape (N,)
        The category of each object; a single id is repeated.
    region : Region or sequence of Region
        The regions: a batch of shape ``(N,)`` of any kind, or a sequence of batches and single
        regions whose rows follow one another (so kinds may be mixed: COCO's polygons with its
        crowd masks). Intervals cannot be mixed with 2-D kinds.
    score : array_like of float, shape (N,), optional
        Confidence of each prediction; required for predictions, absent for ground truth.
        NaN is refused.
    iscrowd : array_like of bool, shape (N,), optional
        Ground truths that are crowd regions (COCO): never required, and a prediction inside one is
        matched by its intersection over the prediction's own area (IoF) and ignored.
    area : array_like of float, shape (N,), optional
        COCO's ground-truth ``area`` field, which COCOeval uses (instead of the region's measure) to
        sort objects into the small/medium/large ranges. By default the region's measure.
    ignore : array_like of bool, shape (N,), optional
        Ground truths that are neither required nor penalized: VOC's and DOTA's "difficult" flag.
        In `evaluate_coco` they are matched by IoU, once, like an object outside the area range
        (COCOeval itself overwrites an annotation's ``ignore`` with ``iscrowd``: leave this unset to
        reproduce it).

    See Also
    --------
    Annotations.from_records : per-image records instead of columns.

    Examples
    --------
    >>> import geoiou
    >>> truth = Annotations(image_id=[1, 1], category_id=[3, 5], region=geoiou.Box([[0, 0, 4, 4], [2, 2, 9, 9]]),
    ...                     iscrowd=[False, True])
    >>> len(truth), truth.kinds
    (2, ('Box',))
    >>> Annotations(image_id=[1], category_id=[3], region=geoiou.Box([[0, 0, 4, 4]]), score=[float("nan")])
    Traceback (most recent call last):
    ...
    geoiou.errors.InvalidArgumentError: 'score' must be real numbers (no NaN) (got 'NaN at row 0')
    """

    __slots__ = ("_pieces", "_image_id", "_category_id", "_score", "_iscrowd", "_area", "_ignore")
    _pieces: tuple[Region, ...]
    _image_id: np.ndarray
    _category_id: np.ndarray
    _score: np.ndarray | None
    _iscrowd: np.ndarray | None
    _area: np.ndarray | None
    _ignore: np.ndarray | None

    def __init__(
        self,
        image_id: ArrayLike,
        category_id: ArrayLike,
        region: Region | Sequence[Region],
        *,
        score: ArrayLike | None = None,
        iscrowd: ArrayLike | None = None,
        area: ArrayLike | None = None,
        ignore: ArrayLike | None = None,
    ) -> None:
        pieces = _region_pieces(region, "region")
        n = sum(len(piece) for piece in pieces)
        object.__setattr__(self, "_pieces", tuple(pieces))
        for name, value in (
            ("_image_id", _ids(image_id, "image_id", n)),
            ("_category_id", _ids(category_id, "category_id", n)),
            ("_score", _scores(score, n)),
            ("_iscrowd", _flags(iscrowd, "iscrowd", n)),
            ("_area", _areas(area, n)),
            ("_ignore", _flags(ignore, "ignore", n)),
        ):
            if value is not None:
                value.flags.writeable = False
            object.__setattr__(self, name, value)

    @classmethod
    def from_records(cls, records: Iterable[Mapping[str, Any]]) -> Annotations:
        """Build from per-image records, each a mapping with the columns of that image.

        Each record holds ``"image_id"`` (one id), ``"region"`` (a batch of the image's objects, or a
        sequence of regions), ``"category_id"`` (one per object, or one for all) and optionally
        ``"score"``, ``"iscrowd"``, ``"area"``, ``"ignore"``. ``score`` and ``area`` must appear in
        every record or in none; missing flags are false. Each record keeps its own region batch, so
        masks of images of different sizes are never padded to a common size.

        Examples
        --------
        >>> import numpy as np, geoiou
        >>> records = [{"image_id": "a", "category_id": 1, "region": geoiou.Mask(np.eye(4, dtype=bool)[None])},
        ...            {"image_id": "b", "category_id": [1, 2], "region": geoiou.Mask(np.ones((2, 3, 5), dtype=bool))}]
        >>> truth = Annotations.from_records(records)
        >>> truth.image_id.tolist(), truth.category_id.tolist()
        (['a', 'b', 'b'], [1, 1, 2])
        """
        records = list(records)
        columns: dict[str, list[Any]] = {key: [] for key in RECORD_KEYS}
        for i, record in enumerate(records):
            if not isinstance(record, Mapping):
                raise _fail(
                    f"records[{i}]",
                    "a mapping such as {'image_id': ..., 'category_id': ..., 'region': ...}",
                    type(record).__name__,
                )
            unknown = set(record) - set(RECORD_KEYS)
            if unknown:
                raise _fail(f"records[{i}]", f"a mapping with keys among {RECORD_KEYS}", f"keys {sorted(unknown)}")
            for key in ("image_id", "category_id", "region"):
                if key not in record:
                    raise _fail(f"records[{i}]", f"a mapping with the key {key!r}", f"keys {sorted(record)}")
            pieces = _region_pieces(record["region"], f'records[{i}]["region"]')
            n = sum(len(piece) for piece in pieces)
            image = np.asarray(record["image_id"])
            if image.ndim != 0:
                raise _fail(f'records[{i}]["image_id"]', "a single id", record["image_id"])
            columns["image_id"].append(np.full(n, image.item(), dtype=image.dtype))
            columns["category_id"].append(_ids(record["category_id"], f'records[{i}]["category_id"]', n))
            columns["region"].extend(pieces)
            for key in ("score", "area"):
                columns[key].append(record.get(key))
            columns["iscrowd"].append(
                np.zeros(n, bool)
                if record.get("iscrowd") is None
                else _flags(record["iscrowd"], f'records[{i}]["iscrowd"]', n)
            )
            columns["ignore"].append(
                np.zeros(n, bool)
                if record.get("ignore") is None
                else _flags(record["ignore"], f'records[{i}]["ignore"]', n)
            )
        optional = {}
        for key in ("score", "area"):
            present = [value is not None for value in columns[key]]
            if any(present) and not all(present):
                raise _fail(
                    f"records[{present.index(not present[0])}]",
                    f"a mapping with {key!r} like the other records",
                    "a record without it" if present[0] else "a record with it",
                )
            if all(present) and records:
                optional[key] = np.concatenate(
                    [
                        np.atleast_1d(_numbers(v, f'records[{i}]["{key}"]', len(ids)))
                        for i, (v, ids) in enumerate(zip(columns[key], columns["image_id"]))
                    ]
                )
        if not records:
            return cls(np.zeros(0, np.int64), np.zeros(0, np.int64), [])
        iscrowd = np.concatenate(columns["iscrowd"])
        ignore = np.concatenate(columns["ignore"])
        return cls(
            _ids(np.concatenate(columns["image_id"]), "image_id", len(iscrowd)),
            np.concatenate(columns["category_id"]),
            columns["region"],
            iscrowd=iscrowd if iscrowd.any() else None,
            ignore=ignore if ignore.any() else None,
            **optional,
        )

    def __getstate__(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state: dict[str, Any]) -> None:  # pickled to workers: the columns are already checked
        for name, value in state.items():
            if isinstance(value, np.ndarray):
                value.flags.writeable = False
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenRegionError(
            f"Annotations is immutable (setting {name!r}): build a new one with the columns changed"
        )

    def __len__(self) -> int:
        return len(self._image_id)

    def __repr__(self) -> str:
        parts = [f"{len(self)} rows", f"kinds {', '.join(self.kinds) or '-'}"]
        parts += [name for name in ("score", "iscrowd", "area", "ignore") if getattr(self, name) is not None]
        return f"<Annotations {'; '.join(parts)}>"

    image_id = property(lambda self: self._image_id, doc="Image id of each row.")
    category_id = property(lambda self: self._category_id, doc="Category id of each row.")
    score = property(lambda self: self._score, doc="Score of each row, or None.")
    iscrowd = property(lambda self: self._iscrowd, doc="Crowd flag of each row, or None.")
    area = property(lambda self: self._area, doc="Given area of each row, or None (the region's measure is used).")
    ignore = property(lambda self: self._ignore, doc="Ignore (difficult) flag of each row, or None.")

    def take(self, rows: ArrayLike) -> Annotations:
        """The annotations of some rows, in order: increasing row indices or a boolean mask of one flag per row.

        Regions are sliced in their own batches (masks keep their grids), so this is how a set is
        split into parts by image.

        Examples
        --------
        >>> import geoiou
        >>> boxes = geoiou.Box([[0, 0, 1, 1], [0, 0, 2, 2], [1, 1, 3, 3]])
        >>> truth = Annotations(image_id=[1, 2, 2], category_id=[5, 5, 6], region=boxes)
        >>> second = truth.take(truth.image_id == 2)
        >>> second.category_id.tolist(), len(second.regions[0])
        ([5, 6], 2)
        """
        selected = np.asarray(rows)
        if selected.dtype == bool:
            if selected.shape != (len(self),):
                raise _fail(
                    "rows",
                    f"a boolean mask of shape ({len(self)},) or increasing row indices",
                    f"a mask of shape {selected.shape}",
                )
            selected = np.flatnonzero(selected)
        elif (
            selected.dtype.kind not in "iu"
            or selected.ndim != 1
            or (np.diff(selected) <= 0).any()
            or (len(selected) and (selected[0] < 0 or selected[-1] >= len(self)))
        ):
            raise _fail("rows", f"increasing row indices in [0, {len(self)}) or a boolean mask", rows)
        pieces, start = [], 0
        for piece in self._pieces:
            inside = selected[(selected >= start) & (selected < start + len(piece))] - start
            if len(inside):
                pieces.append(piece[inside])
            start += len(piece)
        columns = {
            name: None if getattr(self, name) is None else getattr(self, name)[selected]
            for name in ("score", "iscrowd", "area", "ignore")
        }
        if not pieces and self._pieces:  # no row: an empty batch of the first kind keeps the kind
            pieces = [self._pieces[0][:0]]
        return Annotations(self._image_id[selected], self._category_id[selected], pieces, **columns)

    @property
    def regions(self) -> tuple[Region, ...]:
        """The region batches, in row order (one per piece given)."""
        return self._pieces

    @property
    def kinds(self) -> tuple[str, ...]:
        """Names of the region kinds present, sorted."""
        return tuple(sorted({type(piece).__name__ for piece in self._pieces}))


def as_annotations(value: Any, param: str) -> Annotations:
    """`value` as Annotations: itself, a mapping of its columns, or a sequence of per-image records."""
    if isinstance(value, Annotations):
        return value
    if isinstance(value, Mapping):
        try:
            return Annotations(**value)
        except TypeError as error:
            raise _fail(param, f"a mapping of the columns {RECORD_KEYS}", f"keys {sorted(value)}") from error
    if (
        isinstance(value, Sequence)
        and not isinstance(value, (str, bytes))
        and all(isinstance(v, Mapping) for v in value)
    ):
        return Annotations.from_records(value)
    raise _fail(param, "Annotations, a mapping of columns, or a sequence of per-image records", type(value).__name__)


def id_list(value: Any, param: str) -> np.ndarray:
    """The sorted distinct ids of a list of image or category ids (`param` names it in errors)."""
    array = _ids(list(value), param, len(value))
    return distinct(array)
