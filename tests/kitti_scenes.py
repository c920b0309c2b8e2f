"""Synthetic KITTI scenes for the tests: ground truth and results in KITTI's label format, seeded.

Objects stand on the road in front of the camera (x right, y down, z forward; ``y`` is the bottom
of the box), with sizes of KITTI's classes, their image boxes projected with a focal length of 720
pixels, and occlusion, truncation and don't-care regions drawn at random, so that every rule of the
protocol (difficulties, neighbouring classes, short predictions, don't-care regions) is exercised.
Results are the ground truths moved by a little noise (a few far off, some missed), false positives
and scores that rise with the quality of the box.
"""

from __future__ import annotations

import numpy as np

from geoiou.tables import KittiObjects

__all__ = ["kitti_scene", "label_lines"]

_SIZES = {  # h, w, l
    "Car": (1.53, 1.63, 3.88),
    "Van": (2.2, 1.9, 5.1),
    "Pedestrian": (1.76, 0.66, 0.84),
    "Person_sitting": (1.27, 0.59, 0.8),
    "Cyclist": (1.74, 0.6, 1.76),
}
_CLASSES = np.array(list(_SIZES))
_FOCAL = 720.0


def _objects(gen: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    kinds = gen.choice(_CLASSES, size=n, p=[0.5, 0.08, 0.22, 0.05, 0.15])
    sizes = np.array([_SIZES[k] for k in kinds]) * gen.uniform(0.9, 1.1, size=(n, 3))
    z = gen.uniform(5.0, 60.0, size=n)
    x = gen.uniform(-0.35, 0.35, size=n) * z
    y = gen.normal(1.7, 0.05, size=n)
    ry = gen.uniform(-np.pi, np.pi, size=n)
    u, top, bottom = 620.0 + _FOCAL * x / z, 180.0 + _FOCAL * (y - sizes[:, 0]) / z, 180.0 + _FOCAL * y / z
    half = _FOCAL * np.maximum(sizes[:, 1], sizes[:, 2]) / z / 2
    bbox = np.stack([u - half, top, u + half, bottom], axis=1)
    return {
        "type": kinds,
        "truncated": np.round(gen.choice([0.0, 0.0, 0.1, 0.2, 0.4, 0.6], size=n), 2),
        "occluded": gen.choice([0, 0, 1, 2, 3], size=n).astype(float),
        "alpha": np.round(ry - np.arctan2(x, z), 2),
        "bbox": np.round(bbox, 2),
        "dimensions": np.round(sizes, 2),
        "location": np.round(np.stack([x, y, z], axis=1), 2),
        "rotation_y": np.round(ry, 2),
    }


def kitti_scene(seed: int, images: int = 40, per_image: int = 8) -> tuple[KittiObjects, KittiObjects]:
    """Ground truth and results for `images` images of about `per_image` objects (and a don't-care region each)."""
    gen = np.random.default_rng(seed)
    counts = gen.integers(0, 2 * per_image, size=images)
    image_ids = np.repeat([f"{i:06d}" for i in range(images)], counts)
    truth = _objects(gen, int(counts.sum()))
    # A don't-care region in most images: an image box only, KITTI's -1 and -1000 elsewhere.
    cares = np.array([f"{i:06d}" for i in range(images) if gen.random() < 0.7])
    m = len(cares)
    corner = np.round(gen.uniform([0, 150], [1100, 250], size=(m, 2)), 2)
    care = {
        "type": np.array(["DontCare"] * m),
        "truncated": -np.ones(m),
        "occluded": -np.ones(m),
        "alpha": -10 * np.ones(m),
        "bbox": np.concatenate([corner, corner + np.round(gen.uniform(20, 120, size=(m, 2)), 2)], axis=1),
        "dimensions": -np.ones((m, 3)),
        "location": -1000 * np.ones((m, 3)),
        "rotation_y": -10 * np.ones(m),
    }
    ids = np.concatenate([image_ids, cares])
    columns = {key: np.concatenate([truth[key], care[key]]) for key in truth}
    order = np.argsort(ids, kind="stable")
    ground_truth = KittiObjects(image_id=ids[order], **{k: v[order] for k, v in columns.items()})

    # Results: most objects found with some noise, a few far off; then false positives.
    n = len(image_ids)
    found = gen.random(n) < 0.85
    noise = gen.normal(0, 1, size=(n, 3)) * np.array([0.08, 0.03, 0.12]) * (1 + 5 * (gen.random((n, 1)) < 0.1))
    location = truth["location"] + noise
    dimensions = truth["dimensions"] * gen.uniform(0.9, 1.1, size=(n, 3))
    rotation = truth["rotation_y"] + gen.normal(0, 0.1, size=n)
    bbox = truth["bbox"] + gen.normal(0, 1.5, size=(n, 4))
    quality = np.exp(-np.abs(noise).sum(axis=1))
    score = np.round(np.clip(quality + gen.normal(0, 0.1, size=n), 0.01, 1), 4)
    kinds = np.where(gen.random(n) < 0.05, "Van", truth["type"])
    extra = _objects(gen, n // 4)
    result_ids = np.concatenate([image_ids[found], gen.choice([f"{i:06d}" for i in range(images)], size=n // 4)])
    result = {
        "type": np.concatenate([kinds[found], extra["type"]]),
        "truncated": np.zeros(len(result_ids)),
        "occluded": np.zeros(len(result_ids)),
        "alpha": np.concatenate([truth["alpha"][found], extra["alpha"]]),
        "bbox": np.round(np.concatenate([bbox[found], extra["bbox"]]), 2),
        "dimensions": np.round(np.concatenate([dimensions[found], extra["dimensions"]]), 2),
        "location": np.round(np.concatenate([location[found], extra["location"]]), 2),
        "rotation_y": np.round(np.concatenate([rotation[found], extra["rotation_y"]]), 2),
        "score": np.concatenate([score[found], np.round(gen.uniform(0.01, 0.6, size=n // 4), 4)]),
    }
    order = np.argsort(result_ids, kind="stable")
    predictions = KittiObjects(
        image_id=result_ids[order],
        images=[f"{i:06d}" for i in range(images)],
        **{k: v[order] for k, v in result.items()},
    )
    return ground_truth, predictions


def label_lines(objects: KittiObjects, image: str) -> str:
    """The label file of one image, as KITTI writes it (a score last for results)."""
    rows = np.flatnonzero(objects.image_id == image)
    lines = []
    for r in rows:
        fields = [
            str(objects.type[r]),
            f"{objects.truncated[r]:.2f}",
            f"{int(objects.occluded[r])}",
            f"{objects.alpha[r]:.2f}",
            *(f"{v:.2f}" for v in objects.bbox[r]),
            *(f"{v:.2f}" for v in objects.dimensions[r]),
            *(f"{v:.2f}" for v in objects.location[r]),
            f"{objects.rotation_y[r]:.2f}",
        ]
        if objects.score is not None:
            fields.append(f"{objects.score[r]:.4f}")
        lines.append(" ".join(fields))
    return "\n".join(lines) + ("\n" if lines else "")
