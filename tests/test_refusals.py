"""Every refusal of the public API is a GeoIoUError subclass, and says what to do instead.

The table in docs/errors.md lists the classes; the cases below are the frictions a newcomer hit
(a list or a shapely geometry given to `iou`, an ``(N, k, 2)`` array given to `Polygon`, complex
numbers cast silently, NumPy's messages for joins) and every other refusal of the regions'
batch structure.
"""

from __future__ import annotations

import inspect
import pathlib

import numpy as np
import pytest
import shapely

import geoiou
import geoiou.errors
from geoiou.errors import BatchIndexError, FrozenRegionError, GeoIoUError, InvalidArgumentError
from geoiou.errors import InvalidRegionError, InvalidTypeError, UnsupportedPairError

BOX = geoiou.Box([0, 0, 2, 2])
BOXES = geoiou.Box([[0, 0, 1, 1], [0, 0, 2, 2]])
ERRORS_PAGE = pathlib.Path(__file__).parents[1] / "docs" / "errors.md"


def test_every_error_class_is_a_geoiou_error_and_a_builtin():
    classes = [
        value
        for _, value in inspect.getmembers(geoiou.errors, inspect.isclass)
        if issubclass(value, GeoIoUError) and value is not GeoIoUError
    ]
    assert {cls.__name__ for cls in classes} == set(geoiou.errors.__all__) - {"GeoIoUError"}
    for cls in classes:
        builtins = [
            base
            for base in cls.__mro__
            if base.__module__ == "builtins" and base not in (object, Exception, BaseException)
        ]
        assert builtins, f"{cls.__name__} subclasses no builtin exception callers already catch"


def test_the_errors_page_lists_every_class():
    page = ERRORS_PAGE.read_text()
    for name in set(geoiou.errors.__all__) - {"GeoIoUError"}:
        assert f"| `{name}` |" in page, f"{name} is missing from docs/errors.md"


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        # A list, an array, a shapely geometry given to a metric: say which constructor makes a region.
        (
            lambda: geoiou.iou([0, 0, 1, 1], BOX),
            InvalidTypeError,
            r"'a' must be a geoiou Region .*\(got list\): build one "
            r"first, e\.g\. geoiou\.Box\(\[x1, y1, x2, y2\]\)",
        ),
        (lambda: geoiou.iou(BOX, np.array([0.0, 0, 1, 1, 30])), InvalidTypeError, r"'b' .*geoiou\.RotatedBox"),
        (lambda: geoiou.giou(shapely.box(0, 0, 1, 1), BOX), InvalidTypeError, r"Polygon.from_shapely"),
        (lambda: geoiou.pairwise_iou(BOXES, [(0, 0), (1, 0), (0, 1)]), InvalidTypeError, r"geoiou.Polygon\(ring\)"),
        (lambda: geoiou.overlaps(BOXES, "boxes"), InvalidTypeError, r"'b' must be a geoiou Region"),
        (lambda: geoiou.Box(shapely.box(0, 0, 1, 1)), InvalidRegionError, r"Polygon.from_shapely"),
        (lambda: geoiou.Polygon(shapely.box(0, 0, 1, 1)), InvalidRegionError, r"Polygon.from_shapely"),
        # An (N, k, 2) array is N rings: from_rings.
        (
            lambda: geoiou.Polygon(np.zeros((3, 4, 2))),
            InvalidRegionError,
            r"shape \(n, 2\); for N rings of k vertices "
            r"use Polygon.from_rings \(got 'shape \(3, 4, 2\)'\)",
        ),
        # Complex and boolean numbers are refused, not cast (the imaginary part was dropped without a word).
        (
            lambda: geoiou.Box(np.array([0, 0, 1, 1 + 1j])),
            InvalidRegionError,
            r"'coords' must be an array of real numbers "
            r"\(got 'complex values, dtype complex128'\)",
        ),
        (lambda: geoiou.RotatedBox(np.array([0, 0, 1, 1, 30j])), InvalidRegionError, "real numbers"),
        (lambda: geoiou.Interval(np.array([0, 1j])), InvalidRegionError, "real numbers"),
        (lambda: geoiou.Polygon(np.array([(0, 0), (1, 0), (0, 1j)])), InvalidRegionError, "real numbers"),
        (lambda: geoiou.Polygon.from_rings(np.zeros((2, 3, 2), dtype=complex)), InvalidRegionError, "real numbers"),
        (
            lambda: geoiou.Mask(np.eye(2, dtype=complex)),
            InvalidRegionError,
            r"'array' must be boolean or 0/1 real numbers",
        ),
        (lambda: geoiou.Mask(np.eye(2), origin=np.array([1j, 0])), InvalidRegionError, r"'origin' .*real numbers"),
        (lambda: geoiou.Box([True, False, True, True]), InvalidRegionError, r"real numbers \(got 'boolean values"),
        # Joins of batches that do not fit: geoiou's message, not NumPy's.
        (
            lambda: geoiou.Box.stack([BOXES, BOXES[:1]]),
            InvalidArgumentError,
            r"'regions' must all have one shape to be "
            r"stacked \(got \[\(1,\), \(2,\)\]\); concatenate",
        ),
        (lambda: geoiou.Polygon.stack([BOXES.to_polygon(), BOXES[:1].to_polygon()]), InvalidArgumentError, "one shape"),
        (
            lambda: geoiou.Interval.concatenate(
                [geoiou.Interval(np.zeros((2, 3, 2))), geoiou.Interval(np.zeros((2, 4, 2)))]
            ),
            InvalidArgumentError,
            r"the same shape after the first axis \(got \[\(3,\), \(4,\)\]\)",
        ),
        (
            lambda: geoiou.Box.concatenate([BOX]),
            InvalidArgumentError,
            r"at least one axis .*stack joins single regions",
        ),
        (lambda: geoiou.Box.stack([]), InvalidArgumentError, r"at least one Box \(got an empty sequence\)"),
        (
            lambda: geoiou.Box.stack([BOX, geoiou.RotatedBox([1, 1, 2, 2, 0])]),
            InvalidTypeError,
            r"must all be Box \(got RotatedBox\)",
        ),
        (lambda: BOXES.reshape(3), InvalidArgumentError, r"'shape' must hold the batch's 2 regions \(got \(3,\)"),
        (lambda: geoiou.iou(BOXES, geoiou.Box(np.zeros((3, 4)))), InvalidArgumentError, r"broadcast"),
        # The batch structure.
        (lambda: len(BOX), InvalidTypeError, r"len\(\) of a single Box \(shape \(\)\)"),
        (lambda: list(BOX), InvalidTypeError, r"len\(\) of a single Box"),
        (lambda: BOXES[5], BatchIndexError, r"index 5 is out of bounds .*\(a Box batch of shape \(2,\)\)"),
        (lambda: BOXES["x"], BatchIndexError, r"a Box batch of shape \(2,\)"),
        (lambda: setattr(BOX, "_xyxy", np.zeros(4)), FrozenRegionError, r"Box is immutable"),
        (lambda: geoiou.iou(geoiou.Interval([0, 1]), BOX), UnsupportedPairError, r"cannot compare Interval with Box"),
    ],
    ids=lambda value: None,
)
def test_refusals_are_geoiou_errors_that_say_what_to_do(call, error, message):
    with pytest.raises(error, match=message) as caught:
        call()
    assert isinstance(caught.value, GeoIoUError)


def test_the_builtins_still_catch_them():
    # Code written against the builtins keeps working.
    with pytest.raises(TypeError):
        geoiou.iou([0, 0, 1, 1], BOX)
    with pytest.raises(IndexError):
        BOXES[2]
    with pytest.raises(AttributeError):
        BOX.anything = 1
    with pytest.raises(ValueError):
        geoiou.Box.stack([BOXES, BOXES[:1]])


# --------------------------------------------------------------------------- arrays from other libraries
def test_array_api_arrays_are_read():
    xp = pytest.importorskip("array_api_strict")
    coords = xp.asarray([[0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 3.0, 3.0]])
    boxes = geoiou.Box(coords)
    np.testing.assert_array_equal(boxes.to_array(), [[0, 0, 2, 2], [1, 1, 3, 3]])
    assert geoiou.iou(boxes[0], boxes[1]) == 1 / 7  # 1 shared of 4 + 4 - 1
    assert geoiou.Mask(xp.asarray([[True, False], [True, True]])).area == 3.0
    ring = geoiou.Polygon(xp.asarray([[0.0, 0.0], [4.0, 0.0], [0.0, 3.0]]))
    assert ring.area == 6.0
    assert geoiou.Polygon.from_rings(xp.asarray([[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]] * 2)).area.tolist() == [0.5, 0.5]
    assert geoiou.Interval(xp.asarray([2.0, 5.0])).length == 3.0
    assert geoiou.RotatedBox(xp.asarray([0.0, 0.0, 2.0, 1.0, 30.0])).area == 2.0
    assert geoiou.Mask(np.eye(2), origin=xp.asarray([1.0, 2.0])).bounds.tolist() == [1, 2, 3, 4]


class _DlpackOnly:
    """An array known only by ``__dlpack__`` (no ``__array__``), as some libraries' arrays are."""

    def __init__(self, array: np.ndarray, device: int = 1) -> None:
        self._array, self._device = array, device

    def __dlpack__(self, **options):
        return self._array.__dlpack__(**options)

    def __dlpack_device__(self):
        return (self._device, 0)


def test_dlpack_only_objects_are_read_and_other_devices_refused():
    assert geoiou.Box(_DlpackOnly(np.array([0.0, 0, 2, 3]))).area == 6.0
    with pytest.raises(
        InvalidTypeError,
        match=r"'coords' must be in CPU memory \(got a _DlpackOnly on a device of "
        r"DLPack type 2, such as a GPU\): move it first, e\.g\. coords\.cpu\(\)",
    ):
        geoiou.Box(_DlpackOnly(np.array([0.0, 0, 2, 3]), device=2))


def test_torch_tensors():
    torch = pytest.importorskip("torch")
    boxes = geoiou.Box(torch.tensor([[0.0, 0.0, 2.0, 2.0]]))
    assert boxes.area.tolist() == [4.0]
    assert geoiou.Mask(torch.ones((2, 3), dtype=torch.bool)).area == 6.0
    assert geoiou.Polygon.from_rings(torch.tensor([[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]])).area.tolist() == [0.5]
    assert geoiou.RotatedBox(torch.tensor([0.0, 0.0, 2.0, 1.0, 30.0], dtype=torch.float64)).area == 2.0
    # A tensor in a graph: refused with the way out, never silently detached.
    grad = torch.tensor([0.0, 0.0, 1.0, 1.0], requires_grad=True)
    with pytest.raises(
        InvalidTypeError, match=r"'coords' must be an array that does not require grad .*coords\.detach\(\)"
    ):
        geoiou.Box(grad)
    assert geoiou.Box(grad.detach()).area == 1.0
    with pytest.raises(InvalidTypeError, match="requires_grad=True"):
        geoiou.Polygon.from_rings(torch.zeros((1, 3, 2), requires_grad=True))
    if torch.cuda.is_available():  # pragma: no cover (no GPU where the suite runs)
        with pytest.raises(InvalidTypeError, match=r"\.cpu\(\)"):
            geoiou.Box(torch.tensor([0.0, 0.0, 1.0, 1.0], device="cuda"))
