"""A COCO dataset file as `COCO` holds it: read from its bytes, its document parsed only when something reads it.

pycocotools parses the whole file into dicts at ``COCO(path)``. An evaluation needs only the ids
of the images and categories (``getImgIds``, ``getCatIds``, which ``COCOeval`` calls) and the
columns `read_coco` reads from the file's bytes; parsing 25 MB of annotations into dicts costs
more than the evaluation. `DatasetFile` answers the ids from the file's tokens
(`geoiou.io.json_documents.open_json`) and parses the document on first use, after which the
dicts are what `COCO` reads (a user may have changed them).
"""

from __future__ import annotations

import os
from typing import Any

from geoiou.errors import InvalidTypeError
from geoiou.io.json_documents import open_json

__all__ = ["DatasetFile"]


class DatasetFile:
    """A COCO JSON file (a dict of sections): the ids and sizes its records hold, and its document when asked.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "instances.json"
    >>> _ = path.write_text(json.dumps({"images": [{"id": 4, "height": 2, "width": 3}], "categories": [{"id": 1}],
    ...                                 "annotations": []}))
    >>> file = DatasetFile(path)
    >>> file.ids("images"), file.ids("categories"), file.image_sizes(), file.document()["categories"]
    ([4], [1], {4: (2, 3)}, [{'id': 1}])
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = path
        self._source = open_json(path, skip_invalid=False)
        columns = self._source.columns
        if columns is None or not columns.is_object(columns.root())[0]:
            self.document()  # the reason, from the parser: not JSON, or not a dict

    def document(self) -> dict[str, Any]:
        """The parsed document (parsed once: later calls give the same dicts)."""
        document = self._source.document()
        if not isinstance(document, dict):
            raise InvalidTypeError(f"annotation file format {type(document)} not supported (a COCO dataset is a dict)")
        return document

    def _records(self, section: str) -> Any:
        """The records of `section` as values of the file's columns; None unless a list of objects."""
        columns = self._source.columns
        if columns is None:
            return None
        values = columns.field(columns.root(), section)
        found = None if values is None else columns.elements(values)
        return None if found is None else found[0]

    def ids(self, section: str) -> list[Any] | None:
        """The ``id`` of each record of `section`, in file order; None unless each is an integer."""
        records = self._records(section)
        columns = self._source.columns
        ids = None if records is None or columns is None else columns.integers(columns.field(records, "id"))
        return None if ids is None else ids.tolist()

    def image_sizes(self) -> dict[int, tuple[int, int]] | None:
        """``{image_id: (height, width)}`` of every image; None unless each has integer ones."""
        records = self._records("images")
        columns = self._source.columns
        if records is None or columns is None:
            return None
        ids, heights, widths = (columns.integers(columns.field(records, key)) for key in ("id", "height", "width"))
        if ids is None or heights is None or widths is None:
            return None
        return dict(zip(ids.tolist(), zip(heights.tolist(), widths.tolist())))
