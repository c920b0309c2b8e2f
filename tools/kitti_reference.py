"""Cross-check geoiou's KITTI AP against mmdet3d's copy of KITTI's Python evaluation, on synthetic scenes.

mmdet3d (PyPI) carries ``kitti_object_eval_python`` (``mmdet3d/evaluation/functional/kitti_utils``): its
``eval.py`` and ``rotate_iou.py`` need only numba and NumPy, and its BEV overlap is a numba CUDA kernel,
which numba's CUDA simulator runs on the CPU. Nothing of mmdet3d is installed or imported beyond those
two files::

    pip download --no-deps mmdet3d==1.4.0 -d /tmp/ref && unzip -q /tmp/ref/mmdet3d-1.4.0-py3-none-any.whl -d /tmp/ref/mm
    python tools/kitti_reference.py /tmp/ref/mm/mmdet3d/evaluation/functional/kitti_utils 1 60

prints both APs (R40 and R11, easy/moderate/hard) per metric and class for ``kitti_scene(seed, images)``
(tests/kitti_scenes.py) and the largest difference; the numbers of seed 1, 60 images are recorded in
tests/evaluation/test_kitti.py.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import types
from pathlib import Path

import numpy as np

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"  # before numba is imported: the reference's CUDA kernel on the CPU
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def load_reference(folder: Path) -> types.ModuleType:
    """mmdet3d's ``eval.py`` loaded as a package module of its own (its relative import finds ``rotate_iou.py``)."""
    package = types.ModuleType("kitti_reference_package")
    package.__path__ = [str(folder)]
    sys.modules["kitti_reference_package"] = package
    spec = importlib.util.spec_from_file_location("kitti_reference_package.eval", folder / "eval.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def annotations(objects, images, scored):
    """The per-image dicts of the reference (``get_label_anno``'s: dimensions as l, h, w)."""
    out = []
    for image in images:
        rows = np.flatnonzero(objects.image_id == image)
        out.append(
            {
                "name": objects.type[rows].astype(object),
                "truncated": objects.truncated[rows],
                "occluded": objects.occluded[rows].astype(int),
                "alpha": objects.alpha[rows],
                "bbox": objects.bbox[rows].reshape(-1, 4),
                "dimensions": objects.dimensions[rows][:, [2, 0, 1]].reshape(-1, 3),
                "location": objects.location[rows].reshape(-1, 3),
                "rotation_y": objects.rotation_y[rows],
                "score": objects.score[rows] if scored else np.zeros(len(rows)),
            }
        )
    return out


def main() -> None:
    from geoiou.evaluation import evaluate_kitti
    from kitti_scenes import kitti_scene

    reference = load_reference(Path(sys.argv[1]))
    seed, count = int(sys.argv[2]), int(sys.argv[3])
    truth, found = kitti_scene(seed, images=count)
    images = sorted(set(truth.images) | set(found.images))
    overlaps = np.array([[0.7, 0.5, 0.5]] * 3)[None]
    outputs = reference.do_eval(
        annotations(truth, images, False), annotations(found, images, True), [0, 1, 2], overlaps, ["bbox", "bev", "3d"]
    )
    r11, r40 = outputs[:3], outputs[4:7]
    ours = evaluate_kitti(truth, found)
    worst = 0.0
    for m, metric in enumerate(ours.metrics):
        for c, name in enumerate(ours.classes):
            ref40, ref11 = r40[m][c, :, 0], r11[m][c, :, 0]
            print(f"{metric:>4} {name:<10} R40 geoiou {np.round(ours.ap_r40[m, c], 4)} reference {np.round(ref40, 4)}")
            print(f"{'':>4} {'':<10} R11 geoiou {np.round(ours.ap_r11[m, c], 4)} reference {np.round(ref11, 4)}")
            worst = max(
                worst, float(np.abs(ours.ap_r40[m, c] - ref40).max()), float(np.abs(ours.ap_r11[m, c] - ref11).max())
            )
    print(f"largest difference: {worst} AP points")


if __name__ == "__main__":
    main()
