"""The table of pair kernels, and how a pair of region kinds finds its kernel.

A kernel measures pairs: ``kernel(a, b, index_a, index_b)`` takes two flat (1-D) batches and the
indices of the pairs to measure, and returns one measure per pair: of their intersection
(``"intersection"``) or of the convex hull of their union (``"hull"``, the GIoU enclosure). One
kernel serves a single pair, the elementwise metrics and the candidates of a pairwise matrix alike.
Kernels are registered per measure and ordered pair of kinds. Lookup tries the exact pair, then
the swapped pair (the measures are symmetric), then promotes a kind along the exact towers
``Box < RotatedBox < Polygon`` and ``Box3D < RotatedBox3D < OrientedBox3D`` and tries again. A
new geometry plugs in by registering kernels; the metrics never grow an if/elif.
"""

from __future__ import annotations

import functools
import importlib
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from geoiou.errors import UnsupportedPairError
from geoiou.regions import Box, Box3D, OrientedBox3D, Polygon, Region, RotatedBox, RotatedBox3D

__all__ = ["Kernel", "PairKernel", "broadcast_pairs", "find_kernel", "register", "supported_pairs"]

#: ``measure(a, b, index_a, index_b) -> ndarray (n,)``: the measure of the pairs ``(a[index_a[k]], b[index_b[k]])``.
Measures = Callable[[Any, Any, np.ndarray, np.ndarray], np.ndarray]
#: ``fused(a, b, pairs, formula, out)``: a kernel's one pass that writes a formula of each pair's measure into `out`.
Fused = Callable[[Any, Any, Any, Any, np.ndarray], None]
#: ``single(a, b, code, zero_division) -> float``: a kernel's formula of two single regions, in one compiled call.
Single = Callable[[Any, Any, int, float], float]


@dataclass(frozen=True)
class Kernel:
    """A registered kernel: how it measures pairs, and the entries that apply a formula in the same pass.

    Attributes
    ----------
    measure : callable
        ``measure(a, b, index_a, index_b)``: the measure of each listed pair of two flat batches.
    fused : callable or None
        ``fused(a, b, pairs, formula, out)``: the kernel's pass that writes the formula of each of
        `pairs` into `out` (`geoiou.kernels.formulas`); None for a kernel that only measures.
    single : callable or None
        ``single(a, b, code, zero_division)``: the formula `code` of two single regions in one call,
        for the codes of `single_codes`.
    single_codes : frozenset of int
        The formulas `single` computes.
    box_enclosure : bool
        Whether `fused`, asked for GIoU with no enclosure given, measures GIoU's box enclosure itself.
    """

    measure: Measures
    fused: Fused | None = None
    single: Single | None = None
    single_codes: frozenset[int] = field(default_factory=frozenset)
    box_enclosure: bool = False

    def __call__(self, a: Any, b: Any, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
        """The measure of the pairs ``(a[index_a[k]], b[index_b[k]])`` of two flat batches, shape ``(n,)``."""
        return self.measure(a, b, index_a, index_b)


Measure = str  # "intersection" or "hull"
_TABLE: dict[tuple[Measure, type[Region], type[Region]], Kernel] = {}

#: The kinds above each kind in the exact tower ``Box < RotatedBox < Polygon``, nearest first, each
#: with the direct conversion that reaches it: Box goes to Polygon by its own exact corners, not
#: through a rotated box's centre and size, which would round at large coordinates.
#: The 3-D tower ``Box3D < RotatedBox3D < OrientedBox3D`` promotes the same way; 2-D and 3-D kinds never meet.
PROMOTIONS: dict[type[Region], tuple[tuple[type[Region], Callable[[Any], Region]], ...]] = {
    Box: ((RotatedBox, Box.to_rotated_box), (Polygon, Box.to_polygon)),
    RotatedBox: ((Polygon, RotatedBox.to_polygon),),
    Box3D: ((RotatedBox3D, Box3D.to_rotated_box3d), (OrientedBox3D, Box3D.to_oriented_box3d)),
    RotatedBox3D: ((OrientedBox3D, RotatedBox3D.to_oriented_box3d),),
}


def register(
    kind_a: type[Region], kind_b: type[Region], measure: Measure = "intersection"
) -> Callable[[Kernel | Measures], Kernel]:
    """Register the decorated `Kernel` (or measure function) as the `measure` kernel of ``(kind_a, kind_b)``.

    A measure function is called as ``measure(a, b, index_a, index_b)`` with two flat (1-D)
    batches of the two kinds and int64 arrays of equal length n, and returns a float64 array of
    shape ``(n,)``: the measure of each pair ``(a[index_a[k]], b[index_b[k]])``. It prunes pairs
    whose bounds do not overlap itself, and its cost must follow the pairs asked, not the batch
    sizes. A swapped pair ``(kind_b, kind_a)`` finds it too (its arguments swapped). The decorator
    returns the registered `Kernel`.
    """

    def decorator(kernel: Kernel | Measures) -> Kernel:
        registered = kernel if isinstance(kernel, Kernel) else Kernel(kernel)
        _TABLE[(measure, kind_a, kind_b)] = registered
        find_kernel.cache_clear()
        return registered

    return decorator


@dataclass(frozen=True)
class PairKernel:
    """A kernel bound to a pair of kinds, with the conversions that bring the arguments to it."""

    kernel: Kernel
    convert_a: tuple[Callable[[Any], Region], ...]
    convert_b: tuple[Callable[[Any], Region], ...]
    swapped: bool
    #: The measure the kernel computes ("intersection" or "hull").
    measure: Measure = "intersection"

    def pairs(self, a: Region, b: Region, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
        """The measure of the pairs ``(a[index_a[k]], b[index_b[k]])`` of two flat batches, shape ``(n,)``."""
        converted_a, converted_b = self._converted(a, b)
        if self.swapped:
            result = self.kernel(converted_b, converted_a, index_b, index_a)
        else:
            result = self.kernel(converted_a, converted_b, index_a, index_b)
        if self.measure == "intersection" and (self.convert_a or self.convert_b):
            # A promoted region's corners are rounded: its polygon may enclose a few ulps more than
            # the region itself. The intersection is bounded by the regions' own measures.
            result = np.minimum(result, np.minimum(a._area_array()[index_a], b._area_array()[index_b]))
        return result

    def __call__(self, a: Region, b: Region) -> np.ndarray:
        """The measure of each pair of two batches with broadcastable shapes, as an array of the broadcast shape."""
        index_a, index_b, shape = broadcast_pairs(a.shape, b.shape)
        return self.pairs(a.reshape(a.size), b.reshape(b.size), index_a, index_b).reshape(shape)

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


def broadcast_pairs(
    shape_a: tuple[int, ...], shape_b: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """Flat indices into each batch for every element of their broadcast shape, and that shape.

    The indices are fresh, writable int64 arrays (`flatten` copies): the compiled loops then see
    one array type, and compile once.
    """
    if not shape_a and not shape_b:
        return np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), ()
    shape = np.broadcast_shapes(shape_a, shape_b)
    index_a = np.broadcast_to(np.arange(math.prod(shape_a), dtype=np.int64).reshape(shape_a), shape).flatten()
    index_b = np.broadcast_to(np.arange(math.prod(shape_b), dtype=np.int64).reshape(shape_b), shape).flatten()
    return index_a, index_b, shape


def _tower_rank(kind: type[Region]) -> int:
    """How high `kind` stands in its tower (``Box < RotatedBox < Polygon``, ``Box3D < RotatedBox3D <
    OrientedBox3D``): the promotions that reach it from the tower's bottom (0 for kinds outside both)."""
    for bottom in (Box, Box3D):
        chain = [target for target, _ in _promotion_chain(bottom)]
        if kind in chain:
            return chain.index(kind)
    return 0


def _promotion_chain(kind: type[Region]) -> list[tuple[type[Region], tuple[Callable[[Any], Region], ...]]]:
    """`kind` and each kind above it in the tower, with the conversion that reaches it."""
    return [(kind, ())] + [(target, (convert,)) for target, convert in PROMOTIONS.get(kind, ())]


@functools.lru_cache(maxsize=None)
def find_kernel(kind_a: type[Region], kind_b: type[Region], measure: Measure = "intersection") -> PairKernel:
    """Return the `measure` kernel for ``(kind_a, kind_b)``, promoting kinds up the tower as little as needed.

    The built-in kernels (`geoiou.kernels`, over the compiled core `geoiou._core`) are registered on
    the first lookup.

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
            kernel = _TABLE.get(key)
            if kernel is not None:
                return PairKernel(kernel, conv_a, conv_b, swapped, measure)
    what = "compare" if measure == "intersection" else f"compute the {measure} measure of"
    raise UnsupportedPairError(
        f"cannot {what} {kind_a.__name__} with {kind_b.__name__}; supported pairs: "
        + ", ".join(f"{a.__name__}×{b.__name__}" for a, b in supported_pairs(measure))
        + " (Box, RotatedBox and Polygon also mix by exact promotion, and so do Box3D, RotatedBox3D and "
        "OrientedBox3D; 2-D and 3-D regions do not compare)"
    )


def supported_pairs(measure: Measure = "intersection") -> list[tuple[type[Region], type[Region]]]:
    """Pairs of kinds with a registered `measure` kernel (each pair once; promotion covers more)."""
    _load_builtin_kernels()
    pairs = [(a, b) for (m, a, b) in _TABLE if m == measure]
    return sorted(pairs, key=lambda pair: (pair[0].__name__, pair[1].__name__))
