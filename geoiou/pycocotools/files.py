"""A COCO dataset file as `COCO` holds it: the ids its records hold, its document parsed only when something reads it.

pycocotools parses the whole file into dicts at ``COCO(path)``. An evaluation needs only the ids
of the images and categories (``getImgIds``, ``getCatIds``, which ``COCOeval`` calls) and the
columns `read_coco` reads from the file's bytes; parsing 25 MB of annotations into dicts costs
more than the evaluation. `DatasetFile` takes the ids and image sizes from the file's tokens
(`geoiou.io.json_documents.open_json`) and keeps nothing else: the file is read again, and parsed,
when its dicts are first asked for (after which they are what `COCO` reads: a user may change
them), as `read_coco` reads it again for the evaluation.
"""

from __future__ import annotations

import os
from typing import Any

from geoiou.errors import InvalidTypeError
from geoiou.io.json_documents import load_json_document, open_json

__all__ = ["DatasetFile"]

Sizes = dict[Any, tuple[int, int]]


class DatasetFile:
    """A COCO JSON file (a dict of sections): the ids of its images and categories, its image sizes, its document.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "instances.json"
    >>> _ = path.write_text(json.dumps({"images": [{"id": 4, "height": 2, "width": 3}], "categories": [{"id": 1}],
    ...                                 "annotations": []}))
    >>> file = DatasetFile(path)
    >>> file.ids["images"], file.ids["categories"], file.image_sizes, file.document()["categories"]
    ([4], [1], {4: (2, 3)}, [{'id': 1}])
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = path
        self._document: dict[str, Any] | None = None
        source = open_json(path, skip_invalid=False)
        columns = source.columns
        #: The ``id`` of each record of a section (images, categories) in file order; None unless all are integers.
        self.ids: dict[str, list[Any] | None] = {"images": None, "categories": None}
        #: ``{image_id: (height, width)}`` of every image; None unless each has integer ones.
        self.image_sizes: Sizes | None = None
        if columns is None or not columns.is_object(columns.root())[0]:
            self._document = _checked(source.document())  # the reason, from the parser: not JSON, or not a dict
            return
        images = _records(columns, "images")
        self.ids = {section: _integers(columns, _records(columns, section), "id") for section in self.ids}
        heights, widths = (_integers(columns, images, key) for key in ("height", "width"))
        if self.ids["images"] is not None and heights is not None and widths is not None:
            self.image_sizes = dict(zip(self.ids["images"], zip(heights, widths)))

    def document(self) -> dict[str, Any]:
        """The parsed document (parsed once: later calls give the same dicts)."""
        if self._document is None:
            document, _ = load_json_document(self.path, skip_invalid=False)
            self._document = _checked(document)
        return self._document


def _checked(document: Any) -> dict[str, Any]:
    if not isinstance(document, dict):
        raise InvalidTypeError(f"annotation file format {type(document)} not supported (a COCO dataset is a dict)")
    return document


def _records(columns: Any, section: str) -> Any:
    """The records of `section` as values of the file's columns; None unless a list."""
    values = columns.field(columns.root(), section)
    found = None if values is None else columns.elements(values)
    return None if found is None else found[0]


def _integers(columns: Any, records: Any, key: str) -> list[Any] | None:
    """The integer `key` of each record; None unless every record has one."""
    values = None if records is None else columns.integers(columns.field(records, key))
    return None if values is None else values.tolist()
