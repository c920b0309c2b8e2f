"""Seeded detection scenes for the diagnostics' tests: found, misplaced, misclassified, duplicated, invented objects."""

from __future__ import annotations

import numpy as np

import geoiou
from geoiou.evaluation import Annotations

#: One object: (image, category, [x, y, w, h]) for ground truth, (..., score) for predictions.
Row = tuple


def box_scene(seed: int, n_images: int = 40, n_classes: int = 4) -> tuple[list[Row], list[Row]]:
    """Ground truth and predictions with every kind of TIDE error, scores distinct (uniform), boxes as xywh.

    Per object: found (60%, 15% of those as a random category, 10% also duplicated), badly placed
    (20%) or missed; plus up to two predictions on background per image.
    """
    rng = np.random.default_rng(seed)
    truth, predicted = [], []
    for image in range(n_images):
        for _ in range(rng.integers(0, 7)):
            x, y = rng.uniform(0, 200, 2)
            w, h = rng.uniform(10, 60, 2)
            category = int(rng.integers(n_classes))
            truth.append((image, category, [x, y, w, h]))
            draw = rng.uniform()
            if draw < 0.6:
                jitter = rng.normal(0, 0.08, 4) * [w, h, w, h]
                found_as = category if rng.uniform() > 0.15 else int(rng.integers(n_classes))
                box = [x + jitter[0], y + jitter[1], max(1, w + jitter[2]), max(1, h + jitter[3])]
                predicted.append((image, found_as, box, rng.uniform()))
                if rng.uniform() < 0.1:
                    predicted.append((image, found_as, [x + 1, y - 1, w, h], rng.uniform()))
            elif draw < 0.8:
                predicted.append((image, category, [x + w * 0.6, y + h * 0.3, w, h], rng.uniform()))
        for _ in range(rng.integers(0, 3)):
            x, y = rng.uniform(0, 250, 2)
            w, h = rng.uniform(5, 40, 2)
            predicted.append((image, int(rng.integers(n_classes)), [x, y, w, h], rng.uniform()))
    return truth, predicted


def boxes_of(rows: list[Row]) -> geoiou.Box:
    return geoiou.Box(np.array([row[2] for row in rows], dtype=np.float64).reshape(-1, 4), fmt="xywh")


def annotations(rows: list[Row], region: geoiou.Region | None = None) -> Annotations:
    """Rows as `Annotations` (scored when the rows have scores), with their boxes or `region`."""
    scored = bool(rows) and len(rows[0]) == 4
    return Annotations(
        image_id=[row[0] for row in rows],
        category_id=[row[1] for row in rows],
        region=boxes_of(rows) if region is None else region,
        score=[row[3] for row in rows] if scored else None,
    )
