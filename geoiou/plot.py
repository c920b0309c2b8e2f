"""Pictures of overlaps and of evaluation results, drawn with matplotlib.

matplotlib is an optional extra (``pip install 'geoiou[plot]'``): ``import geoiou`` never imports
it, only ``import geoiou.plot`` does. Every function draws on the Axes it is given (or on a new
figure's), returns that Axes, never calls ``plt.show()`` and never changes the backend.

What is drawn is exact: regions are drawn from their shapely outlines (a mask as the union of its
pixel squares), the intersection of two regions is the exact shapely intersection of those
outlines, and the numbers written beside the picture are geoiou's own (`geoiou.iou`,
`geoiou.giou`, ...), never recomputed from the drawing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal, Mapping, Sequence

import numpy as np
import shapely

try:
    from matplotlib.axes import Axes
    from matplotlib.patches import PathPatch, Rectangle
    from matplotlib.path import Path
except ImportError as error:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError("geoiou.plot needs matplotlib: pip install 'geoiou[plot]'") from error

from geoiou._validation import invalid_argument, not_a_region
from geoiou.boundary import DILATION_RATIO, boundary_band, boundary_distances
from geoiou.diagnostics import CalibrationResult, DetectionConfusion, FBetaResult, TideResult
from geoiou.diagnostics.tide import ERRORS, SPECIAL_ERRORS
from geoiou.dispatch import find_kernel
from geoiou.evaluation import CocoResult, TemporalDetectionResult, VocResult
from geoiou.matching import Matching, match, side_batches
from geoiou.bev import bev_iou
from geoiou.metrics import (
    ENCLOSURES,
    default_enclosure,
    enclosure_area,
    giou,
    intersection_area,
    iou,
    union_area,
)
from geoiou.regions import Box3D, Interval, Mask, OrientedBox3D, Region, RotatedBox3D

__all__ = [
    "plot_boundary_pair",
    "plot_confusion_matrix",
    "plot_f_beta",
    "plot_matching",
    "plot_pair",
    "plot_pair3d",
    "plot_pr_curve",
    "plot_regions",
    "plot_reliability",
    "plot_threshold_curve",
    "plot_tide",
    "plot_timeline",
]

#: Okabe-Ito colours, distinguishable with every common colour-vision deficiency. The first two are
#: the pair's regions, the third their intersection; the rest colour further tracks and categories.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442", "#000000")
INTERSECTION_COLOUR = PALETTE[2]
#: Masks are filled this lightly so that what lies under them stays visible.
MASK_FILL_ALPHA = 0.15
ENCLOSURE_NAMES = {"box": "enclosing box", "hull": "convex hull"}
#: Regions left unmatched by `plot_matching`, one colour per side (matched pairs take the colour of their IoU).
UNMATCHED_COLOURS = (PALETTE[3], PALETTE[5])
#: Outlines of the two sides of `plot_matching`: solid for the first, dashed for the second.
SIDE_LINESTYLES: tuple[Literal["solid"], Literal["dashed"]] = ("solid", "dashed")


# --------------------------------------------------------------------------- public functions
def plot_pair(
    a: Region,
    b: Region,
    *,
    ax: Axes | None = None,
    labels: tuple[str, str] = ("A", "B"),
    enclosure: Literal["box", "hull"] | None = None,
    annotate: bool = True,
    title: str | None = None,
) -> Axes:
    """Draw two regions, their intersection, their union and the GIoU enclosure, with the numbers.

    `a` and `b` are outlined in two colours, the intersection is filled, the union's outline is
    drawn as a grey halo and the enclosure C of GIoU is dashed. Masks are drawn as the exact
    outline of their pixel squares with a light fill. Two intervals are drawn as a timeline
    (`plot_timeline`) with the overlap shaded and the enclosing interval dashed.

    Parameters
    ----------
    a, b : Region
        Single regions (batch shape ``()``): any two of Box, RotatedBox, Polygon and Mask, or two
        Intervals.
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.
    labels : tuple of two str, default ("A", "B")
        Names of `a` and `b` in the legend (or on the timeline's lanes).
    enclosure : {"box", "hull"}, optional
        The enclosure C, as in `geoiou.giou`: by default the enclosing axis-aligned box for
        Box×Box (the enclosing interval for intervals) and the convex hull of the union otherwise.
    annotate : bool, default True
        Write IoU, GIoU, the intersection, the union and ``|C|`` beside the picture.
    title : str, optional
        The title; by default the two kinds as given, e.g. ``"RotatedBox × Polygon"`` (name what
        the regions stand for here when a conversion changed their kind: DOTA quadrilaterals are
        read as polygons).

    Returns
    -------
    matplotlib Axes
        The Axes drawn on. 2-D regions are drawn in image orientation (y axis pointing down) with
        equal aspect. The intersection patch has the gid ``"intersection"``, the enclosure
        ``"enclosure"`` and the numbers ``"metrics"``.

    Raises
    ------
    InvalidArgumentError
        If `a` or `b` is a batch, `labels` is not two strings or `enclosure` is unknown.
    UnsupportedPairError
        If an Interval is paired with a 2-D region.

    Examples
    --------
    >>> import matplotlib.pyplot as plt, geoiou
    >>> from geoiou.plot import plot_pair
    >>> ax = plot_pair(geoiou.Box([0, 0, 2, 2]), geoiou.Box([1, 1, 3, 3]))
    >>> print(next(text for text in ax.texts if text.get_gid() == "metrics").get_text())
    IoU            0.1429
    GIoU          -0.0794
    intersection        1
    union               7
    |C| (box)           9
    >>> plt.close(ax.figure)

    The text is IoU = 1/7, GIoU = 1/7 - (9 - 7)/9 with C the 3 × 3 box holding both.
    """
    _require_single(a, "a")
    _require_single(b, "b")
    labels = _pair_labels(labels)
    numbers = _PairNumbers.of(a, b, enclosure)
    if isinstance(a, Interval) and isinstance(b, Interval):
        ax = plot_timeline({labels[0]: a, labels[1]: b}, ax=ax)
        _draw_interval_overlap(ax, a, b)
        _draw_interval_enclosure(ax, a, b)
    else:
        ax = _axes(ax)
        _draw_pair_shapes(ax, a, b, labels, numbers.enclosure)
        _image_orientation(ax)
    if annotate:
        _write_metrics(ax, numbers.lines(is_interval=isinstance(a, Interval)))
    _legend_beside(ax)
    ax.set_title(f"{type(a).__name__} × {type(b).__name__}" if title is None else title)
    return ax


#: The three views of `plot_pair3d`: a title and the two axes of the data seen (0 x, 1 y, 2 z).
VIEWS_3D = (("top (x, y)", (0, 1)), ("front (x, z)", (0, 2)), ("side (y, z)", (1, 2)))


def plot_pair3d(
    a: Region,
    b: Region,
    *,
    axes: Sequence[Axes] | None = None,
    labels: tuple[str, str] = ("A", "B"),
    annotate: bool = True,
) -> list[Axes]:
    """Draw two 3-D boxes in three views (from above, the front and the side) with their intersection.

    Each view shows the outline of each box seen along one axis (the convex hull of its projected
    corners) and, filled, the projection of the exact intersection polyhedron (SciPy's halfspace
    intersection of the twelve faces' planes). The numbers written beside the last view are geoiou's:
    IoU, GIoU (3-D convex hull), BEV IoU, the intersection and union volumes.

    Parameters
    ----------
    a, b : Box3D, RotatedBox3D or OrientedBox3D
        Single regions (batch shape ``()``).
    axes : sequence of three matplotlib Axes, optional
        Where to draw the views; a new figure of three by default.
    labels : tuple of two str, default ("A", "B")
    annotate : bool, default True
        Write the numbers beside the last view.

    Returns
    -------
    list of three matplotlib Axes
        Top (x, y), front (x, z) and side (y, z), equal aspect; the intersection patches have the
        gid ``"intersection"`` and the numbers ``"metrics"``.

    Examples
    --------
    >>> import matplotlib.pyplot as plt, geoiou
    >>> from geoiou.plot import plot_pair3d
    >>> views = plot_pair3d(geoiou.RotatedBox3D([0, 0, 1, 4, 2, 2, 0]), geoiou.RotatedBox3D([1, 0.5, 1.5, 4, 2, 2, 30]))
    >>> [ax.get_title() for ax in views]
    ['top (x, y)', 'front (x, z)', 'side (y, z)']
    >>> plt.close(views[0].figure)
    """
    for name, region in (("a", a), ("b", b)):
        _require_single(region, name)
        if not isinstance(region, (Box3D, RotatedBox3D, OrientedBox3D)):
            raise invalid_argument(name, "a 3-D region (Box3D, RotatedBox3D or OrientedBox3D)", type(region).__name__)
    labels = _pair_labels(labels)
    views = _three_axes(axes)
    corners = [_box_corners(a), _box_corners(b)]
    shared = _intersection_vertices(a, b)
    for ax, (title, (i, j)) in zip(views, VIEWS_3D):
        if len(shared):
            _draw_intersection(ax, shapely.MultiPoint(shared[:, [i, j]]).convex_hull, f"{labels[0]} ∩ {labels[1]}")
        for points, label, colour in zip(corners, labels, PALETTE):
            _draw_region(ax, shapely.MultiPoint(points[:, [i, j]]).convex_hull, label, colour, lightly_filled=False)
        ax.set_title(title)
        ax.set_aspect("equal")
        ax.autoscale_view()
    if annotate:
        rows = [
            ("IoU", _ratio_text(float(iou(a, b)))),
            ("GIoU", _ratio_text(float(giou(a, b)))),
            ("BEV IoU", _ratio_text(float(bev_iou(a, b)))),
            ("intersection", _measure_text(float(intersection_area(a, b)))),
            ("union", _measure_text(float(union_area(a, b)))),
        ]
        _write_metrics(views[-1], rows)
    _legend_beside(views[-1])
    return views


def _three_axes(axes: Sequence[Axes] | None) -> list[Axes]:
    if axes is None:
        import matplotlib.pyplot as plt  # only for a new figure: pyplot keeps figures for plt.show()

        return list(plt.subplots(1, 3, figsize=(13, 4.2), layout="constrained")[1])
    views = list(axes)
    if len(views) != 3 or not all(isinstance(ax, Axes) for ax in views):
        raise invalid_argument("axes", "three matplotlib Axes or None", axes)
    return views


def _box_corners(region: Region) -> np.ndarray:
    """The eight corners of a 3-D box."""
    oriented = region if isinstance(region, OrientedBox3D) else region.to_oriented_box3d()  # type: ignore[attr-defined]
    corners: np.ndarray = oriented.to_corners()
    return corners


def _intersection_vertices(a: Region, b: Region) -> np.ndarray:
    """The vertices of the intersection polyhedron of two boxes (none when it has no volume), for the drawing."""
    from scipy.optimize import linprog
    from scipy.spatial import HalfspaceIntersection

    spaces = np.vstack([_halfspaces(a), _halfspaces(b)])
    norms = np.linalg.norm(spaces[:, :3], axis=1)
    # The centre of the largest ball inside both: an interior point, if the intersection has volume.
    found = linprog(np.r_[0.0, 0.0, 0.0, -1.0], A_ub=np.c_[spaces[:, :3], norms], b_ub=-spaces[:, 3],
                    bounds=[(None, None)] * 3 + [(0, None)])  # fmt: skip
    if found.status != 0 or not found.x[3] > 0:
        return np.zeros((0, 3))
    vertices: np.ndarray = HalfspaceIntersection(spaces, found.x[:3]).intersections
    return vertices


def _halfspaces(region: Region) -> np.ndarray:
    """The six faces of a box as half-spaces ``n · x + offset <= 0`` (rows ``n, offset``)."""
    oriented = region if isinstance(region, OrientedBox3D) else region.to_oriented_box3d()  # type: ignore[attr-defined]
    centre, sizes, rotation = oriented.centre, oriented.sizes, oriented.rotation
    normals = np.concatenate([rotation.T, -rotation.T])
    offsets = -(normals @ centre) - np.concatenate([sizes, sizes]) / 2
    spaces: np.ndarray = np.c_[normals, offsets]
    return spaces


def plot_boundary_pair(
    a: Region,
    b: Region,
    *,
    ax: Axes | None = None,
    labels: tuple[str, str] = ("A", "B"),
    dilation_ratio: float = DILATION_RATIO,
    image_size: tuple[int, int] | None = None,
    distance: float | None = None,
    annotate: bool = True,
    title: str | None = None,
) -> Axes:
    """Draw two regions' boundary bands over their outlines, the bands' intersection and the numbers.

    Each region is outlined thinly in its colour, its band (`geoiou.boundary_band`: the region
    minus its erosion by ``d``) is lightly filled in that colour, and the part the two bands share
    is filled: boundary IoU is that part over the union of the bands. Mask bands are drawn as their
    pixel squares (boundary-iou-api's pixels), vector bands as their exact polygons.

    Parameters
    ----------
    a, b : Mask, Polygon, Box or RotatedBox
        Single regions (batch shape ``()``).
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.
    labels : tuple of two str, default ("A", "B")
        Names of `a` and `b` in the legend.
    dilation_ratio, image_size, distance
        How wide the bands are, as in `geoiou.boundary_iou`.
    annotate : bool, default True
        Write the mask IoU, the boundary IoU, each band's ``d`` and area and the bands'
        intersection and union beside the picture.
    title : str, optional
        The title; by default ``"boundary IoU: "`` and the two kinds.

    Returns
    -------
    matplotlib Axes
        The Axes drawn on, in image orientation. The shared part of the bands has the gid
        ``"band intersection"``, each band ``"band A"`` and ``"band B"`` (after `labels`), the
        numbers ``"metrics"``.

    Raises
    ------
    InvalidArgumentError
        If `a` or `b` is a batch or has no area (an Interval), `labels` is not two strings, or
        the band options are refused by `geoiou.boundary_band`.

    Examples
    --------
    >>> import matplotlib.pyplot as plt, geoiou
    >>> from geoiou.plot import plot_boundary_pair
    >>> ax = plot_boundary_pair(geoiou.Box([0, 0, 10, 10]), geoiou.Box([0, 0, 10, 9]), distance=2)
    >>> print(next(text for text in ax.texts if text.get_gid() == "metrics").get_text())
    IoU                 0.9000
    boundary IoU        0.7714
    d of A                   2
    d of B                   2
    band A                  64
    band B                  60
    band intersection       54
    band union              70
    >>> plt.close(ax.figure)

    The bands are 100 - 6 · 6 = 64 and 90 - 6 · 5 = 60; they share the 10 × 9 box's band but for
    its bottom edge's 6 × 1 strip that lies inside the 10 × 10 box's core: 54, and 54 / 70 = 0.7714.
    Two regions without a band between them (disjoint) draw no shared part and a boundary IoU of 0.
    """
    _require_single(a, "a")
    _require_single(b, "b")
    labels = _pair_labels(labels)
    options: dict[str, Any] = {"dilation_ratio": dilation_ratio, "image_size": image_size, "distance": distance}
    bands = [boundary_band(region, **options) for region in (a, b)]
    distances = [float(boundary_distances(region, **options)[0]) for region in (a, b)]
    shapes = [_shape(region) for region in (a, b)]
    band_shapes = [_shape(band) for band in bands]
    ax = _axes(ax)
    _draw_intersection(ax, shapely.intersection(*band_shapes), f"{labels[0]} band ∩ {labels[1]} band")
    ax.patches[-1].set_gid("band intersection")
    for shape, band_shape, label, colour in zip(shapes, band_shapes, labels, PALETTE):
        outline = _geometry_path(shape)
        ax.add_patch(PathPatch(outline, facecolor="none", edgecolor=colour, linewidth=1, linestyle="--", zorder=4))
        band = PathPatch(_geometry_path(band_shape), facecolor=(colour, 0.25), edgecolor=colour, linewidth=1.5)
        band.set(label=f"{label} band", zorder=2, gid=f"band {label}")
        ax.add_patch(band)
    ax.autoscale_view()
    _image_orientation(ax)
    if annotate:
        inter, union = float(intersection_area(*bands)), float(union_area(*bands))
        _write_metrics(
            ax,
            [
                ("IoU", _ratio_text(float(iou(a, b)))),
                ("boundary IoU", _ratio_text(float(iou(*bands)))),
                (f"d of {labels[0]}", _measure_text(distances[0])),
                (f"d of {labels[1]}", _measure_text(distances[1])),
                (f"band {labels[0]}", _measure_text(float(bands[0].area))),
                (f"band {labels[1]}", _measure_text(float(bands[1].area))),
                ("band intersection", _measure_text(inter)),
                ("band union", _measure_text(union)),
            ],
        )
    _legend_beside(ax)
    ax.set_title(f"boundary IoU: {type(a).__name__} × {type(b).__name__}" if title is None else title)
    return ax


def plot_regions(
    regions: Region,
    *,
    ax: Axes | None = None,
    labels: Sequence[str] | None = None,
    color: Any = None,
    fill: bool = False,
    label: str | None = None,
    linestyle: str = "solid",
) -> Axes:
    """Draw every region of a batch of any 2-D kind, for example all objects of a DOTA scene.

    Parameters
    ----------
    regions : Box, RotatedBox, Polygon or Mask
        One region or a batch of any shape; masks are drawn as the outline of their pixel squares.
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.
    labels : sequence of str, optional
        One text per region, written at its centroid.
    color : matplotlib colour, optional
        The outline (and fill) colour of every region; Okabe-Ito blue by default.
    fill : bool, default False
        Fill the regions lightly as well as outlining them.
    label : str, optional
        The name of these regions in the legend (drawn when given), for example "ground truth"
        when several sets are drawn on one Axes.
    linestyle : str, default "solid"
        The outlines' line style, to tell sets apart beyond their colour.

    Returns
    -------
    matplotlib Axes
        The Axes drawn on, in image orientation (y axis pointing down) with equal aspect. The
        regions form one collection with the gid ``"regions"``.

    Raises
    ------
    InvalidArgumentError
        If `regions` is not a 2-D region (draw intervals with `plot_timeline`) or `labels` does
        not hold one text per region.

    Examples
    --------
    >>> from importlib.resources import files
    >>> import matplotlib.pyplot as plt
    >>> from geoiou.io import read_dota
    >>> from geoiou.plot import plot_regions
    >>> scene = read_dota(files("geoiou") / "data" / "dota" / "P0770.txt")
    >>> ax = plot_regions(scene.polygons, labels=scene.classes)
    >>> len(ax.texts)
    22
    >>> plt.close(ax.figure)
    """
    if not isinstance(regions, Region) or isinstance(regions, Interval):
        raise invalid_argument(
            "regions", "a Box, RotatedBox, Polygon or Mask (draw intervals with plot_timeline)", type(regions).__name__
        )
    flat = regions.reshape(regions.size)
    labels = _one_per_region(labels, flat.size, "labels")
    colour = PALETTE[0] if color is None else color
    ax = _axes(ax)
    paths = [_geometry_path(_shape(region)) for region in flat]
    collection = _path_collection(paths, colour, fill, linestyle)
    collection.set_gid("regions")
    ax.add_collection(collection)
    if labels is not None:
        _label_centroids(ax, flat.centroid, labels)
    if label is not None:
        _legend_entry(ax, colour, linestyle, label)
        _legend_beside(ax)
    ax.autoscale_view()
    _image_orientation(ax)
    return ax


def plot_timeline(
    tracks: Mapping[str, Interval] | Sequence[Interval],
    *,
    ax: Axes | None = None,
    labels: Sequence[str] | None = None,
    scores: Mapping[str, Any] | Sequence[Any] | None = None,
) -> Axes:
    """Draw intervals ``[start, end)`` as bars on horizontal lanes, one lane per track.

    Intervals of a track that overlap one another (predictions often do) are stacked in rows
    within its lane, so that none hides another; with `scores`, each bar is labelled with its
    score.

    Parameters
    ----------
    tracks : mapping of str to Interval, or sequence of Interval
        Each track is one Interval or a batch of them (all drawn on its lane), for example
        ``{"ground truth": truth, "prediction": predicted}``. Lanes run from top to bottom in
        the order given.
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.
    labels : sequence of str, optional
        Lane names, one per track; by default the mapping's keys, or "track 1", "track 2", ...
    scores : mapping or sequence of array_like, optional
        Scores to write on the bars: for a mapping of tracks, a mapping from some of its names to
        one score per interval of that track; for a sequence, one entry (or None) per track.

    Returns
    -------
    matplotlib Axes
        The Axes drawn on; lane ``i`` spans ``y`` from ``i - 0.5`` to ``i + 0.5``, its rows
        share that height.

    Raises
    ------
    InvalidArgumentError
        If there is no track, a track is not an Interval or `labels` does not hold one name per
        track.

    Examples
    --------
    >>> import matplotlib.pyplot as plt, geoiou
    >>> from geoiou.plot import plot_timeline
    >>> ax = plot_timeline({"ground truth": geoiou.Interval([[0, 4], [6, 9]]),
    ...                     "prediction": geoiou.Interval([1, 5])})
    >>> [label.get_text() for label in ax.get_yticklabels()]
    ['ground truth', 'prediction']
    >>> plt.close(ax.figure)
    >>> segments = geoiou.Interval([[0, 5], [2, 8], [6, 9]])
    >>> ax = plot_timeline({"predictions": segments}, scores={"predictions": [0.9, 0.6, 0.4]})
    >>> [text.get_text() for text in ax.texts]  # [0, 5) and [2, 8) overlap: two rows
    ['0.90', '0.60', '0.40']
    >>> plt.close(ax.figure)
    """
    names, intervals = _tracks(tracks, labels)
    per_track = _scores_per_track(scores, tracks, intervals)
    ax = _axes(ax)
    for lane, (name, interval, colour, score) in enumerate(
        zip(names, intervals, _curve_colours(len(names)), per_track)
    ):
        _draw_lane(ax, lane, interval, colour, name, score)
    ax.set_yticks(range(len(names)), names)
    ax.set_ylim(len(names) - 0.5, -0.5)  # the first track on top
    ax.set_xlabel("time")
    return ax


def plot_pr_curve(
    result: CocoResult | VocResult, *, ax: Axes | None = None, category: Any = None, iou_threshold: float | None = None
) -> Axes:
    """Draw precision against recall from a COCO or VOC evaluation.

    - `CocoResult`: the interpolated precision at the recall thresholds, for the area range
      ``"all"`` and the largest detection limit; one curve per IoU threshold. The precision is
      that of `category`, or the mean over the categories that have ground truth (COCOeval's -1
      entries are left out, as in its AP).
    - `VocResult`: each category's curve (one point per prediction, by decreasing score),
      interpolated as VOC and DOTA do (the precision at a recall is the best at that recall or
      beyond), one curve per category that has ground truth.

    Curves are drawn as the staircases the interpolation makes, each in its own colour and line
    style (Okabe-Ito colours, then again dashed and dotted), and the legend gives each curve's AP.

    Parameters
    ----------
    result : CocoResult or VocResult
        From `geoiou.evaluation.evaluate_coco` or `evaluate_voc`.
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.
    category : optional
        Draw this category only (one of ``result.categories``).
    iou_threshold : float, optional
        Draw this IoU threshold only (one of ``result.iou_thresholds``; for a VocResult it must be
        the evaluation's own threshold).

    Returns
    -------
    matplotlib Axes
        The Axes drawn on: recall on x, precision on y, both in [0, 1].

    Raises
    ------
    InvalidArgumentError
        If `result` is of another type, or `category` or `iou_threshold` is not in it.

    Examples
    --------
    >>> import matplotlib.pyplot as plt, geoiou
    >>> from geoiou.evaluation import Annotations, evaluate_coco
    >>> from geoiou.plot import plot_pr_curve
    >>> truth = Annotations(image_id=[1, 1], category_id=[7, 7], region=geoiou.Box([[0, 0, 10, 10], [20, 20, 30, 30]]))
    >>> preds = Annotations(image_id=[1], category_id=[7], region=geoiou.Box([[0, 0, 10, 9]]), score=[0.9])
    >>> ax = plot_pr_curve(evaluate_coco(truth, preds), iou_threshold=0.5)
    >>> ax.get_legend().get_texts()[0].get_text()
    'IoU 0.50: AP 0.505'
    >>> plt.close(ax.figure)
    """
    if isinstance(result, CocoResult):
        curves, title = _coco_pr_curves(result, category, iou_threshold), "Precision–recall (COCO)"
    elif isinstance(result, VocResult):
        curves, title = _voc_pr_curves(result, category, iou_threshold), "Precision–recall (VOC)"
    else:
        raise invalid_argument("result", "a CocoResult or VocResult from geoiou.evaluation", type(result).__name__)
    ax = _axes(ax)
    for curve, (colour, style) in zip(curves, _curve_styles(len(curves))):
        # Interpolated precision is a staircase: each value holds for the recalls up to its own.
        ax.step(curve.x, curve.y, where="pre", color=colour, linestyle=style, label=curve.label)
    _unit_square(ax, "recall", "precision")
    ax.set_title(title if category is None else f"{title}, category {category}")
    _legend_beside(ax, loc="center left", anchor=(1.03, 0.5))
    return ax


def plot_threshold_curve(result: TemporalDetectionResult | CocoResult, *, ax: Axes | None = None) -> Axes:
    """Draw mAP against the IoU (or tIoU) thresholds, with the average over the thresholds.

    Parameters
    ----------
    result : TemporalDetectionResult or CocoResult
        A temporal detection result (its ``mean_ap`` at each tIoU threshold) or a COCO result
        (AP at each IoU threshold: area ``"all"``, the largest detection limit).
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.

    Returns
    -------
    matplotlib Axes
        The Axes drawn on; the average is a dashed line, annotated with its value.

    Raises
    ------
    InvalidArgumentError
        If `result` is of another type.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from geoiou.evaluation import evaluate_temporal_detection
    >>> from geoiou.plot import plot_threshold_curve
    >>> truth = {"v": [{"label": "jump", "segment": [0, 10]}]}
    >>> preds = {"v": [{"label": "jump", "segment": [2, 10], "score": 0.9}]}
    >>> ax = plot_threshold_curve(evaluate_temporal_detection(truth, preds))
    >>> ax.texts[0].get_text()
    'average mAP 0.700'
    >>> plt.close(ax.figure)

    The tIoU is 8/10: the prediction is found at the seven thresholds 0.5, ..., 0.8 of the ten.
    """
    if isinstance(result, TemporalDetectionResult):
        curve = _Curve(result.tiou_thresholds, result.mean_ap, "mAP")
        axis_label = "tIoU threshold"
    elif isinstance(result, CocoResult):
        precision = _coco_precision(result, None)
        curve = _Curve(result.iou_thresholds, _mean_ignoring_nan(precision, axis=1), "AP")
        axis_label = "IoU threshold"
    else:
        raise invalid_argument(
            "result", "a TemporalDetectionResult or CocoResult from geoiou.evaluation", type(result).__name__
        )
    ax = _axes(ax)
    ax.plot(curve.x, curve.y, marker="o", color=PALETTE[0], label=curve.label)
    _draw_average(ax, float(_mean_ignoring_nan(curve.y, axis=0)), f"average {curve.label}")
    ax.set_xlabel(axis_label)
    ax.set_ylabel(curve.label)
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.set_title(f"{curve.label} by threshold")
    return ax


def plot_matching(
    a: Region | Sequence[Region],
    b: Region | Sequence[Region],
    matching: Matching | None = None,
    *,
    min_iou: float = 0.5,
    method: Literal["greedy", "optimal"] = "greedy",
    ax: Axes | None = None,
    labels: tuple[str, str] = ("A", "B"),
    cmap: str = "viridis",
) -> Axes:
    """Draw two sets of regions and their one-to-one matching: where two annotations agree and where they differ.

    Matched pairs are outlined in the colour of their IoU (a colour bar gives the scale); regions
    left unmatched are outlined in one colour per side. The first side is drawn solid, the second
    dashed. The title gives the F1 of the picture, ``2 · matched / (|a| + |b|)``, the number of
    pairs and their mean IoU, and the unmatched regions of each side. Intervals are drawn on two
    lanes, matched pairs joined by a line.

    Parameters
    ----------
    a, b : Region or sequence of Region
        The two sets, as `geoiou.match` takes them: 1-D batches (or sequences of batches) of 2-D
        kinds, or of intervals.
    matching : Matching, optional
        The matching to draw (indices into `a` and `b`), for example one image's pairs of an
        `evaluate_agreement` result; by default ``geoiou.match(a, b, min_iou=min_iou, method=method)``.
    min_iou, method : optional
        Passed to `geoiou.match` when `matching` is not given.
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.
    labels : tuple of two str, default ("A", "B")
        Names of the two sides in the legend and the title.
    cmap : str, default "viridis"
        The colour map of the IoU, from the matching's ``min_iou`` to 1.

    Returns
    -------
    matplotlib Axes
        The Axes drawn on (2-D regions in image orientation). The outlines form the collections
        with the gids ``"matched_a"``, ``"matched_b"``, ``"only_a"`` and ``"only_b"`` (for
        intervals, the bars carry these gids).

    Raises
    ------
    InvalidArgumentError
        If `matching` is not a `Matching` of regions of these sizes, or `labels` is not two strings.

    Examples
    --------
    >>> import matplotlib.pyplot as plt, geoiou
    >>> from geoiou.plot import plot_matching
    >>> first = geoiou.Box([[0, 0, 10, 10], [20, 0, 30, 10], [40, 0, 50, 10]])
    >>> second = geoiou.RotatedBox([[5, 5, 10, 10, 10], [26, 5, 10, 10, 0], [5, 30, 8, 8, 0]])
    >>> ax = plot_matching(first, second, labels=("annotator 1", "annotator 2"))
    >>> print(ax.get_title())
    F1 0.667: 2 matched (mean IoU 0.841)
    1 only in annotator 1, 1 only in annotator 2
    >>> plt.close(ax.figure)

    Two pairs of six regions: F1 = 4 / 6. The second pair shares 90 of 110 units of area (IoU
    0.818), the first, a square against itself turned by 10°, has IoU 0.863.
    """
    labels = _pair_labels(labels)
    batches_a, batches_b = side_batches(a, "a"), side_batches(b, "b")
    if matching is None:
        matching = match(batches_a, batches_b, min_iou=min_iou, method=method)
    sizes = (sum(len(batch) for batch in batches_a), sum(len(batch) for batch in batches_b))
    _require_matching_of(matching, sizes)
    ax = _axes(ax)
    colours = _iou_colours(matching, cmap)
    lanes = all(isinstance(batch, Interval) for batch in batches_a + batches_b)
    if lanes:
        _draw_matching_lanes(ax, batches_a, batches_b, matching, colours, labels)
    else:
        _draw_matching_shapes(ax, batches_a, batches_b, matching, colours)
        _image_orientation(ax)
    ax.figure.colorbar(colours, ax=ax, label="IoU of matched pairs", shrink=0.8)
    _matching_legend(ax, labels, below=0.16 if lanes else 0.08)
    ax.set_title(_matching_title(matching, sizes, labels))
    return ax


# --------------------------------------------------------------------------- checks
def _require_single(region: Any, param: str) -> None:
    if not isinstance(region, Region):
        raise not_a_region(param, region)
    if region.shape != ():
        raise invalid_argument(param, "a single region (batch shape ())", f"a batch of shape {region.shape}")


def _pair_labels(labels: Any) -> tuple[str, str]:
    if isinstance(labels, str) or len(labels) != 2 or not all(isinstance(label, str) for label in labels):
        raise invalid_argument("labels", "two strings", labels)
    return labels[0], labels[1]


def _one_per_region(labels: Sequence[str] | None, count: int, param: str) -> list[str] | None:
    if labels is None:
        return None
    if isinstance(labels, str) or len(labels) != count:
        raise invalid_argument(param, f"a sequence of {count} texts, one per region", labels)
    return [str(label) for label in labels]


def _tracks(
    tracks: Mapping[str, Interval] | Sequence[Interval], labels: Sequence[str] | None
) -> tuple[list[str], list[Interval]]:
    """Lane names and intervals of the tracks, checked."""
    if isinstance(tracks, Mapping):
        names, intervals = [str(key) for key in tracks], list(tracks.values())
        places = [f'tracks["{key}"]' for key in tracks]
    else:
        intervals = list(tracks)
        names, places = (
            [f"track {k + 1}" for k in range(len(intervals))],
            [f"tracks[{k}]" for k in range(len(intervals))],
        )
    if not intervals:
        raise invalid_argument("tracks", "at least one track", tracks)
    for place, interval in zip(places, intervals):
        if not isinstance(interval, Interval):
            raise invalid_argument(place, "an Interval", type(interval).__name__)
    if labels is not None:
        if isinstance(labels, str) or len(labels) != len(intervals):
            raise invalid_argument("labels", f"a sequence of {len(intervals)} names, one per track", labels)
        names = [str(label) for label in labels]
    return names, intervals


# --------------------------------------------------------------------------- the numbers of a pair
@dataclass(frozen=True)
class _PairNumbers:
    """geoiou's numbers for a pair, and which enclosure they used."""

    iou: float
    giou: float
    intersection: float
    union: float
    enclosure_measure: float
    enclosure: str

    @classmethod
    def of(cls, a: Region, b: Region, enclosure: Literal["box", "hull"] | None) -> _PairNumbers:
        find_kernel(type(a), type(b))  # an unsupported pair (Interval × Box) fails before anything is drawn
        chosen = default_enclosure(a, b) if enclosure is None else enclosure
        if chosen not in ENCLOSURES:
            raise invalid_argument("enclosure", f"one of {ENCLOSURES} or None", enclosure)
        return cls(
            float(iou(a, b)),
            float(giou(a, b, enclosure=chosen)),
            float(intersection_area(a, b)),
            float(union_area(a, b)),
            float(enclosure_area(a, b, enclosure=chosen)),
            chosen,
        )

    def lines(self, *, is_interval: bool) -> list[tuple[str, str]]:
        """(name, value) rows of the annotation."""
        enclosure = "interval" if is_interval else self.enclosure
        return [
            ("tIoU" if is_interval else "IoU", _ratio_text(self.iou)),
            ("GIoU", _ratio_text(self.giou)),
            ("intersection", _measure_text(self.intersection)),
            ("union", _measure_text(self.union)),
            (f"|C| ({enclosure})", _measure_text(self.enclosure_measure)),
        ]


def _ratio_text(value: float) -> str:
    return f"{value:.4f}"


def _measure_text(value: float) -> str:
    return f"{value:.6g}"


# --------------------------------------------------------------------------- 2-D drawing
def _shape(region: Region) -> shapely.Geometry:
    """The exact shapely outline of one 2-D region (a mask: the union of its pixel squares)."""
    return region.to_shapely()


def _polygons(geometry: shapely.Geometry) -> list[shapely.Polygon]:
    """The non-empty polygons of a geometry; an intersection may hold points and lines where edges touch."""
    return [part for part in shapely.get_parts(geometry) if isinstance(part, shapely.Polygon) and not part.is_empty]


def _geometry_path(geometry: shapely.Geometry) -> Path:
    """One Path for every polygon of `geometry`, holes included.

    Exteriors and holes are oriented oppositely, so holes stay empty under either fill rule.
    """
    vertices, codes = [], []
    for polygon in _polygons(geometry):
        oriented = shapely.geometry.polygon.orient(polygon, sign=1.0)
        for ring in (oriented.exterior, *oriented.interiors):
            ring_vertices = np.asarray(ring.coords)  # closed: the last vertex repeats the first
            vertices.append(ring_vertices)
            codes.append([Path.MOVETO] + [Path.LINETO] * (len(ring_vertices) - 2) + [Path.CLOSEPOLY])
    if not vertices:
        return Path(np.empty((0, 2)))
    return Path(np.concatenate(vertices), np.concatenate(codes).astype(Path.code_type))


def _draw_pair_shapes(ax: Axes, a: Region, b: Region, labels: tuple[str, str], enclosure: str) -> None:
    shape_a, shape_b = _shape(a), _shape(b)
    union = shapely.union(shape_a, shape_b)
    _draw_enclosure(ax, union, enclosure)
    _draw_union(ax, union, f"{labels[0]} ∪ {labels[1]}")
    _draw_intersection(ax, shapely.intersection(shape_a, shape_b), f"{labels[0]} ∩ {labels[1]}")
    for region, shape, label, colour in zip((a, b), (shape_a, shape_b), labels, PALETTE):
        _draw_region(ax, shape, label, colour, lightly_filled=isinstance(region, Mask))
    ax.autoscale_view()


def _draw_region(ax: Axes, shape: shapely.Geometry, label: str, colour: str, *, lightly_filled: bool) -> None:
    face = (colour, MASK_FILL_ALPHA) if lightly_filled else "none"
    ax.add_patch(PathPatch(_geometry_path(shape), facecolor=face, edgecolor=colour, linewidth=2, label=label, zorder=4))


def _draw_intersection(ax: Axes, shape: shapely.Geometry, label: str) -> None:
    ax.add_patch(
        PathPatch(
            _geometry_path(shape),
            facecolor=INTERSECTION_COLOUR,
            edgecolor="none",
            alpha=0.6,
            label=label,
            zorder=3,
            gid="intersection",
        )
    )


def _draw_union(ax: Axes, union: shapely.Geometry, label: str) -> None:
    # A wide grey halo under the outlines: it marks the parts of each outline that bound the union.
    ax.add_patch(
        PathPatch(
            _geometry_path(union), facecolor="none", edgecolor="0.75", linewidth=6, label=label, zorder=2, gid="union"
        )
    )


def _draw_enclosure(ax: Axes, union: shapely.Geometry, enclosure: str) -> None:
    if enclosure == "box":
        shape = shapely.box(*union.bounds) if not union.is_empty else union
    else:
        shape = shapely.convex_hull(union)
    ax.add_patch(
        PathPatch(
            _geometry_path(shape),
            facecolor="none",
            edgecolor="black",
            linestyle="--",
            linewidth=1.2,
            label=f"C: {ENCLOSURE_NAMES[enclosure]}",
            zorder=1,
            gid="enclosure",
        )
    )


def _path_collection(paths: list[Path], colour: Any, fill: bool, linestyle: str = "solid") -> Any:
    from matplotlib.collections import PathCollection

    face = (colour, 0.25) if fill else "none"
    # A PathCollection draws its paths in data coordinates only with an identity offset transform.
    return PathCollection(paths, facecolors=[face], edgecolors=[colour], linewidths=1.5, linestyles=linestyle)


def _legend_entry(ax: Axes, colour: Any, linestyle: str, label: str) -> None:
    """A legend entry for outlines drawn as a collection (whose own legend swatch would be blank)."""
    ax.plot([], [], color=colour, linestyle=linestyle, linewidth=1.5, label=label)


def _label_centroids(ax: Axes, centroids: np.ndarray, labels: list[str]) -> None:
    for (x, y), label in zip(centroids, labels):
        if np.isfinite(x) and np.isfinite(y):  # an empty region has no centroid to write at
            ax.text(x, y, label, ha="center", va="center", fontsize="x-small", color="0.15", clip_on=True)


def _image_orientation(ax: Axes) -> None:
    """y pointing down, as in images, with equal scales; idempotent (inverting twice would undo it)."""
    if not ax.yaxis_inverted():
        ax.invert_yaxis()
    # Equal scales by widening the data limits, not by shrinking the box: a shrunk box would move
    # the annotation and legend beside it out of the space the constrained layout made for them.
    ax.set_aspect("equal", adjustable="datalim")


# --------------------------------------------------------------------------- timelines
LANE_HEIGHT = 0.6


def _draw_lane(ax: Axes, lane: int, interval: Interval, colour: str, name: str, scores: np.ndarray | None) -> None:
    start, end = interval.bounds.reshape(-1, 2).T
    row = _rows_without_overlap(start, end)
    rows = int(row.max()) + 1 if row.size else 1
    height = LANE_HEIGHT / rows
    centre = lane - LANE_HEIGHT / 2 + (row + 0.5) * height
    # The edge keeps zero-length intervals visible as thin lines.
    ax.barh(centre, end - start, left=start, height=height * 0.9, color=colour, edgecolor=colour, label=name, zorder=2)
    if scores is not None:
        for x, y, score in zip((start + end) / 2, centre, scores):
            ax.text(
                x,
                y,
                f"{score:.2f}",
                ha="center",
                va="center",
                fontsize="x-small",
                color="white",
                fontweight="bold",
                zorder=3,
                clip_on=True,
            )


def _rows_without_overlap(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """A row per interval such that intervals of one row do not overlap: each takes the first row free by its start."""
    row = np.zeros(start.size, dtype=np.int64)
    row_ends: list[float] = []
    for k in np.lexsort((end, start)):  # by start: a plotting helper, a few hundred intervals at most
        free = next((r for r, last in enumerate(row_ends) if last <= start[k]), len(row_ends))
        if free == len(row_ends):
            row_ends.append(end[k])
        row_ends[free] = max(end[k], start[k])
        row[k] = free
    return row


def _scores_per_track(
    scores: Mapping[str, Any] | Sequence[Any] | None, tracks: Any, intervals: list[Interval]
) -> list[np.ndarray | None]:
    """One array of scores (or None) per track, checked against the track's intervals."""
    if scores is None:
        return [None] * len(intervals)
    if isinstance(tracks, Mapping):
        if not isinstance(scores, Mapping) or not set(scores) <= set(tracks):
            raise invalid_argument("scores", "a mapping from track names to scores", scores)
        given = [scores.get(name) for name in tracks]
    else:
        if isinstance(scores, Mapping) or len(scores) != len(intervals):
            raise invalid_argument("scores", f"a sequence of {len(intervals)} entries, one per track", scores)
        given = list(scores)
    result: list[np.ndarray | None] = []
    for name, interval, values in zip(
        list(tracks) if isinstance(tracks, Mapping) else range(len(intervals)), intervals, given
    ):
        if values is None:
            result.append(None)
            continue
        array = np.asarray(values, dtype=np.float64).reshape(-1)
        if array.size != interval.size:
            raise invalid_argument(f'scores["{name}"]', f"{interval.size} scores, one per interval", array.size)
        result.append(array)
    return result


def _draw_interval_overlap(ax: Axes, a: Interval, b: Interval) -> None:
    start, end = max(float(a.start), float(b.start)), min(float(a.end), float(b.end))
    if end > start:
        # A band across both lanes, behind the bars, so that each bar keeps its own colour.
        ax.add_patch(
            Rectangle(
                (start, -0.5),
                end - start,
                2,
                facecolor=INTERSECTION_COLOUR,
                alpha=0.45,
                edgecolor="none",
                zorder=1,
                label="overlap",
                gid="intersection",
            )
        )


def _draw_interval_enclosure(ax: Axes, a: Interval, b: Interval) -> None:
    start, end = min(float(a.start), float(b.start)), max(float(a.end), float(b.end))
    ax.add_patch(
        Rectangle(
            (start, -0.45),
            end - start,
            1.9,
            facecolor="none",
            edgecolor="black",
            linestyle="--",
            linewidth=1.2,
            zorder=4,
            label="C: enclosing interval",
            gid="enclosure",
        )
    )
    ax.autoscale_view()


def plot_tide(tide: TideResult, *, ax: Axes | None = None) -> Axes:
    """Draw TIDE's error breakdown: the AP each error costs, as horizontal bars (AP points, x100, as TIDE draws it).

    The six main errors come first (each bar labelled with its count), then the two special
    oracles (every false positive removed, every missed ground truth removed), set apart.

    Parameters
    ----------
    tide : TideResult
        From `geoiou.diagnostics.Diagnostics.tide`.
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.

    Returns
    -------
    matplotlib Axes
        One bar per error, its length the AP the error costs (``gid`` ``"tide-<error>"``).

    Examples
    --------
    >>> import matplotlib.pyplot as plt, geoiou
    >>> from geoiou.diagnostics import diagnose
    >>> from geoiou.evaluation import Annotations
    >>> from geoiou.plot import plot_tide
    >>> truth = Annotations(image_id=1, category_id="a", region=geoiou.Box([[0, 0, 10, 10], [20, 0, 30, 10]]))
    >>> preds = Annotations(image_id=1, category_id="a", score=[0.9, 0.8],
    ...                     region=geoiou.Box([[0, 0, 10, 9], [20, 0, 30, 4]]))
    >>> ax = plot_tide(diagnose(truth, preds).tide())
    >>> [round(float(bar.get_width()), 2) for bar in ax.patches][:2]  # classification, localization
    [0.0, 49.5]
    >>> plt.close(ax.figure)
    """
    if not isinstance(tide, TideResult):
        raise invalid_argument("tide", "a TideResult (Diagnostics.tide())", type(tide).__name__)
    ax = _axes(ax)
    names = [*ERRORS, *SPECIAL_ERRORS]
    rows = [k for k in range(len(ERRORS))] + [len(ERRORS) + 0.6 + k for k in range(len(SPECIAL_ERRORS))]
    colours = _curve_colours(len(ERRORS)) + ["0.55"] * len(SPECIAL_ERRORS)
    for row, name, colour in zip(rows, names, colours):
        value = 100 * tide.delta_ap[name]
        ax.barh(row, 0.0 if math.isnan(value) else value, color=colour, gid=f"tide-{name}")
        count = f" ({tide.counts[name]})" if name in tide.counts else ""
        ax.text(0 if math.isnan(value) else value, row, f" {value:.2f}{count}", va="center", fontsize="small")
    short = {**ERRORS, **SPECIAL_ERRORS}
    ax.set_yticks(rows, [short[name] for name in names])
    ax.set_ylim(rows[-1] + 0.7, -0.7)
    ax.set_xlabel("AP points the errors cost (dAP x100)")
    ax.set_title(
        f"TIDE errors: AP {100 * tide.ap:.2f} at IoU {tide.foreground_threshold:g} "
        f"(background {tide.background_threshold:g})"
    )
    ax.grid(axis="x", alpha=0.3)
    return ax


def plot_confusion_matrix(
    confusion: DetectionConfusion,
    *,
    normalize: Literal["truth", "prediction"] | None = None,
    names: Mapping[Any, str] | None = None,
    ax: Axes | None = None,
) -> Axes:
    """Draw a detection confusion matrix: true categories down, predicted across, background last of each.

    Parameters
    ----------
    confusion : DetectionConfusion
        From `geoiou.diagnostics.Diagnostics.confusion_matrix`.
    normalize : {"truth", "prediction"}, optional
        Colour by fractions of each row (``"truth"``) or column; by default by counts. Each cell
        shows its count either way.
    names : mapping, optional
        Display names of the category ids.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt, numpy as np
    >>> from geoiou.diagnostics import DetectionConfusion
    >>> from geoiou.plot import plot_confusion_matrix
    >>> counts = np.array([[5, 1, 2], [0, 4, 1], [3, 0, 0]])  # true cat, dog, background; predicted likewise
    >>> ax = plot_confusion_matrix(DetectionConfusion(np.array(["cat", "dog"]), counts, 0.5, 0.0))
    >>> [label.get_text() for label in ax.get_xticklabels()]
    ['cat', 'dog', 'background']
    >>> plt.close(ax.figure)
    """
    if not isinstance(confusion, DetectionConfusion):
        raise invalid_argument(
            "confusion", "a DetectionConfusion (Diagnostics.confusion_matrix())", type(confusion).__name__
        )
    ax = _axes(ax)
    shown = confusion.counts.astype(np.float64) if normalize is None else confusion.normalized(normalize)
    image = ax.imshow(np.nan_to_num(shown), cmap="Blues", vmin=0)
    labels = [str((names or {}).get(category, category)) for category in confusion.categories.tolist()] + ["background"]
    ax.set_xticks(range(len(labels)), labels, rotation=45, ha="right")
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xlabel("predicted category")
    ax.set_ylabel("true category")
    high = float(np.nanmax(shown)) if shown.size and np.isfinite(shown).any() else 0.0
    for (row, column), count in np.ndenumerate(confusion.counts):
        if count:
            dark = high > 0 and shown[row, column] > high / 2
            ax.text(
                column, row, str(count), ha="center", va="center", fontsize="small", color="white" if dark else "black"
            )
    scale = {
        None: "count",
        "truth": "fraction of the true category",
        "prediction": "fraction of the predicted category",
    }
    ax.figure.colorbar(image, ax=ax, label=scale[normalize])
    ax.set_title(f"Confusion at IoU {confusion.iou_threshold:g}, score >= {confusion.score_threshold:g}")
    return ax


def plot_reliability(calibration: CalibrationResult, *, ax: Axes | None = None) -> Axes:
    """Draw a reliability diagram: the fraction of true positives in each score bin against the bin's mean score.

    Bars show each bin's accuracy, the diagonal is perfect calibration, and the title gives the
    expected and maximum calibration errors.

    Examples
    --------
    >>> import matplotlib.pyplot as plt, geoiou
    >>> from geoiou.diagnostics import diagnose
    >>> from geoiou.evaluation import Annotations
    >>> from geoiou.plot import plot_reliability
    >>> truth = Annotations(image_id=1, category_id="a", region=geoiou.Box([[0, 0, 10, 10]]))
    >>> preds = Annotations(image_id=1, category_id="a", score=[0.9, 0.85],
    ...                     region=geoiou.Box([[0, 0, 10, 9], [50, 0, 60, 4]]))
    >>> ax = plot_reliability(diagnose(truth, preds).calibration(bins=5))
    >>> ax.get_title()
    'Reliability at IoU 0.5: ECE 0.375, MCE 0.375'
    >>> plt.close(ax.figure)
    """
    if not isinstance(calibration, CalibrationResult):
        raise invalid_argument(
            "calibration", "a CalibrationResult (Diagnostics.calibration())", type(calibration).__name__
        )
    ax = _axes(ax)
    low, high = calibration.edges[:-1], calibration.edges[1:]
    filled = calibration.count > 0
    ax.bar(low[filled], calibration.accuracy[filled], width=(high - low)[filled], align="edge", color=PALETTE[0],
           edgecolor="white", label="fraction right", gid="reliability")  # fmt: skip
    ax.plot([0, 1], [0, 1], color=PALETTE[1], linestyle="--", label="perfectly calibrated")
    ax.plot(
        calibration.confidence[filled], calibration.accuracy[filled], "o", color=PALETTE[3], label="bin's mean score"
    )
    _unit_square(ax, "score", "fraction of true positives")
    ax.set_title(f"Reliability at IoU {calibration.iou_threshold:g}: ECE {_ap_text(calibration.ece)}, "
                 f"MCE {_ap_text(calibration.mce)}")  # fmt: skip
    ax.legend(loc="upper left", fontsize="small")
    return ax


def plot_f_beta(f_beta: FBetaResult, *, categories: Sequence[Any] | None = None, ax: Axes | None = None) -> Axes:
    """Draw F-beta against the score threshold, per category and overall, each best threshold marked.

    Parameters
    ----------
    f_beta : FBetaResult
        From `geoiou.diagnostics.Diagnostics.f_beta`.
    categories : sequence, optional
        Draw these categories (default: every category; the overall curve is always drawn).
    ax : matplotlib Axes, optional

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from geoiou.diagnostics import diagnose
    >>> from geoiou.evaluation import TemporalDetectionEvaluation
    >>> from geoiou.plot import plot_f_beta
    >>> jumps = diagnose({"v": [(0, 10, "jump")]}, {"v": [(0, 9, "jump", 0.9), (40, 50, "jump", 0.85)]},
    ...                  evaluation=TemporalDetectionEvaluation(tiou_thresholds=[0.5]))
    >>> ax = plot_f_beta(jumps.f_beta())
    >>> ax.get_legend().get_texts()[0].get_text()
    'all: best F1 1.000 at score 0.9'
    >>> plt.close(ax.figure)
    """
    if not isinstance(f_beta, FBetaResult):
        raise invalid_argument("f_beta", "an FBetaResult (Diagnostics.f_beta())", type(f_beta).__name__)
    chosen = list(f_beta.curves) if categories is None else list(categories)
    unknown = [category for category in chosen if category not in f_beta.curves]
    if unknown:
        raise invalid_argument("categories", f"categories of the result, {list(f_beta.curves)}", unknown[0])
    ax = _axes(ax)
    curves = [("all", f_beta.overall)] + [(str(category), f_beta.curves[category]) for category in chosen]
    name = "F1" if f_beta.beta == 1 else f"F{f_beta.beta:g}"
    for (label, curve), (colour, style) in zip(curves, _curve_styles(len(curves))):
        if curve.best < 0:
            continue
        best = curve.best
        ax.step(curve.threshold, curve.f, where="post", color=colour, linestyle=style,
                label=f"{label}: best {name} {curve.f[best]:.3f} at score {curve.threshold[best]:.3g}")  # fmt: skip
        ax.plot(curve.threshold[best], curve.f[best], "o", color=colour)
    _unit_square(ax, "score threshold", name)
    ax.set_title(f"{name} against the score threshold at IoU {f_beta.iou_threshold:g}")
    _legend_beside(ax, loc="center left", anchor=(1.03, 0.5))
    return ax


# --------------------------------------------------------------------------- annotations and axes
def _axes(ax: Axes | None) -> Axes:
    if ax is None:
        import matplotlib.pyplot as plt  # only for a new figure: pyplot keeps figures for plt.show()

        return plt.subplots(figsize=(7.5, 5), layout="constrained")[1]
    if not isinstance(ax, Axes):
        raise invalid_argument("ax", "a matplotlib Axes or None", type(ax).__name__)
    return ax


def _write_metrics(ax: Axes, rows: list[tuple[str, str]]) -> None:
    width = max(len(name) for name, _ in rows)
    text = "\n".join(f"{name:<{width}}  {value:>7}" for name, value in rows)
    ax.text(
        1.03,
        1.0,
        text,
        transform=ax.transAxes,
        va="top",
        ha="left",
        family="monospace",
        fontsize="small",
        bbox={"boxstyle": "round", "facecolor": "white", "edgecolor": "0.7"},
        gid="metrics",
    )


def _legend_beside(
    ax: Axes, loc: Literal["lower left", "center left"] = "lower left", anchor: tuple[float, float] = (1.03, 0.0)
) -> None:
    ax.legend(loc=loc, bbox_to_anchor=anchor, borderaxespad=0, fontsize="small")


LINE_STYLES = ("solid", "dashed", "dotted", "dashdot")


def _curve_styles(count: int) -> list[tuple[str, str]]:
    """A (colour, line style) per curve: the palette in solid lines, then again dashed, dotted..."""
    return [(PALETTE[k % len(PALETTE)], LINE_STYLES[(k // len(PALETTE)) % len(LINE_STYLES)]) for k in range(count)]


def _curve_colours(count: int) -> list[Any]:
    """The palette while it lasts; beyond it, viridis (ordered and colour-blind safe, as thresholds are)."""
    if count <= len(PALETTE):
        return list(PALETTE[:count])
    from matplotlib import colormaps

    return list(colormaps["viridis"](np.linspace(0, 0.9, count)))


def _unit_square(ax: Axes, x_label: str, y_label: str) -> None:
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    ax.grid(alpha=0.3)


def _draw_average(ax: Axes, average: float, label: str) -> None:
    ax.axhline(average, color=PALETTE[1], linestyle="--", linewidth=1.2)
    ax.text(0.02, average, f"{label} {average:.3f}", transform=ax.get_yaxis_transform(), va="bottom", color=PALETTE[1])


# --------------------------------------------------------------------------- evaluation curves
@dataclass(frozen=True)
class _Curve:
    x: np.ndarray
    y: np.ndarray
    label: str


def _mean_ignoring_nan(values: np.ndarray, axis: int) -> np.ndarray:
    """Mean over `axis` of the finite entries; NaN where there are none (without numpy's warning)."""
    finite = np.isfinite(values)
    count = finite.sum(axis=axis)
    total = np.where(finite, values, 0.0).sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), math.nan)


def _coco_precision(result: CocoResult, category: Any) -> np.ndarray:
    """Precision [T, R] for area "all" and the largest detection limit: one category's, or the mean over categories.

    COCOeval marks a category without ground truth with -1; it is left out of the mean, as in its AP.
    """
    areas = list(result.area_ranges)
    area = areas.index("all") if "all" in areas else 0
    limit = result.max_detections.index(max(result.max_detections))
    precision = np.where(result.precision > -1, result.precision, math.nan)[:, :, :, area, limit]  # [T, R, K]
    if category is not None:
        return precision[:, :, _category_index(result.categories, category)]
    return _mean_ignoring_nan(precision, axis=2)


def _coco_pr_curves(result: CocoResult, category: Any, iou_threshold: float | None) -> list[_Curve]:
    precision = _coco_precision(result, category)
    thresholds = list(range(len(result.iou_thresholds)))
    if iou_threshold is not None:
        thresholds = [_threshold_index(result.iou_thresholds, iou_threshold)]
    curves = []
    for t in thresholds:
        ap = float(_mean_ignoring_nan(precision[t], axis=0))
        curves.append(
            _Curve(result.recall_thresholds, precision[t], f"IoU {result.iou_thresholds[t]:.2f}: AP {_ap_text(ap)}")
        )
    return curves


def _voc_pr_curves(result: VocResult, category: Any, iou_threshold: float | None) -> list[_Curve]:
    if iou_threshold is not None:
        _threshold_index(np.array([result.iou_threshold]), iou_threshold)
    indices = list(range(len(result.categories)))
    if category is not None:
        indices = [_category_index(result.categories, category)]
    # A category without ground truth has no recall, hence no curve (its AP is NaN).
    return [
        _Curve(
            result.recall[k], _interpolated(result.precision[k]), f"{result.categories[k]}: AP {_ap_text(result.ap[k])}"
        )
        for k in indices
        if not math.isnan(result.ap[k])
    ]


def _interpolated(precision: np.ndarray) -> np.ndarray:
    """VOC's interpolated precision: at each point, the best precision at that recall or beyond."""
    return np.maximum.accumulate(np.asarray(precision, dtype=np.float64)[::-1])[::-1]


def _ap_text(ap: float) -> str:
    return "n/a" if math.isnan(ap) else f"{ap:.3f}"


def _category_index(categories: np.ndarray, category: Any) -> int:
    found = np.flatnonzero(categories == category)
    if found.size == 0:
        raise invalid_argument("category", f"one of {categories.tolist()}", category)
    return int(found[0])


def _threshold_index(thresholds: np.ndarray, threshold: float) -> int:
    # Matched to within 1e-9, so that 0.9 finds np.linspace's 0.8999999999999999.
    found = np.flatnonzero(np.isclose(thresholds, threshold, rtol=0, atol=1e-9))
    if found.size == 0:
        raise invalid_argument("iou_threshold", f"one of {np.round(thresholds, 4).tolist()}", threshold)
    return int(found[0])


# --------------------------------------------------------------------------- matchings
def _require_matching_of(matching: Any, sizes: tuple[int, int]) -> None:
    if not isinstance(matching, Matching):
        raise invalid_argument("matching", "a geoiou.Matching (from geoiou.match) or None", type(matching).__name__)
    for side, indices, size in (
        ("a", np.r_[matching.index_a, matching.unmatched_a], sizes[0]),
        ("b", np.r_[matching.index_b, matching.unmatched_b], sizes[1]),
    ):
        if len(indices) != size or (size and (indices.min() < 0 or indices.max() >= size)):
            raise invalid_argument(
                "matching", f"a matching of the {size} regions of {side!r}", f"indices of {len(indices)} regions"
            )


def _iou_colours(matching: Matching, cmap: str) -> Any:
    from matplotlib import colormaps
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    low = min(matching.min_iou, 0.99)  # a scale from min_iou = 1 to 1 would be empty
    return ScalarMappable(Normalize(vmin=low, vmax=1.0), colormaps[cmap])


def _side_shapes(batches: list[Region]) -> np.ndarray:
    """The exact shapely outline of every row of a side (masks: the union of their pixel squares)."""
    shapes = [np.asarray(batch.to_shapely(), dtype=object).reshape(len(batch)) for batch in batches]
    return np.concatenate(shapes) if shapes else np.zeros(0, dtype=object)


def _draw_matching_shapes(
    ax: Axes, batches_a: list[Region], batches_b: list[Region], matching: Matching, colours: Any
) -> None:
    from matplotlib.collections import PathCollection

    pair_colours = colours.to_rgba(matching.iou)
    for gid, shapes, rows, colour, style in (
        ("matched_a", _side_shapes(batches_a), matching.index_a, pair_colours, SIDE_LINESTYLES[0]),
        ("matched_b", _side_shapes(batches_b), matching.index_b, pair_colours, SIDE_LINESTYLES[1]),
        ("only_a", _side_shapes(batches_a), matching.unmatched_a, UNMATCHED_COLOURS[0], SIDE_LINESTYLES[0]),
        ("only_b", _side_shapes(batches_b), matching.unmatched_b, UNMATCHED_COLOURS[1], SIDE_LINESTYLES[1]),
    ):
        # One colour per path (pairs) or one for all; an identity offset transform keeps data coordinates.
        ax.add_collection(
            PathCollection(
                [_geometry_path(shape) for shape in shapes[rows]],
                facecolors="none",
                edgecolors=colour,
                linewidths=1.6,
                linestyles=style,
                gid=gid,
            )
        )
    ax.autoscale_view()


def _draw_matching_lanes(
    ax: Axes,
    batches_a: list[Region],
    batches_b: list[Region],
    matching: Matching,
    colours: Any,
    labels: tuple[str, str],
) -> None:
    from matplotlib.collections import LineCollection

    spans = [
        np.concatenate([batch.bounds.reshape(-1, 2) for batch in batches]) if batches else np.zeros((0, 2))
        for batches in (batches_a, batches_b)
    ]
    pair_colours = colours.to_rgba(matching.iou)
    for lane, (gid, rows, colour) in enumerate(
        (("matched_a", matching.index_a, pair_colours), ("matched_b", matching.index_b, pair_colours))
    ):
        start, end = spans[lane][rows].T
        ax.barh(
            np.full(len(rows), lane),
            end - start,
            left=start,
            height=LANE_HEIGHT,
            color=colour,
            edgecolor=colour,
            zorder=2,
            gid=gid,
        )
    for lane, (gid, rows) in enumerate((("only_a", matching.unmatched_a), ("only_b", matching.unmatched_b))):
        start, end = spans[lane][rows].T
        ax.barh(
            np.full(len(rows), lane),
            end - start,
            left=start,
            height=LANE_HEIGHT,
            color="none",
            edgecolor=UNMATCHED_COLOURS[lane],
            linewidth=2,
            linestyle=SIDE_LINESTYLES[lane],
            zorder=2,
            gid=gid,
        )
    centre_a, centre_b = spans[0][matching.index_a].mean(axis=1), spans[1][matching.index_b].mean(axis=1)
    links = np.stack(
        [
            np.c_[centre_a, np.full(len(centre_a), LANE_HEIGHT / 2)],
            np.c_[centre_b, np.full(len(centre_b), 1 - LANE_HEIGHT / 2)],
        ],
        axis=1,
    )
    # One (2, 2) segment per pair: LineCollection takes a sequence of them (and reads each row of an array alike).
    ax.add_collection(LineCollection(list(links), colors=pair_colours, linewidths=1.5, zorder=1))
    ax.set_yticks([0, 1], labels)
    ax.set_ylim(1.5, -0.5)
    ax.set_xlabel("time")
    ax.autoscale_view()


def _matching_legend(ax: Axes, labels: tuple[str, str], below: float) -> None:
    from matplotlib.lines import Line2D

    handles = [
        Line2D([], [], color="0.4", linestyle=SIDE_LINESTYLES[0], label=labels[0]),
        Line2D([], [], color="0.4", linestyle=SIDE_LINESTYLES[1], label=labels[1]),
        Line2D(
            [], [], color=UNMATCHED_COLOURS[0], linestyle=SIDE_LINESTYLES[0], linewidth=2, label=f"only in {labels[0]}"
        ),
        Line2D(
            [], [], color=UNMATCHED_COLOURS[1], linestyle=SIDE_LINESTYLES[1], linewidth=2, label=f"only in {labels[1]}"
        ),
    ]
    # Below the Axes (`below` clears the tick labels and any axis label): the regions fill the Axes.
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(0.0, -below), ncol=2, fontsize="small", frameon=False)


def _matching_title(matching: Matching, sizes: tuple[int, int], labels: tuple[str, str]) -> str:
    total = sizes[0] + sizes[1]
    f1 = f"{2 * len(matching) / total:.3f}" if total else "n/a"
    mean = f" (mean IoU {matching.iou.mean():.3f})" if len(matching) else ""
    return (
        f"F1 {f1}: {len(matching)} matched{mean}\n{len(matching.unmatched_a)} only in {labels[0]}, "
        f"{len(matching.unmatched_b)} only in {labels[1]}"
    )
