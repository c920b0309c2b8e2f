"""Images and videos of the report drawn as SVG from the exact geometry of their objects.

A 2-D region is drawn from its exact shapely outline (a mask as the union of its pixel squares,
holes kept by the even-odd rule); a temporal segment as a bar on its video's timeline. Each object
carries a tooltip (its category, score and outcome).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely

__all__ = ["Drawn", "image_svg", "outline_path", "timeline_svg"]

#: How each outcome is drawn: colour and dash pattern ("" for solid).
STYLES = {
    "found": ("#009E73", ""),
    "missed": ("#E69F00", "6 3"),
    "ignored": ("#999999", "2 3"),
    "true positive": ("#0072B2", ""),
    "false positive": ("#D55E00", "4 2"),
}


@dataclass(frozen=True)
class Drawn:
    """One object to draw: its outline (an SVG path in image coordinates) or segment, outcome and tooltip."""

    outline: str
    segment: tuple[float, float] | None
    outcome: str
    tooltip: str


def outline_path(geometry: shapely.Geometry) -> str:
    """The SVG path of a geometry's polygons, holes included (draw it with ``fill-rule: evenodd``).

    Examples
    --------
    >>> outline_path(shapely.box(0, 0, 2, 1))
    'M2 0L2 1L0 1L0 0Z'
    """
    parts = []
    for polygon in shapely.get_parts(geometry):
        if not isinstance(polygon, shapely.Polygon) or polygon.is_empty:
            continue
        for ring in (polygon.exterior, *polygon.interiors):
            points = np.asarray(ring.coords)[:-1]
            parts.append("M" + "L".join(f"{x:.6g} {y:.6g}" for x, y in points) + "Z")
    return "".join(parts)


def image_svg(objects: Sequence[Drawn], view: tuple[float, float, float, float], background: str | None) -> str:
    """An image's objects on its picture (a data URI) or on white, in the box ``(x, y, width, height)``.

    Examples
    --------
    >>> drawn = Drawn(outline_path(shapely.box(1, 1, 3, 2)), None, "missed", "a ground truth nothing found")
    >>> svg = image_svg([drawn], (0, 0, 4, 4), None)
    >>> svg.startswith('<svg viewBox="0 0 4 4"') and 'd="M3 1L3 2L1 2L1 1Z"' in svg
    True
    """
    x, y, width, height = view
    stroke = max(width, height) / 400
    parts = []
    if background is not None:
        parts.append(f'<image href="{background}" x="0" y="0" width="{width + x:.6g}" height="{height + y:.6g}"/>')
    for item in objects:
        colour, dash = STYLES[item.outcome]
        dashes = f' stroke-dasharray="{" ".join(str(float(d) * stroke) for d in dash.split())}"' if dash else ""
        parts.append(
            f'<path d="{item.outline}" fill="{colour}" fill-opacity="0.08" fill-rule="evenodd" stroke="{colour}" '
            f'stroke-width="{stroke:.4g}"{dashes} class="object {item.outcome.replace(" ", "-")}">'
            f"<title>{html.escape(item.tooltip)}</title></path>"
        )
    return (
        f'<svg viewBox="{x:.6g} {y:.6g} {width:.6g} {height:.6g}" class="drawing" preserveAspectRatio="xMidYMid meet">'
        f"{''.join(parts)}</svg>"
    )


def timeline_svg(objects: Sequence[Drawn], span: tuple[float, float]) -> str:
    """A video's segments on two lanes (ground truth above, predictions below) over the time `span`.

    Examples
    --------
    >>> svg = timeline_svg([Drawn("", (2.0, 5.0), "found", "jump"), Drawn("", (3.0, 6.0), "true positive", "jump")],
    ...                    (0.0, 10.0))
    >>> svg.count("<rect"), "ground truth" in svg
    (2, True)
    """
    start, end = span
    length = max(end - start, 1e-12)
    width, lane = 720, 26
    lanes = {"found": 0, "missed": 0, "ignored": 0, "true positive": 1, "false positive": 1}
    rows: list[list[tuple[float, float]]] = [[], []]  # stack overlapping segments within a lane
    parts = []
    heights = [0, 0]
    placed = []
    for item in objects:
        assert item.segment is not None
        lane_index = lanes[item.outcome]
        level = _free_level(rows, lane_index, item.segment)
        heights[lane_index] = max(heights[lane_index], level + 1)
        placed.append((item, lane_index, level))
    top = [20, 20 + 8 + lane * max(heights[0], 1)]
    for item, lane_index, level in placed:
        colour, dash = STYLES[item.outcome]
        a, b = item.segment  # type: ignore[misc]
        x = 10 + (a - start) / length * width
        w = max((b - a) / length * width, 1.0)
        y = top[lane_index] + level * lane
        dashes = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(
            f'<rect x="{x:.2f}" y="{y}" width="{w:.2f}" height="{lane - 6}" fill="{colour}" fill-opacity="0.3" '
            f'stroke="{colour}"{dashes} class="object {item.outcome.replace(" ", "-")}">'
            f"<title>{html.escape(item.tooltip)}</title></rect>"
        )
    height = top[1] + lane * max(heights[1], 1) + 24
    parts.append(f'<text x="10" y="14">ground truth</text><text x="10" y="{top[1] - 2}">predictions</text>')
    parts.append(f'<text x="10" y="{height - 6}">{start:g}</text>')
    parts.append(f'<text x="{10 + width}" y="{height - 6}" text-anchor="end">{end:g}</text>')
    return f'<svg viewBox="0 0 {width + 20} {height}" class="drawing timeline">{"".join(parts)}</svg>'


def _free_level(rows: list[list[tuple[float, float]]], lane: int, segment: tuple[float, float]) -> int:
    """The first level of a lane where `segment` overlaps no segment placed before (levels kept as end times)."""
    levels = rows[lane]
    for level, (_, end) in enumerate(levels):
        if segment[0] >= end:
            levels[level] = segment
            return level
    levels.append(segment)
    return len(levels) - 1
