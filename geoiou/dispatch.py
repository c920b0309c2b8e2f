"""The table of pair kernels, and how a pair of region kinds finds its kernel.

A kernel computes, for two regions with broadcastable batch shapes, one measure of each pair as an
array of the broadcast shape: the measure of their intersection (``"intersection"``) or of the convex
hull of their union (``"hull"``, the GIoU enclosure). Kernels are registered per measure and
ordered pair of kinds. The compiled kernels take the ``"pairs"`` form: two flat batches and the
indices of the pairs to measure, one compiled loop over those pairs that serves a single pair, the
elementwise metrics and the candidates of a pairwise matrix alike. Kernels not yet compiled take
the ``"batch"`` form (broadcasting batches), optionally with a single-pair form in plain Python
floats and a blocks form for fused pairwise matrices.
Lookup tries the exact pair, then the swapped pair (intersection is symmetric), then promotes a
kind along the exact tower ``Box < RotatedBox < Polygon`` and tries again. A new geometry plugs in
by registering kernels; the metrics never grow an if/elif.
"""

from __future__ import annotations

import functools
import importlib
import math
from dataclasses import dataclass
from typing import Any, Callable, TypeVar

import numpy as np

from geoiou.errors import UnsupportedPairError
from geoiou.regions import Box, Polygon, Region, RotatedBox

__all__ = ["Kernel", "PairKernel", "find_kernel", "register", "supported_pairs"]

Kernel = Callable[[Region, Region], np.ndarray]

Measure = str  # "intersection" or "hull"
Form = str  # "pairs", "batch", "single" or "blocks"
FORMS = ("pairs", "batch", "single", "blocks")
#: The forms a pair can be found by (a complete kernel on its own).
_PRIMARY_FORMS = ("pairs", "batch")
_TABLE: dict[tuple[Measure, type[Region], type[Region]], dict[Form, Callable]] = {}
#: Kernels that measure candidate pairs one by one after pruning by bounds (see `register`).
_PER_CANDIDATE: set[Kernel] = set()

#: The kinds above each kind in the exact tower ``Box < RotatedBox < Polygon``, nearest first, each
#: with the direct conversion that reaches it: Box goes to Polygon by its own exact corners, not
#: through a rotated box's centre and size, which would round at large coordinates.
PROMOTIONS: dict[type[Region], tuple[tuple[type[Region], Callable[[Region], Region]], ...]] = {
    Box: ((RotatedBox, Box.to_rotated_box), (Polygon, Box.to_polygon)),
    RotatedBox: ((Polygon, RotatedBox.to_polygon),),
}


K = TypeVar("K", bound=Callable[..., Any])


def register(kind_a: type[Region], kind_b: type[Region], measure: Measure = "intersection",
             form: Form = "batch", *, per_candidate: bool = False) -> Callable[[K], K]:
    """Register the decorated function as the `measure` kernel of ``(kind_a, kind_b)`` in `form`.

    ``"pairs"``: ``kernel(a, b, index_a, index_b) -> ndarray`` of shape ``(n,)``: the measure of
    the pairs ``(a[index_a[k]], b[index_b[k]])`` of two flat (1-D) batches, with `index_a` and
    `index_b` int64 arrays of length n. A kernel in this form prunes pairs by bounds itself.
    ``"batch"``: ``kernel(a, b) -> ndarray`` of the broadcast batch shape. ``"single"``:
    ``kernel(a, b)`` of two single regions, the same algorithm in Python floats (a Hypothesis test
    holds the two equal bit for bit): for ``"intersection"`` it returns ``(measure, measure of a,
    measure of b)``, for ``"hull"`` the measure. ``"blocks"``: ``kernel(a, b, block_pairs)`` of
    two flat batches returns an object with the GIoU ``enclosures`` it gives, ``dense_blocks()``
    (every pair) and ``band_blocks(limit)`` (only pairs that can overlap, or None beyond `limit`
    pairs), whose blocks have ``intersection``, ``area_a``, ``area_b``, ``enclosure(kind)`` and
    ``write(result, values)``; see `geoiou.kernels.box.AlignedPairs`.

    `per_candidate` marks a batch kernel that measures the pairs whose bounds overlap one by one
    (its cost follows those pairs, not the broadcast shape): pairwise matrices then always come
    from a sweep over the bounds rather than from dense blocks.
    """
    if form not in FORMS:
        raise ValueError(f"'form' must be one of {FORMS} (got {form!r})")

    def decorator(kernel: K) -> K:
        _TABLE.setdefault((measure, kind_a, kind_b), {})[form] = kernel
        if per_candidate:
            _PER_CANDIDATE.add(kernel)
        find_kernel.cache_clear()
        return kernel

    return decorator


@dataclass(frozen=True)
class PairKernel:
    """A kernel bound to a pair of kinds, with the conversions that bring the arguments to it."""

    kernel: Kernel | None
    convert_a: tuple[Callable[[Region], Region], ...]
    convert_b: tuple[Callable[[Region], Region], ...]
    swapped: bool
    single_form: Callable | None = None
    blocks_form: Callable | None = None
    #: The measure the kernel computes ("intersection" or "hull").
    measure: Measure = "intersection"
    #: The kernel in the "pairs" form (flat batches and pair indices), if it has one.
    pairs_form: Callable | None = None

    @property
    def per_candidate(self) -> bool:
        """Whether the kernel measures bounds-overlapping pairs one by one (see `register`)."""
        return self.kernel in _PER_CANDIDATE

    def __call__(self, a: Region, b: Region) -> np.ndarray:
        """The measure of each pair of two batches with broadcastable shapes, as an array of the broadcast shape."""
        if self.pairs_form is not None:
            index_a, index_b, shape = _broadcast_pairs(a.shape, b.shape)
            return self.pairs(a.reshape(a.size), b.reshape(b.size), index_a, index_b).reshape(shape)
        assert self.kernel is not None
        converted_a, converted_b = self._converted(a, b)
        result = self.kernel(converted_b, converted_a) if self.swapped else self.kernel(converted_a, converted_b)
        if self._promoted:
            # A promoted region's corners are rounded: its polygon may enclose a few ulps more than
            # the region itself. The intersection is bounded by the regions' own measures.
            result = np.minimum(result, np.minimum(a._area_array(), b._area_array()))
        return result

    def pairs(self, a: Region, b: Region, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
        """The measure of the pairs ``(a[index_a[k]], b[index_b[k]])`` of two flat batches, shape ``(n,)``."""
        if self.pairs_form is None:
            return self(a[index_a], b[index_b])
        converted_a, converted_b = self._converted(a, b)
        if self.swapped:
            result = self.pairs_form(converted_b, converted_a, index_b, index_a)
        else:
            result = self.pairs_form(converted_a, converted_b, index_a, index_b)
        if self._promoted:  # as in `__call__`
            result = np.minimum(result, np.minimum(a._area_array()[index_a], b._area_array()[index_b]))
        return result

    @property
    def _promoted(self) -> bool:
        return self.measure == "intersection" and bool(self.convert_a or self.convert_b)

    @property
    def has_single(self) -> bool:
        return self.single_form is not None

    def single(self, a: Region, b: Region) -> Any:
        """The single-pair form on two single regions (measures of `a` and `b` in that order)."""
        converted_a, converted_b = self._converted(a, b)
        if not self.swapped:
            result = self.single_form(converted_a, converted_b)
        else:
            result = self.single_form(converted_b, converted_a)
            result = (result[0], result[2], result[1]) if isinstance(result, tuple) else result
        if self._promoted:  # as in `__call__`: the regions' own measures
            area_a, area_b = float(a.area), float(b.area)
            return min(result[0], area_a if area_a < area_b else area_b), area_a, area_b
        return result

    def blocks(self, a: Region, b: Region, block_pairs: int) -> Any | None:
        """The blocks form on two flat batches, or None when the pair has none as it stands (no conversion, no swap)."""
        if self.blocks_form is None or self.convert_a or self.convert_b or self.swapped:
            return None
        return self.blocks_form(a, b, block_pairs)

    def _converted(self, a: Region, b: Region) -> tuple[Region, Region]:
        for convert in self.convert_a:
            a = convert(a)
        for convert in self.convert_b:
            b = convert(b)
        return a, b


_builtin_loaded = False


def _load_builtin_kernels() -> None:
    """Import `geoiou.kernels` once: its modules register the built-in kernels on import."""
    global _builtin_loaded
    if not _builtin_loaded:
        _builtin_loaded = True
        importlib.import_module("geoiou.kernels")


#: The pair indices of two single regions (shape ``()`` each), read-only so no caller can change them.
_ONE_PAIR = np.zeros(1, dtype=np.int64)
_ONE_PAIR.flags.writeable = False


def _broadcast_pairs(shape_a: tuple[int, ...], shape_b: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """Flat indices into each batch for every element of their broadcast shape, and that shape."""
    if not shape_a and not shape_b:
        return _ONE_PAIR, _ONE_PAIR, ()
    shape = np.broadcast_shapes(shape_a, shape_b)
    index_a = np.broadcast_to(np.arange(math.prod(shape_a), dtype=np.int64).reshape(shape_a), shape)
    index_b = np.broadcast_to(np.arange(math.prod(shape_b), dtype=np.int64).reshape(shape_b), shape)
    return index_a.ravel(), index_b.ravel(), shape


def _tower_rank(kind: type[Region]) -> int:
    """How high `kind` stands in the tower ``Box < RotatedBox < Polygon`` (0 for kinds outside it)."""
    return len(_promotion_chain(Box)) - len(_promotion_chain(kind)) if kind in (Box, RotatedBox, Polygon) else 0


def _promotion_chain(kind: type[Region]) -> list[tuple[type[Region], tuple[Callable, ...]]]:
    """`kind` and each kind above it in the tower, with the conversion that reaches it."""
    return [(kind, ())] + [(target, (convert,)) for target, convert in PROMOTIONS.get(kind, ())]


@functools.lru_cache(maxsize=None)
def find_kernel(kind_a: type[Region], kind_b: type[Region], measure: Measure = "intersection") -> PairKernel:
    """Return the `measure` kernel for ``(kind_a, kind_b)``, promoting kinds up the tower as little as needed.

    The built-in kernels (`geoiou.kernels`, compiled with numba) are loaded on the first lookup, so
    ``import geoiou`` does not load numba.

    Raises
    ------
    UnsupportedPairError
        If no registered kernel covers the pair; the message lists the supported pairs.
    """
    _load_builtin_kernels()
    # Candidates ordered by how many promotions they take, then by the highest kind they reach, so
    # Box×RotatedBox meets its RotatedBox kernel before Box×Polygon (also one promotion away).
    candidates = [
        ((step_a + step_b, max(_tower_rank(target_a), _tower_rank(target_b))), target_a, conv_a, target_b, conv_b)
        for step_a, (target_a, conv_a) in enumerate(_promotion_chain(kind_a))
        for step_b, (target_b, conv_b) in enumerate(_promotion_chain(kind_b))
    ]
    for _, target_a, conv_a, target_b, conv_b in sorted(candidates, key=lambda c: c[0]):
        for key, swapped in (((measure, target_a, target_b), False), ((measure, target_b, target_a), True)):
            forms = _TABLE.get(key, {})
            if any(form in forms for form in _PRIMARY_FORMS):
                return PairKernel(forms.get("batch"), conv_a, conv_b, swapped, forms.get("single"), forms.get("blocks"),
                                  measure, forms.get("pairs"))
    what = "compare" if measure == "intersection" else f"compute the {measure} measure of"
    raise UnsupportedPairError(
        f"cannot {what} {kind_a.__name__} with {kind_b.__name__}; supported pairs: "
        + ", ".join(f"{a.__name__}×{b.__name__}" for a, b in supported_pairs(measure))
        + " (Box, RotatedBox and Polygon also mix by exact promotion)"
    )


def supported_pairs(measure: Measure = "intersection") -> list[tuple[type[Region], type[Region]]]:
    """Pairs of kinds with a registered `measure` kernel (each pair once; promotion covers more)."""
    _load_builtin_kernels()
    pairs = [(a, b) for (m, a, b), forms in _TABLE.items()
             if m == measure and any(form in forms for form in _PRIMARY_FORMS)]
    return sorted(pairs, key=lambda pair: (pair[0].__name__, pair[1].__name__))
