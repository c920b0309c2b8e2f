"""The report page: one self-contained HTML file (inline style, script, SVG and pictures; nothing fetched).

`render` lays out a JSON-ready document (what ``geoiou report --json`` writes) and the pictures
made from the evaluation (curves, drawings). Every number the page shows comes from the document
and carries its place there (``data-key``, a JSON pointer) and its full value (``data-value``), so a
test can hold the page to the JSON. A small script sorts tables, switches the confusion matrix
between counts and fractions, and marks the page ready (``data-ready``); an earlier one records
any script error (``data-script-errors``).
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from geoiou.diagnostics.tide import ERRORS, SPECIAL_ERRORS
from geoiou.report.charts import Series, bar_chart, curve_chart, number

__all__ = ["Picture", "ReportPictures", "pointer", "render"]

STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#222;background:#fafafa}
header{background:#0b3d62;color:#fff;padding:16px 28px}header h1{margin:0 0 4px;font-size:22px}
nav{position:sticky;top:0;background:#fff;border-bottom:1px solid #ddd;padding:6px 28px;z-index:2}
nav a{margin-right:14px;color:#0072B2;text-decoration:none;font-size:14px}
section{padding:8px 28px 20px;border-bottom:1px solid #e4e4e4}h2{font-size:18px;margin:16px 0 8px}
table{border-collapse:collapse;font-size:13px;margin:6px 0}th,td{border:1px solid #ddd;padding:3px 7px}
th{background:#f0f0f0;cursor:pointer;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}
.figure{display:flex;align-items:center;gap:12px;flex-wrap:wrap}.legend{font-size:12px}
.swatch{display:inline-block;width:12px;height:3px;margin-right:6px;vertical-align:middle}
svg.chart text{font-size:11px;fill:#333}.drawing{width:100%;max-width:720px;max-height:520px;background:#fff;
border:1px solid #ccc}.image{display:inline-block;vertical-align:top;margin:0 16px 16px 0;max-width:740px}
.note{color:#555;font-size:13px}.confusion td.n{min-width:28px}.fraction{display:none}
body.fractions .confusion .count{display:none}body.fractions .confusion .fraction{display:inline}
.key span{display:inline-block;width:14px;height:10px;margin:0 4px 0 10px;border:2px solid}
"""

ERRORS_CAPTURE = """
window.addEventListener("error", function (event) {
  var body = document.body || document.documentElement;
  body.setAttribute("data-script-errors", (body.getAttribute("data-script-errors") || "") + event.message + "\\n");
});
"""

SCRIPT = """
(function () {
  var data = JSON.parse(document.getElementById("geoiou-data").textContent);
  function cellValue(cell) {
    var value = cell.getAttribute("data-value");
    if (value === null) { return cell.textContent.trim().toLowerCase(); }
    var parsed = parseFloat(value);
    return isNaN(parsed) ? -Infinity : parsed;
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("th").forEach(function (header, column) {
      header.addEventListener("click", function () {
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var ascending = header.getAttribute("data-order") !== "ascending";
        rows.sort(function (a, b) {
          var x = cellValue(a.cells[column]), y = cellValue(b.cells[column]);
          return (x < y ? -1 : x > y ? 1 : 0) * (ascending ? 1 : -1);
        });
        rows.forEach(function (row) { body.appendChild(row); });
        header.setAttribute("data-order", ascending ? "ascending" : "descending");
      });
    });
  });
  var confusion = data.diagnostics && data.diagnostics.confusion_matrix;
  if (confusion) {
    confusion.counts.forEach(function (row, i) {
      var total = row.reduce(function (a, b) { return a + b; }, 0);
      row.forEach(function (count, j) {
        var cell = document.getElementById("fraction-" + i + "-" + j);
        if (cell) { cell.textContent = total ? (count / total).toFixed(3) : "n/a"; }
      });
    });
  }
  var toggle = document.getElementById("confusion-mode");
  if (toggle) {
    toggle.addEventListener("change", function () { document.body.classList.toggle("fractions", toggle.checked); });
  }
  document.body.setAttribute("data-ready", "yes");
})();
"""


def pointer(*parts: Any) -> str:
    """A JSON pointer (RFC 6901) to a value of the document.

    Examples
    --------
    >>> pointer("slices", "day/night", "AP")
    '/slices/day~1night/AP'
    """
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)


def _value_cell(value: Any, *key: Any, digits: int = 4) -> str:
    """A table cell showing a number of the document, with its pointer and full value."""
    shown = str(value) if isinstance(value, int) and not isinstance(value, bool) else number(value, digits)
    full = "null" if value is None else repr(value)
    return f'<td class="n" data-key="{html.escape(pointer(*key))}" data-value="{html.escape(full)}">{shown}</td>'


def _text(value: Any) -> str:
    return html.escape(str(value))


@dataclass(frozen=True)
class Picture:
    """One drawn image or video of the report: its id, its SVG and its per-image numbers."""

    image_id: Any
    svg: str
    index: int


@dataclass
class ReportPictures:
    """The pictures made from the evaluation: curves (SVG), the F-beta chart and the worst images' drawings."""

    pr_chart: str
    pr_note: str
    f_beta_chart: str
    worst: list[Picture] = field(default_factory=list)


def render(document: dict[str, Any], pictures: ReportPictures, title: str) -> str:
    """The whole page for a report document (see the module notes).

    Examples
    --------
    >>> document = {"format": "coco", "geometry": "bbox", "ground_truth": "gt.json", "predictions": "dt.json",
    ...             "counts": {"images": 1, "ground_truths": 1, "predictions": 1},
    ...             "result": {"protocol": "coco", "headline": {"AP": 0.5}}, "per_category": [],
    ...             "diagnostics": {"tide": {"foreground_threshold": 0.5, "background_threshold": 0.1, "AP": 0.5,
    ...                                      "delta_AP": dict.fromkeys(["classification", "localization", "both",
    ...                                      "duplicate", "background", "missed", "false_positive",
    ...                                      "false_negative"], 0.0), "counts": {}},
    ...                             "confusion_matrix": {"iou_threshold": 0.5, "score_threshold": 0.0, "labels": [None],
    ...                                                  "counts": [[0]]},
    ...                             "calibration": None, "f_beta": {"iou_threshold": 0.5, "beta": 1.0, "best": [],
    ...                             "best_overall": {"threshold": None}}, "per_image": [], "label_errors": []}}
    >>> page = render(document, ReportPictures("", "", ""), "a report")
    >>> page.startswith("<!DOCTYPE html>"), 'data-key="/result/headline/AP" data-value="0.5">0.5000<' in page
    (True, True)
    """
    sections = [
        ("summary", "Summary", _summary(document)),
        ("categories", "Per category", _per_category(document)),
        ("curves", "Precision and recall", f'<p class="note">{_text(pictures.pr_note)}</p>{pictures.pr_chart}'),
        ("tide", "Errors (TIDE)", _tide(document)),
        ("confusion", "Confusion", _confusion(document)),
        ("calibration", "Calibration", _calibration(document)),
        ("fbeta", "Score threshold", _f_beta(document, pictures.f_beta_chart)),
        ("slices", "Slices", _slices(document)),
    ]
    if document.get("comparison"):
        sections.append(("comparison", "Comparison", _comparison(document)))
    sections += [
        ("worst", "Worst images", _worst(document, pictures.worst)),
        ("labels", "Candidate label errors", _label_errors(document)),
    ]
    nav = "".join(f'<a href="#{anchor}">{name}</a>' for anchor, name, _ in sections)
    body = "".join(f'<section id="{anchor}"><h2>{name}</h2>{content}</section>' for anchor, name, content in sections)
    data = json.dumps(document, allow_nan=False).replace("</", "<\\/")
    inputs = f"{_text(document['ground_truth'])} against {_text(document['predictions'])}"
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{_text(title)}</title><style>{STYLE}</style><script>{ERRORS_CAPTURE}</script></head><body>"
        f"<header><h1>{_text(title)}</h1><div>{inputs} ({_text(document['format'])}, "
        f"{_text(document['geometry'])})</div></header><nav>{nav}</nav>{body}"
        f'<script type="application/json" id="geoiou-data">{data}</script><script>{SCRIPT}</script></body></html>'
    )


def _summary(document: dict[str, Any]) -> str:
    headline = document["result"]["headline"]
    rows = "".join(f"<tr><th>{_text(name)}</th>{_value_cell(value, 'result', 'headline', name)}</tr>"
                   for name, value in headline.items())  # fmt: skip
    counts = document["counts"]
    return (
        f'<p class="note">{counts["images"]} images, {counts["ground_truths"]} ground truths, '
        f"{counts['predictions']} predictions; protocol {_text(document['result']['protocol'])}.</p>"
        f"<table>{rows}</table>"
    )


#: Columns that hold category ids: shown by name.
CATEGORY_COLUMNS = ("category_id", "truth_category_id")


def _table(
    rows: list[dict[str, Any]], base: Sequence[Any], key_column: str = "name", names: dict[str, str] | None = None
) -> str:
    """A sortable table of records; every number cell points into the document at ``base/<row>/<column>``.

    Category ids are shown by their `names` (the document's ``"names"``) where known.
    """
    if not rows:
        return '<p class="note">(none)</p>'
    columns = list(rows[0])
    head = "".join(f"<th>{_text('category' if column == 'category_id' else column)}</th>" for column in columns)
    body = []
    for i, row in enumerate(rows):
        cells = []
        for column in columns:
            value = row[column]
            numeric = isinstance(value, (int, float)) and not isinstance(value, bool) or value is None
            if column in CATEGORY_COLUMNS:
                shown = "" if value is None else (names or {}).get(str(value), str(value))
                cells.append(f"<td>{_text(shown)}</td>")
            elif numeric and column != key_column:
                cells.append(_value_cell(value, *base, i, column))
            else:
                cells.append(f"<td>{_text('' if value is None else value)}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    return f'<table class="sortable"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def _per_category(document: dict[str, Any]) -> str:
    rows = [{key: value for key, value in row.items() if key != "category"} for row in document["per_category"]]
    # The pointers keep the document's own rows (with "category"): only the shown columns differ.
    return _table(rows, ("per_category",))


def _tide(document: dict[str, Any]) -> str:
    tide = document["diagnostics"]["tide"]
    names = {**ERRORS, **SPECIAL_ERRORS}
    values = [100 * (tide["delta_AP"][key] or 0.0) for key in names]
    notes = [
        f"{value:.2f}" + (f" ({tide['counts'][key]})" if key in tide["counts"] else "")
        for key, value in zip(names, values)
    ]
    rows = "".join(
        f"<tr><td>{key}</td><td>{short}</td>"
        + _value_cell(tide["delta_AP"][key], "diagnostics", "tide", "delta_AP", key)
        + (
            _value_cell(tide["counts"][key], "diagnostics", "tide", "counts", key)
            if key in tide["counts"]
            else "<td></td>"
        )
        + "</tr>"
        for key, short in names.items()
    )
    return (
        f'<p class="note">At IoU {tide["foreground_threshold"]:g} (background {tide["background_threshold"]:g}), '
        f"AP {number(tide['AP'])}: what fixing each kind of error the oracle way would add (dAP, in AP points "
        "x100 on the chart), and how many predictions (ground truths for Miss) it holds.</p>"
        + bar_chart(list(names.values()), values, notes, "dAP x100")
        + f"<table><thead><tr><th>error</th><th>TIDE</th><th>dAP</th><th>count</th></tr></thead><tbody>{rows}"
        "</tbody></table>"
    )


def _confusion(document: dict[str, Any]) -> str:
    confusion = document["diagnostics"]["confusion_matrix"]
    names = document.get("names", {})
    labels = ["background" if label is None else names.get(str(label), str(label)) for label in confusion["labels"]]
    head = "".join(f"<th>{_text(label)}</th>" for label in labels)
    high = max([count for row in confusion["counts"] for count in row] + [1])
    rows = []
    for i, (label, row) in enumerate(zip(labels, confusion["counts"])):
        cells = []
        for j, count in enumerate(row):
            shade = f"rgba(0,114,178,{0.85 * count / high:.3f})"
            key = html.escape(pointer("diagnostics", "confusion_matrix", "counts", i, j))
            cells.append(
                f'<td class="n" style="background:{shade}"><span class="count" data-key="{key}" '
                f'data-value="{count}">{count}</span><span class="fraction" id="fraction-{i}-{j}"></span></td>'
            )
        rows.append(f"<tr><th>{_text(label)}</th>{''.join(cells)}</tr>")
    return (
        f'<p class="note">At IoU {confusion["iou_threshold"]:g}, scores from {confusion["score_threshold"]:g}: '
        "rows are the true categories, columns the predicted ones; the last row holds predictions that found no "
        "object, the last column objects nothing found.</p>"
        '<label><input type="checkbox" id="confusion-mode"> fractions of each row</label>'
        f'<table class="confusion"><thead><tr><th>true \\ predicted</th>{head}</tr></thead><tbody>{"".join(rows)}'
        "</tbody></table>"
    )


def _calibration(document: dict[str, Any]) -> str:
    calibration = document["diagnostics"]["calibration"]
    if calibration is None:
        return '<p class="note">Scores outside [0, 1]: calibration needs probabilities.</p>'
    bins = calibration["bins"]
    filled = [b for b in bins if b["count"]]
    accuracy = Series(
        np.array([b["confidence"] for b in filled]), np.array([b["accuracy"] for b in filled]), "fraction right"
    )
    chart = curve_chart([accuracy], "mean score of the bin", "fraction of true positives", diagonal=True)
    table = _table(bins, ("diagnostics", "calibration", "bins"), key_column="")
    base = ("diagnostics", "calibration")
    return (
        f"<table><tr><th>ECE</th>{_value_cell(calibration['ece'], *base, 'ece')}<th>MCE</th>"
        f"{_value_cell(calibration['mce'], *base, 'mce')}</tr></table>{chart}{table}"
    )


def _f_beta(document: dict[str, Any], chart: str) -> str:
    f_beta = document["diagnostics"]["f_beta"]
    base = ("diagnostics", "f_beta", "best_overall")
    overall = f_beta["best_overall"]
    cells = "".join(f"<th>{name}</th>{_value_cell(overall[name], *base, name)}" for name in overall)
    return (
        f'<p class="note">At IoU {f_beta["iou_threshold"]:g}: keeping predictions from a score up, the score of '
        f"best F{f_beta['beta']:g} overall and per category.</p><table><tr>{cells}</tr></table>{chart}"
        + _table(f_beta["best"], ("diagnostics", "f_beta", "best"), names=document.get("names"))
    )


def _slices(document: dict[str, Any]) -> str:
    slices = document.get("slices") or {}
    if not slices:
        return '<p class="note">(no slices)</p>'
    names = list(next(iter(slices.values()))["headline"])
    head = "".join(f"<th>{_text(name)}</th>" for name in ["slice", "images", *names])
    rows = "".join(
        f"<tr><td>{_text(slice_name)}</td>{_value_cell(values['images'], 'slices', slice_name, 'images')}"
        + "".join(_value_cell(values["headline"][name], "slices", slice_name, "headline", name) for name in names)
        + "</tr>"
        for slice_name, values in slices.items()
    )
    return (
        '<p class="note">Every number re-accumulated over each subset of images alone (no overlap measured '
        f'again).</p><table class="sortable"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'
    )


def _comparison(document: dict[str, Any]) -> str:
    comparison = document["comparison"]
    head = "<tr><th>metric</th><th>first</th><th>second</th><th>difference</th><th>low</th><th>high</th></tr>"
    rows = "".join(
        f"<tr><td>{_text(name)}</td>"
        + "".join(
            _value_cell(values[column], "comparison", "metrics", name, column)
            for column in ("first", "second", "difference", "low", "high")
        )
        + "</tr>"
        for name, values in comparison["metrics"].items()
    )
    return (
        f'<p class="note">{_text(document.get("compared_with", ""))} (second) against the predictions above (first): '
        f"{100 * comparison['confidence']:g}% paired bootstrap intervals of the difference over images, "
        f"{comparison['resamples']} resamples, seed {comparison['seed']}.</p>"
        f'<table class="sortable"><thead>{head}</thead><tbody>{rows}</tbody></table><h3>AP per category</h3>'
        + _table(comparison["per_category"], ("comparison", "per_category"), names=document.get("names"))
    )


def _worst(document: dict[str, Any], pictures: list[Picture]) -> str:
    if not pictures:
        return '<p class="note">(no image with ground truth or predictions)</p>'
    key = (
        '<p class="key">ground truth: <span style="border-color:#009E73"></span>found '
        '<span style="border-color:#E69F00;border-style:dashed"></span>missed '
        '<span style="border-color:#999;border-style:dotted"></span>ignored; predictions: '
        '<span style="border-color:#0072B2"></span>true positive <span style="border-color:#D55E00;'
        'border-style:dashed"></span>false positive (hover an outline for its category and score)</p>'
    )
    blocks = []
    for picture in pictures:
        record = document["diagnostics"]["per_image"][picture.index]
        base = ("diagnostics", "per_image", picture.index)
        numbers = "".join(f"<th>{name}</th>{_value_cell(record[name], *base, name)}" for name in ("f1", "AP"))
        counts = ", ".join(f"{record[name]} {name.replace('_', ' ')}" for name in ("true_positives", "false_positives",
                                                                                   "missed"))  # fmt: skip
        blocks.append(
            f'<div class="image"><h3>{_text(picture.image_id)}</h3><table><tr>{numbers}</tr></table>'
            f'<p class="note">{counts}</p>{picture.svg}</div>'
        )
    return key + "".join(blocks)


def _label_errors(document: dict[str, Any], shown: int = 25) -> str:
    records = document["diagnostics"]["label_errors"][:shown]
    note = (
        f'<p class="note">Confident false positives on another category\'s object (perhaps its category is wrong) '
        f"or on no object (perhaps it was not annotated), most confident first; {shown} at most here, all in the "
        "JSON.</p>"
    )
    return note + _table(records, ("diagnostics", "label_errors"), key_column="kind", names=document.get("names"))
