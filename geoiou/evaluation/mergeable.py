"""Mergeable evaluation states: ``update(part)``, ``merge(states)``, ``compute()``.

Every evaluation is computed in three steps so that its input can be split: by image (COCO, VOC,
DOTA, agreement), by video (temporal detection, action segmentation), by sample (multi-label
Jaccard) or by pixel (semantic segmentation). ``update`` reduces one part of the input to a small
picklable state that holds no regions, only what the final step needs (per prediction: its
category, image, rank, score and match flags); ``merge`` joins states in order; ``compute`` gives
the result. The one-shot functions (`evaluate_coco` and the others) are one ``update`` and one
``compute``, so there is one implementation, and a split input gives the same result as one call:
counts bit for bit, AP too (the final step sees the same numbers in the same order).

Parts are joined in the order given to ``merge``: where an evaluation breaks ties of score by input
order across images (VOC, temporal detection), that order is the order of the parts. An image (or
video) may appear in one part only: matching never crosses images, so splitting one would count
its ground truth twice. ``compute`` refuses it by name.
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections import Counter
from collections.abc import Hashable, Iterable
from typing import Any, Generic, Sequence, TypeVar

import numpy as np

from geoiou._validation import invalid_argument

__all__ = ["MergeableEvaluation", "merge_states"]

ResultT = TypeVar("ResultT")
StateT = TypeVar("StateT", bound="MergeableEvaluation[Any]")


class MergeableEvaluation(Generic[ResultT]):
    """Base of the evaluation states: settings fixed at construction, parts added by ``update``.

    Subclasses keep their checked settings in `settings`, a frozen dataclass of their own
    (compared field by field by `merge`), and one entry per ``update`` in `_parts`; ``compute``
    reads the parts in order.
    """

    settings: Any
    _parts: list[Any]

    def _start(self, settings: Any) -> None:
        self.settings = settings
        self._parts = []

    def empty(self: StateT) -> StateT:
        """A state with the same settings and nothing counted yet (what a worker starts from)."""
        fresh = copy.copy(self)
        fresh._parts = []
        return fresh

    @property
    def num_parts(self) -> int:
        """How many parts were added (by ``update`` or joined by ``merge``)."""
        return len(self._parts)

    def merge(self: StateT, *others: StateT) -> StateT:
        """A new state holding the parts of this state and then of `others`, in that order.

        Raises
        ------
        InvalidArgumentError
            If another state is of a different evaluation or has different settings.
        """
        merged = self.empty()
        merged._parts = list(self._parts)
        for i, other in enumerate(others):
            if type(other) is not type(self):
                raise invalid_argument(f"others[{i}]", f"a {type(self).__name__} state", other)
            differing = _differing_setting(self.settings, other.settings)
            if differing is not None:
                # Name the setting, not every setting: the states of a run share all but the one at fault.
                mine, theirs = (
                    _shown(getattr(settings, differing, "(not set)")) for settings in (self.settings, other.settings)
                )
                raise invalid_argument(
                    f"others[{i}]",
                    f"a {type(self).__name__} with this state's {differing}={mine!r}",
                    f"{differing}={theirs!r}",
                )
            merged._parts.extend(other._parts)
        return merged

    def compute(self) -> ResultT:  # pragma: no cover - each evaluation defines it
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {len(self._parts)} parts>"


def merge_states(states: Sequence[StateT]) -> StateT:
    """Merge a non-empty sequence of states of one evaluation, in order (what a tree reduction calls).

    Examples
    --------
    >>> from geoiou.evaluation import TemporalDetectionEvaluation
    >>> parts = [TemporalDetectionEvaluation().update({"v1": [(0, 5, "run")]}, {"v1": [(0, 4, "run", 0.9)]}),
    ...          TemporalDetectionEvaluation().update({"v2": [(0, 5, "run")]}, {"v2": []})]
    >>> float(merge_states(parts).compute().ap_per_class()["run"][0])  # one of two segments found, at rank 1
    0.5
    """
    if not states:
        raise invalid_argument("states", "at least one state", "none")
    return states[0].merge(*states[1:])


def _shown(value: Any) -> Any:
    """A setting as a message shows it: arrays as lists."""
    return value.tolist() if isinstance(value, np.ndarray) else value


def _differing_setting(a: Any, b: Any) -> str | None:
    """The first field whose value differs between the settings `a` and `b` (dataclasses of one type), or None."""
    for field in dataclasses.fields(a):
        key = field.name
        left, right = getattr(a, key), getattr(b, key)
        if isinstance(left, np.ndarray) or isinstance(right, np.ndarray):
            if not np.array_equal(np.asarray(left), np.asarray(right)):
                return key
        elif left != right and not (
            isinstance(left, float) and isinstance(right, float) and math.isnan(left) and math.isnan(right)
        ):  # NaN options (zero_division)
            return key
    return None


def joined_ids(parts: Sequence[np.ndarray], what: str) -> np.ndarray:
    """The ids (ints or strings) of all parts in one array; parts with ids of different types are refused
    (concatenating them would turn 1 into "1")."""
    present = [ids for ids in parts if len(ids)]
    if len({ids.dtype.kind == "U" for ids in present}) > 1:
        raise invalid_argument(
            "parts",
            f"{what} ids of one type in every part (all strings or all integers)",
            "strings in some parts and integers in others",
        )
    return np.concatenate(present) if present else np.zeros(0, dtype=np.int64)


def disjoint_keys(parts: Sequence[np.ndarray], what: str) -> np.ndarray:
    """The sorted keys of all parts, refusing a key that two parts share (an image split across parts)."""
    keys = joined_ids(parts, what)
    distinct, counts = np.unique(keys, return_counts=True)
    if (counts > 1).any():
        raise invalid_argument(
            "parts",
            f"parts split by {what}: each {what} in one part only",
            f"{what} {distinct[np.argmax(counts > 1)].item()!r} in {counts.max()} parts",
        )
    return distinct


def refuse_shared(keys: Iterable[Hashable], what: str) -> None:
    """Refuse a key (video, image) that appears in two parts: `keys` lists each part's keys one after another."""
    twice = [key for key, count in Counter(keys).items() if count > 1]
    if twice:
        raise invalid_argument(
            "parts", f"parts split by {what}: each {what} in one part only", f"{what} {twice[0]!r} in two parts"
        )


def end_to_end(arrays: Sequence[np.ndarray], empty: np.ndarray) -> np.ndarray:
    """The parts' arrays joined in order; one part's array as it is (no copy), `empty` for no part.

    Examples
    --------
    >>> one = np.array([1, 2])
    >>> end_to_end([one], np.zeros(0, np.int64)) is one, end_to_end([one, one], np.zeros(0, np.int64)).tolist()
    (True, [1, 2, 1, 2])
    """
    if len(arrays) == 1:
        return arrays[0]
    joined: np.ndarray = np.concatenate([empty, *arrays])
    return joined


def part_starts(sizes: Sequence[int]) -> np.ndarray:
    """Where each part's rows start among the rows of all parts joined in order.

    Examples
    --------
    >>> part_starts([3, 0, 2]).tolist()
    [0, 3, 3]
    """
    return np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)])[:-1]
