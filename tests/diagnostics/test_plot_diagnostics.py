"""geoiou.plot's pictures of the diagnostics: drawn, and drawing the diagnostics' own numbers."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from geoiou.diagnostics import diagnose  # noqa: E402
from geoiou.diagnostics.tide import ERRORS, SPECIAL_ERRORS  # noqa: E402
from geoiou.errors import InvalidArgumentError  # noqa: E402
from geoiou.evaluation import CocoEvaluation  # noqa: E402
from geoiou.plot import plot_confusion_matrix, plot_f_beta, plot_reliability, plot_tide  # noqa: E402
from tests.diagnostics.scenes import annotations, box_scene  # noqa: E402
from tests.test_plot import assert_not_blank, render  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def diagnostics():
    truth, predicted = box_scene(11, n_images=16)
    return diagnose(annotations(truth), annotations(predicted), evaluation=CocoEvaluation(categories=range(4)),
                    images=range(16))  # fmt: skip


def test_tide_bars_are_the_ap_each_error_costs(diagnostics, tmp_path):
    tide = diagnostics.tide()
    ax = plot_tide(tide)
    assert_not_blank(render(ax, tmp_path / "tide.png"))
    widths = {patch.get_gid(): patch.get_width() for patch in ax.patches}
    for key in [*ERRORS, *SPECIAL_ERRORS]:
        assert widths[f"tide-{key}"] == pytest.approx(100 * tide.delta_ap[key])


def test_confusion_matrix_writes_each_count(diagnostics, tmp_path):
    confusion = diagnostics.confusion_matrix()
    ax = plot_confusion_matrix(confusion, normalize="truth", names={0: "zero"})
    assert_not_blank(render(ax, tmp_path / "confusion.png"))
    written = sorted(int(text.get_text()) for text in ax.texts)
    assert written == sorted(confusion.counts[confusion.counts > 0].tolist())
    assert ax.get_xticklabels()[0].get_text() == "zero" and ax.get_yticklabels()[-1].get_text() == "background"


def test_reliability_bars_are_each_bins_accuracy(diagnostics, tmp_path):
    calibration = diagnostics.calibration(bins=8)
    ax = plot_reliability(calibration)
    assert_not_blank(render(ax, tmp_path / "reliability.png"))
    bars = [patch for patch in ax.patches if patch.get_gid() == "reliability"] or list(ax.containers[0])
    filled = calibration.count > 0
    assert [bar.get_height() for bar in bars] == pytest.approx(calibration.accuracy[filled].tolist())


def test_f_beta_curves_mark_the_best_threshold(diagnostics, tmp_path):
    f_beta = diagnostics.f_beta()
    ax = plot_f_beta(f_beta, categories=[0, 2])
    assert_not_blank(render(ax, tmp_path / "f.png"))
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert len(labels) == 3 and labels[0].startswith(f"all: best F1 {f_beta.overall.best_values()['f']:.3f}")
    with pytest.raises(InvalidArgumentError, match="'categories' must be categories of the result"):
        plot_f_beta(f_beta, categories=[7])


@pytest.mark.parametrize("function", [plot_tide, plot_confusion_matrix, plot_reliability, plot_f_beta])
def test_pictures_refuse_other_values(function):
    with pytest.raises(InvalidArgumentError, match="must be a"):
        function(np.zeros(3))
