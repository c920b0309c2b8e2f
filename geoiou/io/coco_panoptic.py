"""COCO panoptic files: the JSON of ``segments_info`` per image and the folder of PNG maps beside it.

COCO's panoptic format (also Cityscapes' and Mapillary's panoptic exports) stores one PNG per
image whose colours are segment ids (``R + 256 G + 256² B``, 0 void) and a JSON whose
``annotations`` list, per image, its ``file_name`` and ``segments_info`` (``id``, ``category_id``,
``iscrowd``, ``area``, ``bbox``). The reader reads the JSON into columns (the segments of all
images at once, through the interpreter's own loops over the parsed records) and hands a loader
that decodes an image's PNG when the evaluation asks for it: the maps are never all in memory.

The folder defaults to panopticapi's choice: the JSON's path without ``.json``.
"""

from __future__ import annotations

import itertools
import os
from operator import itemgetter, methodcaller
from typing import Any

import numpy as np

from geoiou.errors import FormatError
from geoiou.io.json_documents import load_json_document
from geoiou.tables.panoptic import PanopticMaps

__all__ = ["read_coco_panoptic", "read_panoptic_png"]

#: pillow's modes of 8-bit colours, whose conversion to RGB keeps every colour (and so every id).
COLOUR_MODES = ("RGB", "RGBA", "P", "PA", "L", "LA", "1")


def read_coco_panoptic(
    source: str | os.PathLike[str] | dict[str, Any], folder: str | os.PathLike[str] | None = None
) -> PanopticMaps:
    """Read a COCO panoptic JSON (ground truth or predictions) and the folder of its PNG maps.

    Parameters
    ----------
    source : path or dict
        The JSON file, or its parsed document.
    folder : path, optional
        The PNG folder; by default the JSON's path without its ``.json`` suffix (panopticapi's
        default). Needed when `source` is a dict.

    Returns
    -------
    PanopticMaps
        One image per entry of ``annotations`` (in file order), its segments in ``segments_info``
        order, the file's ``categories`` when it has them; each map is decoded when read.

    Raises
    ------
    FormatError
        If the document is not COCO panoptic (no ``annotations`` list, a record without
        ``image_id``, ``file_name`` or ``segments_info``, a segment without ``id`` or
        ``category_id``), naming the record.

    Examples
    --------
    >>> document = {"annotations": [{"image_id": 1, "file_name": "1.png",
    ...             "segments_info": [{"id": 5, "category_id": 2, "iscrowd": 0, "area": 12}]}],
    ...             "categories": [{"id": 2, "name": "road", "isthing": 0}]}
    >>> maps = read_coco_panoptic(document, folder="pngs")
    >>> maps.image_id.tolist(), maps.segment_id.tolist(), maps.area.tolist(), maps.is_thing
    ([1], [5], [12.0], {2: False})
    """
    document, reader = load_json_document(source, skip_invalid=False)
    name = reader.source
    if folder is None:
        if isinstance(source, dict):
            raise FormatError(name, "", "'folder' must be given with a parsed document (no file name to derive it)")
        folder = str(source)[: -len(".json")] if str(source).endswith(".json") else str(source)
    records = document.get("annotations") if isinstance(document, dict) else None
    if not isinstance(records, list):
        raise FormatError(name, "", "'annotations' must be a list of per-image records (COCO panoptic)")
    columns = _columns(records, name)
    paths = [os.path.join(folder, file) for file in columns["file_name"]]
    categories = document.get("categories")
    return PanopticMaps(
        columns["image_id"],
        lambda k: read_panoptic_png(paths[k]),
        segment_image=np.repeat(columns["image_id"], columns["count"]),
        segment_id=columns["id"],
        category_id=columns["category_id"],
        iscrowd=columns["iscrowd"],
        area=columns["area"],
        categories=categories if isinstance(categories, list) else None,
        sources=paths,
    )


def _columns(records: list[Any], name: str) -> dict[str, Any]:
    """The per-image and per-segment columns, by the interpreter's loops; on a fault, the record is found and named."""
    try:
        infos = list(map(itemgetter("segments_info"), records))
        segments = list(itertools.chain.from_iterable(infos))
        area = np.fromiter(map(methodcaller("get", "area", np.nan), segments), np.float64, len(segments))
        columns: dict[str, Any] = {
            "image_id": np.array(list(map(itemgetter("image_id"), records))),
            "file_name": [str(f) for f in map(itemgetter("file_name"), records)],
            "count": np.fromiter(map(len, infos), np.int64, len(infos)),
            "id": np.fromiter(map(itemgetter("id"), segments), np.int64, len(segments)),
            "category_id": np.array(list(map(itemgetter("category_id"), segments))),
            "iscrowd": np.fromiter(map(methodcaller("get", "iscrowd", 0), segments), np.int64, len(segments)),
            "area": None if np.isnan(area).any() else area,
        }
    except (KeyError, TypeError, ValueError, AttributeError):
        raise _faulty_record(records, name) from None
    if columns["image_id"].dtype.kind not in "iuU" or columns["category_id"].dtype.kind not in "iuU":
        raise FormatError(name, "annotations", "'image_id' and 'category_id' must be integer or string ids")
    return columns


def _faulty_record(records: list[Any], name: str) -> FormatError:
    """The first record (or segment) the columns could not read, named (only after they failed)."""
    for i, record in enumerate(records):
        if not isinstance(record, dict) or not {"image_id", "file_name", "segments_info"} <= record.keys():
            return FormatError(name, f"annotations[{i}]", "a record needs 'image_id', 'file_name' and 'segments_info'")
        if not isinstance(record["segments_info"], list):
            return FormatError(name, f"annotations[{i}].segments_info", "'segments_info' must be a list")
        for j, segment in enumerate(record["segments_info"]):
            where = f"annotations[{i}].segments_info[{j}]"
            if not isinstance(segment, dict) or not {"id", "category_id"} <= segment.keys():
                return FormatError(name, where, "a segment needs 'id' and 'category_id'")
            if not all(isinstance(segment.get(k, 0), (int, float)) for k in ("id", "iscrowd", "area")):
                return FormatError(name, where, "'id', 'iscrowd' and 'area' must be numbers")
    return FormatError(name, "annotations", "'id', 'iscrowd' and 'area' must be numbers")  # pragma: no cover


def read_panoptic_png(path: str | os.PathLike[str]) -> np.ndarray:
    """Decode a panoptic PNG into ``(H, W, 3)`` uint8 RGB (palette and grey images converted, alpha dropped).

    The segment ids are the colours, ``R + 256 G + 256² B``. Images of 8-bit colours are taken
    (RGB, RGBA as panopticapi takes it, palette and grey as the colours they show); other kinds
    (16-bit, 32-bit integer or float pixels) are refused, since no colour conversion keeps their ids.

    Raises
    ------
    FormatError
        If the file is missing, is not an image pillow can decode (damaged or truncated), or its
        pixels are not 8-bit colours; the message names the file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from PIL import Image
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "map.png"
    >>> Image.fromarray(np.array([[[5, 1, 0]]], dtype=np.uint8)).save(path)
    >>> read_panoptic_png(path).tolist()  # id 5 + 256 · 1 = 261
    [[[5, 1, 0]]]
    """
    from PIL import Image  # pillow comes with scikit-image; loaded when a map is first read

    try:
        with Image.open(path) as image:
            if image.mode not in COLOUR_MODES:
                raise FormatError(
                    str(path),
                    "",
                    f"a panoptic map must have 8-bit colours (RGB, RGBA, palette or grey), not {image.mode!r}",
                )
            return np.asarray(image if image.mode == "RGB" else image.convert("RGB"))
    except OSError as error:
        raise FormatError(str(path), "", f"not a readable PNG map ({error})") from None
