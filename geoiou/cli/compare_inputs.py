"""What ``geoiou compare`` reads: one annotation source of any kind, as a table of regions.

Each side of a comparison is read on its own (the two may be of different formats), with the
reader of its kind (found by `geoiou.cli.eval_inputs.detect_source`):

============  ======================================================  ===========================
kind          source                                                  images
============  ======================================================  ===========================
coco          COCO instances JSON (boxes, polygons, masks)            the file's images
coco-results  COCO results JSON (a list of scored objects)            those with an object
dota          folder of DOTA label files                              one per file
dota-task1    folder of DOTA Task1 files ``Task1_<class>.txt``        those named in the lines
yolo          folder of YOLO / YOLO-OBB label files                   one per file
activitynet   ActivityNet JSON (``database`` or ``results``)          its videos
geojson       GeoJSON FeatureCollection                               one: ``"layer"``
============  ======================================================  ===========================
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

import numpy as np

from geoiou.errors import FormatError
from geoiou.io.report import ReadReport

if TYPE_CHECKING:
    from geoiou.io.coco import Geometry, ResultGeometry

__all__ = ["GEOJSON_IMAGE", "Source", "read_source"]

#: The image of every feature of a GeoJSON layer (a layer is one scene, compared as one image).
GEOJSON_IMAGE = "layer"
#: The category of GeoJSON features when no property names it.
GEOJSON_CATEGORY = "feature"


@dataclass
class Source:
    """One side of a comparison, read.

    Attributes
    ----------
    kind : str
        One of ``eval_inputs.SOURCE_KINDS``.
    table : Annotations or TemporalSegments
        One row per region.
    report : ReadReport
        The records read and skipped.
    images : list
        Every image (or video) the source lists, also those without regions.
    names : dict
        Category id -> display name, where the file names them (COCO).
    row_ids : ndarray, optional
        Each row's own id in the file (COCO annotation ids, GeoJSON feature ids), for the pairs table.
    """

    kind: str
    table: Any
    report: ReadReport
    images: list[Hashable] = field(default_factory=list)
    names: dict[Hashable, str] = field(default_factory=dict)
    row_ids: np.ndarray | None = None

    def describe(self) -> str:
        """One line: the kind, the region kinds and the counts."""
        kinds = getattr(self.table, "kinds", ("Interval",))
        return f"{self.kind} ({', '.join(kinds) or 'no regions'}), {len(self.table)} regions"


class _Reader(Protocol):
    """The reader of one kind of source: every option of `read_source`, each taking those it needs."""

    def __call__(
        self,
        path: str,
        *,
        geometry: str,
        image_size: tuple[int, int] | None,
        subset: str | None,
        category_property: str | None,
        skip_invalid: bool,
    ) -> Source: ...


def read_source(
    path: str,
    kind: str,
    *,
    geometry: str = "auto",
    image_size: tuple[int, int] | None = None,
    subset: str | None = None,
    category_property: str | None = None,
    skip_invalid: bool = False,
) -> Source:
    """Read `path`, a source of `kind`, into a `Source`.

    `geometry` is ``"auto"``, ``"bbox"`` or ``"segmentation"`` for COCO (``"auto"``: the
    segmentations of instances, and whatever a results file holds); `image_size` scales YOLO's
    normalised coordinates to pixels; `subset` keeps one subset of an ActivityNet ground truth
    (results have none); `category_property`
    names the GeoJSON property that holds each feature's category.

    Examples
    --------
    >>> from importlib.resources import files
    >>> source = read_source(str(files("geoiou") / "data" / "dota"), "dota")
    >>> source.describe(), source.images[:2]
    ('dota (Polygon), 984 regions', ['P0706', 'P0770'])
    """
    readers: dict[str, _Reader] = {
        "coco": _coco,
        "coco-results": _coco_results,
        "dota": _dota,
        "dota-task1": _dota_task1,
        "yolo": _yolo,
        "activitynet": _activitynet,
        "geojson": _geojson,
    }
    if kind not in readers:  # frame-wise labels (MS-TCN) hold no regions to match
        raise FormatError(
            path,
            "",
            f"a {kind} source cannot be compared (compare takes {', '.join(readers)}); geoiou eval evaluates it",
        )
    return readers[kind](
        path,
        geometry=geometry,
        image_size=image_size,
        subset=subset,
        category_property=category_property,
        skip_invalid=skip_invalid,
    )


def _coco(path: str, *, geometry: str, skip_invalid: bool, **_: Any) -> Source:
    from geoiou.io.coco import read_coco

    # read_coco checks `geometry` itself (compare_command passes "auto", "bbox" or "segmentation").
    coco_geometry = cast("Geometry", "segmentation" if geometry == "auto" else geometry)
    read = read_coco(path, geometry=coco_geometry, skip_invalid=skip_invalid)
    # A copy keyed by Hashable (dict(read.categories) would be a dict[int, str], and dict keys are invariant).
    names: dict[Hashable, str] = {category: name for category, name in read.categories.items()}
    return Source("coco", read.annotations, read.report, list(read.images), names, read.annotation_ids)


def _coco_results(path: str, *, geometry: str, skip_invalid: bool, **_: Any) -> Source:
    from geoiou.io.coco import read_coco_results

    # read_coco_results checks `geometry` itself (compare_command passes "auto", "bbox" or "segmentation").
    read = read_coco_results(path, geometry=cast("ResultGeometry", geometry), skip_invalid=skip_invalid)
    return Source("coco-results", read.annotations, read.report)


def _dota(path: str, *, skip_invalid: bool, **_: Any) -> Source:
    from geoiou.io.dota import read_dota_folder

    read = read_dota_folder(path, skip_invalid=skip_invalid)
    return Source("dota", read.annotations, read.report, list(read.images))


def _dota_task1(path: str, *, skip_invalid: bool, **_: Any) -> Source:
    from geoiou.io.dota import read_dota_task1

    read = read_dota_task1(path, skip_invalid=skip_invalid)
    return Source("dota-task1", read.annotations, read.report, list(read.images))


def _yolo(path: str, *, image_size: tuple[int, int] | None, skip_invalid: bool, **_: Any) -> Source:
    from geoiou.io.yolo import read_yolo_folder

    read = read_yolo_folder(path, image_sizes=image_size, skip_invalid=skip_invalid)
    return Source("yolo", read.annotations, read.report, list(read.images))


def _activitynet(path: str, *, subset: str | None, skip_invalid: bool, **_: Any) -> Source:
    from geoiou.cli.eval_inputs import file_head
    from geoiou.io.activitynet import read_activitynet

    # Only a ground truth ("database") has subsets; a results file is read whole.
    read = read_activitynet(path, subset=subset if '"database"' in file_head(path) else None, skip_invalid=skip_invalid)
    return Source("activitynet", read.segments, read.report, list(read.segments.videos))


def _geojson(path: str, *, category_property: str | None, skip_invalid: bool, **_: Any) -> Source:
    from geoiou.evaluation import Annotations
    from geoiou.io.geo import read_geojson

    read = read_geojson(path, skip_invalid=skip_invalid)
    categories: Any = GEOJSON_CATEGORY
    if category_property is not None:
        missing = [k for k, properties in enumerate(read.properties) if category_property not in properties]
        if missing:
            raise FormatError(
                path,
                f"feature {read.ids[missing[0]]!r}",
                f"'properties' must hold {category_property!r} (given as --category-property)",
            )
        categories = np.array([properties[category_property] for properties in read.properties])
    table = Annotations(image_id=GEOJSON_IMAGE, category_id=categories, region=read.regions)
    return Source(
        "geojson", table, read.report, [GEOJSON_IMAGE] if len(table) else [], row_ids=np.array(read.ids, dtype=object)
    )


def default_label(path: str) -> str:
    """A short name for a source in tables and pictures: its file or folder name.

    Examples
    --------
    >>> default_label("/data/annotator-2/labelTxt/")
    'labelTxt'
    """
    return Path(path).name or str(path)
