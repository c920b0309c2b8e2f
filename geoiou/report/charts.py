"""Charts as inline SVG for the report page: curves in the unit square and horizontal bars.

No plotting library and no external asset: each chart is a string of SVG elements that the page
embeds, so the page is one file that any browser shows without a network.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["COLOURS", "Series", "bar_chart", "curve_chart", "number"]

#: Okabe-Ito colours (as geoiou.plot), distinguishable with every common colour-vision deficiency.
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442", "#000000")
WIDTH, HEIGHT, MARGIN = 420, 300, 48


@dataclass(frozen=True)
class Series:
    """One curve: points ``(x, y)`` in ``[0, 1]²`` and its legend label; ``step`` draws a staircase."""

    x: np.ndarray
    y: np.ndarray
    label: str
    step: bool = False


def number(value: float | None, digits: int = 4) -> str:
    """A number as the page shows it: `digits` decimals, "n/a" for None or NaN.

    Examples
    --------
    >>> number(0.123456), number(float("nan")), number(None)
    ('0.1235', 'n/a', 'n/a')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{value:.{digits}f}"


def _x(value: float) -> float:
    return MARGIN + value * (WIDTH - 2 * MARGIN)


def _y(value: float) -> float:
    return HEIGHT - MARGIN - value * (HEIGHT - 2 * MARGIN)


def _axes(x_label: str, y_label: str) -> list[str]:
    """The frame, ticks at 0, 0.5 and 1, and the axis labels."""
    parts = [f'<rect x="{MARGIN}" y="{MARGIN}" width="{WIDTH - 2 * MARGIN}" height="{HEIGHT - 2 * MARGIN}" '
             'fill="none" stroke="#999"/>']  # fmt: skip
    for tick in (0.0, 0.5, 1.0):
        parts.append(f'<text x="{_x(tick):.1f}" y="{HEIGHT - MARGIN + 14}" text-anchor="middle">{tick:g}</text>')
        parts.append(f'<text x="{MARGIN - 6}" y="{_y(tick) + 4:.1f}" text-anchor="end">{tick:g}</text>')
    parts.append(f'<text x="{WIDTH / 2}" y="{HEIGHT - 12}" text-anchor="middle">{html.escape(x_label)}</text>')
    parts.append(
        f'<text x="14" y="{HEIGHT / 2}" text-anchor="middle" transform="rotate(-90 14 {HEIGHT / 2})">'
        f"{html.escape(y_label)}</text>"
    )
    return parts


def _points(series: Series) -> str:
    x, y = np.asarray(series.x, dtype=float), np.asarray(series.y, dtype=float)
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    if series.step and len(x) > 1:  # each value holds until the next point
        x, y = np.repeat(x, 2)[1:], np.repeat(y, 2)[:-1]
    return " ".join(f"{_x(a):.1f},{_y(b):.1f}" for a, b in zip(np.clip(x, 0, 1), np.clip(y, 0, 1)))


def curve_chart(series: Sequence[Series], x_label: str, y_label: str, *, diagonal: bool = False) -> str:
    """An SVG chart of curves in the unit square, with a legend beside it.

    Examples
    --------
    >>> svg = curve_chart([Series(np.array([0, 1]), np.array([1, 0.5]), "a")], "recall", "precision")
    >>> svg.startswith("<div") and "<svg" in svg and "polyline" in svg  # the chart and its legend
    True
    """
    parts = _axes(x_label, y_label)
    if diagonal:
        parts.append(
            f'<line x1="{_x(0)}" y1="{_y(0)}" x2="{_x(1)}" y2="{_y(1)}" stroke="#E69F00" stroke-dasharray="4"/>'
        )
    legend = []
    for k, curve in enumerate(series):
        colour = COLOURS[k % len(COLOURS)]
        dash = "" if k < len(COLOURS) else ' stroke-dasharray="5 3"'
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.6"{dash} points="{_points(curve)}"/>')
        legend.append(f'<div><span class="swatch" style="background:{colour}"></span>{html.escape(curve.label)}</div>')
    svg = f'<svg viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" class="chart">{"".join(parts)}</svg>'
    return f'<div class="figure">{svg}<div class="legend">{"".join(legend)}</div></div>'


def bar_chart(labels: Sequence[str], values: Sequence[float], notes: Sequence[str], x_label: str) -> str:
    """Horizontal bars (non-negative values), each with its label on the left and a note at its end.

    Examples
    --------
    >>> "<rect" in bar_chart(["Cls", "Loc"], [3.5, 0.5], ["3.50", "0.50"], "dAP")
    True
    """
    finite = [value for value in values if not math.isnan(value)]
    high = max(finite + [1e-12])
    row, left, width = 24, 90, WIDTH - 150
    parts = []
    for k, (label, value, note) in enumerate(zip(labels, values, notes)):
        y = 10 + k * row
        length = 0.0 if math.isnan(value) else width * value / high
        parts.append(f'<text x="{left - 6}" y="{y + 15}" text-anchor="end">{html.escape(label)}</text>')
        parts.append(f'<rect x="{left}" y="{y + 3}" width="{length:.1f}" height="{row - 8}" fill="{COLOURS[k % 8]}"/>')
        parts.append(f'<text x="{left + length + 4:.1f}" y="{y + 15}">{html.escape(note)}</text>')
    height = 20 + row * len(labels) + 20
    parts.append(f'<text x="{left + width / 2}" y="{height - 4}" text-anchor="middle">{html.escape(x_label)}</text>')
    return f'<svg viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" class="chart">{"".join(parts)}</svg>'
