"""What ``geoiou eval`` reads: the format of two annotation sources, and the evaluation's inputs from them.

Formats and what each source is:

===========  ===============================================  ==============================================
format       ground truth                                     predictions
===========  ===============================================  ==============================================
coco         instances JSON (``images``, ``annotations``)     results JSON (a list of scored objects)
dota         folder of DOTA label files (one per image)       folder of DOTA Task1 files ``Task1_<class>.txt``
yolo         folder of YOLO / YOLO-OBB label files            folder of label files with a confidence column
kitti        folder of KITTI label_2 files                    folder of KITTI result files (a score last)
activitynet  ActivityNet JSON with ``database``               ActivityNet JSON with ``results``
===========  ===============================================  ==============================================
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

import numpy as np

from geoiou.errors import FormatError, InvalidArgumentError
from geoiou.io.report import ReadReport

__all__ = [
    "FORMATS",
    "SOURCE_KINDS",
    "EvaluationInputs",
    "detect_format",
    "detect_source",
    "is_panoptic",
    "load_inputs",
]

FORMATS = ("coco", "dota", "yolo", "kitti", "activitynet", "mstcn", "thumos14", "coco-panoptic")
FORMAT_NAMES = {
    "coco": "COCO",
    "coco-panoptic": "COCO panoptic",
    "dota": "DOTA",
    "yolo": "YOLO",
    "kitti": "KITTI",
    "activitynet": "ActivityNet",
    "mstcn": "MS-TCN",
    "thumos14": "THUMOS14",
}
#: Sources that hold predictions, with how to name them when one is given as the ground truth.
PREDICTION_KINDS = {
    "coco-results": "COCO results (a list of scored objects)",
    "dota-task1": "DOTA Task1 predictions (Task1_<class>.txt files)",
}
#: What `detect_source` tells apart, each read by its reader in geoiou.io.
SOURCE_KINDS = (
    "coco",
    "coco-panoptic",
    "coco-results",
    "dota",
    "dota-task1",
    "yolo",
    "kitti",
    "activitynet",
    "geojson",
)
#: A GeoJSON document names its type near its start: a collection, a feature or a bare geometry.
GEOJSON_TYPE = re.compile(r'"type"\s*:\s*"(FeatureCollection|Feature|Polygon|MultiPolygon|GeometryCollection)"')
#: Bytes read from the start of a JSON file to tell COCO from ActivityNet without parsing it all.
SNIFF_BYTES = 1 << 20


@dataclass
class EvaluationInputs:
    """Both sides of an evaluation, read, with what the evaluation needs to know about them."""

    format: str
    ground_truth: Any
    predictions: Any
    reports: list[ReadReport]
    #: Keyword arguments for the evaluation function (images, categories, area ranges...).
    options: dict[str, Any] = field(default_factory=dict)
    #: Category id -> display name, where the files name them.
    names: dict[Any, str] = field(default_factory=dict)
    #: "bbox", "segmentation", "rotated", "obb" or "interval": what was compared.
    geometry: str = ""
    #: What the reading chose that the user did not ask for (printed on stderr), e.g. ActivityNet's subset.
    notes: list[str] = field(default_factory=list)


def detect_format(ground_truth: str) -> str:
    """The format of a ground-truth source (one of `FORMATS`), from its type and first bytes.

    A source that holds predictions (a COCO results list, ActivityNet results, DOTA Task1 files)
    is refused with a question: were the two sources given the wrong way round?

    Examples
    --------
    >>> from importlib.resources import files
    >>> detect_format(str(files("geoiou") / "data" / "dota"))
    'dota'
    """
    kind = detect_source(ground_truth, role="GT")
    if kind in PREDICTION_KINDS:
        raise _swapped(ground_truth, f"{PREDICTION_KINDS[kind]}, given as the ground truth")
    if kind == "activitynet" and not _is_activitynet_database(ground_truth):
        raise _swapped(ground_truth, "ActivityNet results, given as the ground truth")
    if kind not in FORMATS:
        raise FormatError(
            ground_truth,
            "",
            f"a {kind} source cannot be the ground truth (expected COCO instances, "
            "ActivityNet JSON, or a folder of DOTA or YOLO label files); pass --format",
        )
    return kind


def is_panoptic(path: str, head: str) -> bool:
    """Whether a COCO JSON file (its first bytes `head`) is panoptic: ``segments_info``, or a PNG folder beside it.

    Examples
    --------
    >>> is_panoptic("val.json", '{"annotations": [{"image_id": 1, "segments_info": []}]}')
    True
    >>> is_panoptic("instances.json", '{"images": [], "annotations": [{"bbox": [0, 0, 1, 1]}]}')
    False
    """
    if '"segments_info"' in head:
        return True
    folder = path[: -len(".json")] if path.lower().endswith(".json") else ""
    return bool(folder) and os.path.isdir(folder) and any(name.lower().endswith(".png") for name in os.listdir(folder))


def detect_source(path: str, *, role: str = "input") -> str:
    """What an annotation source holds (one of `SOURCE_KINDS`), from its type and first bytes.

    A folder holds DOTA label files, DOTA Task1 files (``Task1_<class>.txt``) or YOLO label
    files; a JSON file is COCO instances (``images``, ``annotations``), COCO results (a list),
    ActivityNet (``database`` or ``results``) or GeoJSON. `role` names the source in messages.

    Examples
    --------
    >>> from importlib.resources import files
    >>> detect_source(str(files("geoiou") / "data" / "tour" / "dota-task1"))
    'dota-task1'
    >>> detect_source(str(files("geoiou") / "data" / "tour" / "coco" / "results-bbox.json"))
    'coco-results'
    """
    if os.path.isdir(path):
        return _detect_label_files(path, sorted(os.listdir(path)))
    if not os.path.isfile(path):
        raise FormatError(path, "", f"no such file or folder (given as {role})")
    if path.lower().endswith(".txt"):  # one label file, read as a folder of one image
        return _detect_label_files(os.path.dirname(path), [os.path.basename(path)])
    head = file_head(path)
    if path.lower().endswith((".json", ".geojson")) or head.lstrip().startswith(("{", "[")):
        if '"database"' in head:
            return "activitynet"
        if '"images"' in head or '"annotations"' in head:
            return "coco-panoptic" if is_panoptic(path, head) else "coco"
        if head.lstrip().startswith("["):
            return "coco-results"
        if '"results"' in head:
            return "activitynet"
        if GEOJSON_TYPE.search(head):
            return "geojson"
        raise FormatError(
            path,
            "",
            "a JSON file that is neither COCO instances ('images', 'annotations') nor "
            "ActivityNet ('database', 'results') nor GeoJSON; pass --format",
        )
    raise FormatError(
        path,
        "",
        "cannot tell the format: expected a COCO, ActivityNet or GeoJSON file, or a folder "
        "of DOTA or YOLO label files; pass --format",
    )


def _swapped(source: str, what: str) -> FormatError:
    return FormatError(
        source,
        "",
        f"this looks like {what}: did you swap them? The ground truth comes first: "
        "geoiou eval GROUND_TRUTH PREDICTIONS",
    )


def _is_activitynet_database(path: str) -> bool:
    return '"database"' in file_head(path)


def _refuse_swapped(format: str, ground_truth: str, predictions: str) -> None:
    """Refuse predictions that read as a ground truth of `format` (and, for YOLO, scores on the wrong side)."""
    if format in ("mstcn", "thumos14"):
        return  # MS-TCN predictions may be written as the ground truth is; THUMOS14's are ActivityNet JSON
    if format == "kitti":
        if _object_fields(ground_truth) == 16 and _object_fields(predictions) == 15:
            raise _swapped(ground_truth, "KITTI results (a score on each line), given as the ground truth")
        return
    if format == "yolo":
        truth_fields, predicted_fields = _object_fields(ground_truth), _object_fields(predictions)
        if truth_fields in (6, 10) and predicted_fields in (5, 9):  # a confidence column only on the truth's side
            raise _swapped(
                ground_truth,
                "YOLO predictions (labels with a confidence column), given as the ground "
                "truth, while the predictions have none",
            )
        return
    try:
        kind = detect_source(predictions, role="PRED")
    except FormatError:
        return  # the reader says what is wrong with it
    if kind == format and (format != "activitynet" or _is_activitynet_database(predictions)):
        raise _swapped(predictions, f"a {FORMAT_NAMES[format]} ground truth, given as the predictions")


def _object_fields(folder: str) -> int | None:
    """Fields on the first object line of a folder's label files, or None."""
    if not os.path.isdir(folder):
        return None
    for name in sorted(os.listdir(folder)):
        if name.endswith(".txt"):
            with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as handle:
                for line in handle:
                    if line.split():
                        return len(line.split())
    return None


def file_head(path: str) -> str:
    """The first `SNIFF_BYTES` of a file as text: enough to tell formats apart without parsing it all."""
    with open(path, "rb") as handle:
        return handle.read(SNIFF_BYTES).decode("utf-8", errors="replace")


def _detect_label_files(folder: str, names: list[str]) -> str:
    """DOTA labels, DOTA Task1 or YOLO labels, from the names and the first object line of the files `names`."""
    if any(name.startswith("Task1_") and name.lower().endswith(".txt") for name in names):
        return "dota-task1"
    for name in names:
        if not name.lower().endswith(".txt"):  # P0002.TXT is a label file too, as the readers take it
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as handle:
            for line in handle:
                fields = line.split()
                if not fields or fields[0].startswith(("imagesource:", "gsd:")):
                    continue
                if len(fields) in (9, 10) and not _is_number(fields[8]):
                    return "dota"
                if len(fields) in (15, 16) and not _is_number(fields[0]) and all(map(_is_number, fields[1:])):
                    return "kitti"  # type truncated occluded alpha bbox(4) dimensions(3) location(3) ry [score]
                if all(_is_number(f) for f in fields) and len(fields) in (5, 6, 9, 10):
                    return "yolo"
                if len(fields) == 1 and not _is_number(fields[0]):  # one frame label per line: MS-TCN's groundTruth
                    return "mstcn"
                if len(fields) == 3 and not _is_number(fields[0]) and all(map(_is_number, fields[1:])):
                    return "thumos14"  # video start end: THUMOS14's <Class>_val.txt
                raise FormatError(
                    os.path.join(folder, name),
                    "",
                    f"a line that is neither DOTA nor YOLO: {line.strip()!r}; pass --format",
                )
    where = os.path.join(folder, names[0]) if len(names) == 1 else folder
    raise FormatError(where, "", "no label file with an object here (expected DOTA or YOLO *.txt files)")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def load_inputs(
    format: str,
    ground_truth: str,
    predictions: str,
    *,
    geometry: str,
    image_size: tuple[int, int] | None,
    subset: str | None,
    skip_invalid: bool,
    polygons: str = "exact",
    proposals: bool = False,
) -> EvaluationInputs:
    """Read both sides in `format` (one of `FORMATS`); `polygons` as in `geoiou.io.read_coco`; `proposals`:
    ActivityNet predictions without labels (the proposal task)."""
    loaders: dict[str, Callable[..., EvaluationInputs]] = {
        "coco": _coco,
        "dota": _dota,
        "yolo": _yolo,
        "kitti": _kitti,
        "activitynet": _activitynet,
        "mstcn": _mstcn,
        "thumos14": _thumos14,
    }
    if format == "coco-panoptic":
        raise InvalidArgumentError(
            "COCO panoptic files are evaluated by 'geoiou eval' (PQ); this command takes detection files"
        )
    _refuse_swapped(format, ground_truth, predictions)
    if proposals and format != "activitynet":
        raise InvalidArgumentError(f"'--proposals' must be used with ActivityNet files (got {format} files)")
    return loaders[format](
        ground_truth,
        predictions,
        geometry=geometry,
        image_size=image_size,
        subset=subset,
        skip_invalid=skip_invalid,
        polygons=polygons,
        proposals=proposals,
    )


def _coco(
    ground_truth: str,
    predictions: str,
    *,
    geometry: Literal["auto", "bbox", "segmentation"],
    skip_invalid: bool,
    polygons: Literal["exact", "pycocotools"],
    **_: Any,
) -> EvaluationInputs:
    from geoiou.io.coco import read_coco, read_coco_results

    predicted = read_coco_results(predictions, geometry=geometry, skip_invalid=skip_invalid)
    # Official segm numbers rasterize each annotation from its parts as written (pycocotools' annToRLE).
    compared: Literal["bbox", "segmentation"] = "segmentation" if predicted.geometry == "segmentation" else "bbox"
    truth = read_coco(ground_truth, geometry=compared, polygons=polygons, skip_invalid=skip_invalid)
    return EvaluationInputs(
        "coco",
        truth.annotations,
        predicted.annotations,
        [truth.report, predicted.report],
        options={"images": truth.images, "categories": list(truth.categories)},
        names=dict(truth.categories),
        geometry=predicted.geometry,
    )


def _dota(ground_truth: str, predictions: str, *, skip_invalid: bool, **_: Any) -> EvaluationInputs:
    from geoiou.io.dota import read_dota_folder, read_dota_task1

    truth = read_dota_folder(ground_truth, skip_invalid=skip_invalid)
    predicted = read_dota_task1(predictions, skip_invalid=skip_invalid)
    rows, notes = _task1_rows_of(truth.images, predicted.annotations.image_id, ground_truth, predictions)
    notes += _files_not_read(ground_truth, "*.txt") + _files_not_read(predictions, "Task1_*.txt")
    kept = predicted.annotations if rows is None else predicted.annotations.take(rows)
    categories = sorted(set(truth.annotations.category_id.tolist()) | set(kept.category_id.tolist()))
    return EvaluationInputs(
        "dota",
        truth.annotations,
        kept,
        [truth.report, predicted.report],
        options={"images": list(truth.images), "categories": categories},
        geometry="polygon",
        notes=notes,
    )


def _task1_rows_of(
    images: tuple[str, ...], image_ids: np.ndarray, ground_truth: str, predictions: str
) -> tuple[np.ndarray | None, list[str]]:
    """The Task1 predictions on the ground truth's images: all (None), or, for one label file given as the
    ground truth, the rows of its image, with a note of what is left out (docs/howto/dota.md).

    An image name of the predictions that is not a ground-truth image is refused naming its file and
    line, with the stem when the name only adds an extension (``P1088.png``).
    """
    inside = np.isin(image_ids, np.array(images, dtype=str))
    if inside.all():
        return None, []
    unknown = [name for name in dict.fromkeys(image_ids[~inside].tolist())]
    with_suffix = [name for name in unknown if os.path.splitext(name)[0] in images and os.path.splitext(name)[1]]
    if with_suffix or not os.path.isfile(ground_truth):
        name = with_suffix[0] if with_suffix else unknown[0]
        path, line = _task1_line_of(predictions, name)
        hint = (
            f"; did you mean {os.path.splitext(name)[0]!r}? Task1 names images by their stem, without the extension"
            if with_suffix
            else f"; the ground truth has {len(images)} images, such as {images[0]!r}"
        )
        raise FormatError(path, line, f"'image_name' must be an image of the ground truth (got {name!r}{hint})")
    others = len(unknown)
    note = (
        f"DOTA: evaluating the image {images[0]!r} alone (the ground truth is one label file); "
        f"{int((~inside).sum())} predictions on {others} other image{'s' if others > 1 else ''} left out"
    )
    return np.flatnonzero(inside), [note]


def _files_not_read(folder: str, pattern: str) -> list[str]:
    """A note naming the files of a label folder that its reader passes over (no file is dropped unsaid)."""
    if not os.path.isdir(folder):
        return []
    skipped = sorted(
        name
        for name in os.listdir(folder)
        if os.path.isfile(os.path.join(folder, name))
        and not name.startswith(".")
        and not fnmatch.fnmatchcase(name.lower(), pattern.lower())
    )
    if not skipped:
        return []
    shown = ", ".join(skipped[:5]) + (f" and {len(skipped) - 5} more" if len(skipped) > 5 else "")
    return [
        f"{folder}: {len(skipped)} file{'s' if len(skipped) > 1 else ''} not read as labels ({pattern} only): {shown}"
    ]


def _task1_line_of(predictions: str, name: str) -> tuple[str, str]:
    """The Task1 file and line where the image `name` first occurs (for an error message)."""
    from geoiou.io.folders import label_files

    for path in label_files(predictions, "Task1_*.txt"):
        with open(path, encoding="utf-8-sig") as handle:
            for number, text in enumerate(handle, start=1):
                if text.split()[:1] == [name]:
                    return str(path), f"line {number}"
    return predictions, ""


def _yolo(
    ground_truth: str, predictions: str, *, image_size: tuple[int, int] | None, skip_invalid: bool, **_: Any
) -> EvaluationInputs:
    from geoiou.io.yolo import read_yolo_folder

    truth = read_yolo_folder(ground_truth, image_sizes=image_size, skip_invalid=skip_invalid)
    predicted = read_yolo_folder(predictions, image_sizes=image_size, skip_invalid=skip_invalid)
    options: dict[str, Any] = {"images": list(truth.images)}
    notes = _files_not_read(ground_truth, "*.txt") + _files_not_read(predictions, "*.txt")
    if image_size is None:
        # Normalised coordinates: IoU is unchanged (it is invariant under scaling x and y), but
        # COCO's small/medium/large ranges are in pixels, so only "all" is meaningful.
        options["area_ranges"] = {"all": (0.0, 1e10)}
    return EvaluationInputs(
        "yolo",
        truth.annotations,
        predicted.annotations,
        [truth.report, predicted.report],
        notes=notes,
        names=truth.class_names or predicted.class_names,
        options=options,
        geometry="obb" if "Polygon" in truth.annotations.kinds else "bbox",
    )


def _kitti(ground_truth: str, predictions: str, **_: Any) -> EvaluationInputs:
    from geoiou.io.kitti import read_kitti_labels

    truth, predicted = read_kitti_labels(ground_truth), read_kitti_labels(predictions)
    if predicted.score is None:
        raise FormatError(predictions, "", "KITTI results must have 16 fields a line (a score last); these have 15")
    return EvaluationInputs(
        "kitti",
        truth,
        predicted,
        [ReadReport(ground_truth, len(truth)), ReadReport(predictions, len(predicted))],
        notes=_files_not_read(ground_truth, "*.txt") + _files_not_read(predictions, "*.txt"),
        geometry="3d",
    )


def _activitynet(
    ground_truth: str, predictions: str, *, subset: str | None, skip_invalid: bool, proposals: bool = False, **_: Any
) -> EvaluationInputs:
    from geoiou.io.activitynet import read_activitynet

    truth = read_activitynet(ground_truth, subset=subset, skip_invalid=skip_invalid)
    predicted = (
        _proposals(predictions, skip_invalid) if proposals else read_activitynet(predictions, skip_invalid=skip_invalid)
    )
    for source, read, expected in ((ground_truth, truth, "database"), (predictions, predicted, "results")):
        if read.kind != expected:
            raise FormatError(source, "", f"expected an ActivityNet {expected} file (got a {read.kind} file)")
    notes = _beyond_duration(predicted.segments, truth.durations)
    if subset is None and truth.subset is not None:
        notes.append(
            f"ActivityNet: evaluating the {truth.subset!r} subset of the ground truth "
            f"({len(truth.segments.videos)} "
            "videos), as ActivityNet's evaluation does; --subset all evaluates every video"
        )
    return EvaluationInputs(
        "activitynet",
        _with_videos_of(truth.segments, predicted.segments),
        predicted.segments,
        [truth.report, predicted.report],
        geometry="interval",
        notes=notes,
    )


def _proposals(path: str, skip_invalid: bool) -> Any:
    """An ActivityNet proposals file (``results`` of ``segment`` and ``score``, no ``label``), read as results."""
    import json

    from geoiou.io.activitynet import read_activitynet

    try:
        with open(path, encoding="utf-8-sig") as handle:
            document = json.load(handle)
    except json.JSONDecodeError as error:
        raise FormatError(path, f"line {error.lineno}", f"not JSON ({error.msg})") from None
    results = document.get("results") if isinstance(document, dict) else None
    if isinstance(results, dict):
        for records in results.values():
            for record in records if isinstance(records, list) else []:
                if isinstance(record, dict):
                    record.setdefault("label", "")  # the proposal task has no classes
    try:
        return read_activitynet(document, skip_invalid=skip_invalid)
    except FormatError as error:  # read from the parsed document: name the file, not "<dict>"
        raise FormatError(path, error.location, error.reason) from None


def _beyond_duration(predictions: Any, durations: dict[str, float]) -> list[str]:
    """A warning when most predictions end after their video's duration: times in frames against seconds?"""
    known = np.array([video in durations for video in predictions.video_id.tolist()], dtype=bool)
    if not known.any():
        return []
    duration = np.array([durations[video] for video in predictions.video_id[known].tolist()], dtype=np.float64)
    beyond = predictions.end[known] > duration * 1.01 + 1e-9  # a little past the end is rounding, not units
    if beyond.sum() * 2 <= known.sum():
        return []
    return [
        f"warning: {int(beyond.sum())} of {int(known.sum())} predictions end after their video's duration "
        "(the ground truth's 'duration', in seconds): are the predictions in frames? Every such prediction "
        "is compared as it is"
    ]


def _thumos14(ground_truth: str, predictions: str, *, skip_invalid: bool, **_: Any) -> EvaluationInputs:
    """THUMOS14's per-class annotation files against ActivityNet results JSON (class names as labels)."""
    from geoiou.io.activitynet import read_activitynet
    from geoiou.io.thumos import read_thumos14

    truth = read_thumos14(ground_truth, skip_invalid=skip_invalid)
    predicted = read_activitynet(predictions, skip_invalid=skip_invalid)
    if predicted.kind != "results":
        raise FormatError(
            predictions,
            "",
            "expected ActivityNet results JSON ({'results': {video: [{'segment', "
            "'label', 'score'}]}}) as THUMOS14 predictions "
            f"(got a {predicted.kind} file)",
        )
    notes = []
    if len(truth.ambiguous):
        notes.append(
            f"THUMOS14: {len(truth.ambiguous)} Ambiguous segments are read apart and not used: a "
            "prediction on them counts as any other (THUMOS14's own evaluation ignores such predictions)"
        )
    return EvaluationInputs(
        "thumos14",
        _with_videos_of(truth.segments, predicted.segments),
        predicted.segments,
        [truth.report, predicted.report],
        geometry="interval",
        notes=notes,
    )


def _mstcn(ground_truth: str, predictions: str, **_: Any) -> EvaluationInputs:
    """MS-TCN's frame labels: the videos of the predictions, each against its ``groundTruth/`` file.

    ``mapping.txt`` (in the ground-truth folder or beside it, as in MS-TCN's data layout) lists the
    classes: a label outside it is refused on either side.
    """
    from geoiou.io.mstcn import read_mstcn_labels, read_mstcn_mapping

    folder = ground_truth if os.path.isdir(ground_truth) else os.path.dirname(ground_truth)
    candidates = [
        os.path.join(folder, "mapping.txt"),
        os.path.join(os.path.dirname(os.path.abspath(folder)), "mapping.txt"),
    ]
    mapping_path = next((path for path in candidates if os.path.isfile(path)), None)
    mapping = read_mstcn_mapping(mapping_path) if mapping_path else None
    truth = read_mstcn_labels(ground_truth, mapping=mapping)
    predicted = read_mstcn_labels(predictions, mapping=mapping)
    missing = [video for video in predicted.labels if video not in truth.labels]
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        raise FormatError(
            predictions, "", f"'video' must have a ground-truth file in {ground_truth} (got {missing[0]!r}{more})"
        )
    videos = list(predicted.labels)
    notes = (
        []
        if mapping_path
        else ["MS-TCN: no mapping.txt beside the ground truth; labels are not checked against a class list"]
    )
    left_out = len(truth.labels) - len(videos)
    if left_out:
        notes.append(
            f"MS-TCN: evaluating the {len(videos)} videos of the predictions; {left_out} ground-truth "
            "videos without predictions are left out (as MS-TCN evaluates one split's videos)"
        )
    return EvaluationInputs(
        "mstcn",
        {video: truth.labels[video] for video in videos},
        predicted.labels,
        [truth.report, predicted.report],
        geometry="frames",
        notes=notes,
    )


def _with_videos_of(truth: Any, predictions: Any) -> Any:
    """The ground truth, evaluated also on the videos that only the predictions name.

    ActivityNet's evaluation counts a prediction on a video outside the ground truth (another
    subset, a typo) as a false positive; adding those videos without segments does the same.
    """
    from geoiou.evaluation import TemporalSegments

    known = set(truth.videos)
    extra = [video for video in dict.fromkeys(predictions.video_id.tolist()) if video not in known]
    if not extra:
        return truth
    return TemporalSegments(
        video_id=truth.video_id, label=truth.label, start=truth.start, end=truth.end, videos=[*truth.videos, *extra]
    )
