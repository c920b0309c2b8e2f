"""Fixtures shared by several test modules."""

import json
from importlib.resources import files

import pytest

TOUR = files("geoiou") / "data" / "tour"

#: The tour's three smallest images (120 objects): exact polygon-pixel coverage of every pair is the slow part.
SMALL_IMAGES = {2, 3, 5}


@pytest.fixture(scope="module")
def small_coco(tmp_path_factory):
    """The tour's COCO files cut down to `SMALL_IMAGES`: (instances, segm results)."""
    folder = tmp_path_factory.mktemp("coco")
    instances = json.loads((TOUR / "coco" / "instances.json").read_text())
    instances["images"] = [image for image in instances["images"] if image["id"] in SMALL_IMAGES]
    instances["annotations"] = [a for a in instances["annotations"] if a["image_id"] in SMALL_IMAGES]
    results = [
        r for r in json.loads((TOUR / "coco" / "results-segm.json").read_text()) if r["image_id"] in SMALL_IMAGES
    ]
    (folder / "instances.json").write_text(json.dumps(instances))
    (folder / "segm.json").write_text(json.dumps(results))
    return folder / "instances.json", folder / "segm.json"
