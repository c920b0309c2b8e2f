"""Multi-label Jaccard: the seed's worked example, and scikit-learn's jaccard_score value for value."""

import math
import warnings

import numpy as np
import pytest

from geoiou import InvalidArgumentError
from geoiou.evaluation.multilabel import jaccard

AVERAGES = [None, "micro", "macro", "samples", "weighted"]
NAN = math.nan

# The seed's example: classes Airplane, Boat, Car, four samples.
SEED_TRUTH = [[1, 1, 1], [1, 0, 1], [0, 1, 1], [1, 1, 1]]
SEED_PRED = [[0, 1, 0], [1, 1, 1], [1, 1, 1], [1, 1, 1]]
NAMES = ["Airplane", "Boat", "Car"]


def test_seed_macro_example():
    # Airplane: truth in samples 1, 2, 4, predicted in 2, 3, 4 -> 2 shared of 4 -> 2/4
    # Boat:     truth in 1, 3, 4, predicted in all four      -> 3 shared of 4 -> 3/4
    # Car:      truth in all four, predicted in 2, 3, 4      -> 3 shared of 4 -> 3/4
    np.testing.assert_allclose(jaccard(SEED_TRUTH, SEED_PRED), [2 / 4, 3 / 4, 3 / 4])
    # macro = (2/4 + 3/4 + 3/4) / 3 = 2/3
    assert jaccard(SEED_TRUTH, SEED_PRED, average="macro") == pytest.approx(2 / 3)


def test_seed_example_other_averages_by_hand():
    # micro: 2 + 3 + 3 shared labels over the 4 + 4 + 4 in the per-class unions
    assert jaccard(SEED_TRUTH, SEED_PRED, average="micro") == pytest.approx(8 / 12)
    # samples: {A,B,C} vs {B} = 1/3, {A,C} vs {A,B,C} = 2/3, then 2/3 and 1
    assert jaccard(SEED_TRUTH, SEED_PRED, average="samples") == pytest.approx((1 / 3 + 2 / 3 + 2 / 3 + 1) / 4)
    # weighted by true labels per class, 3, 3 and 4: (3 * 2/4 + 3 * 3/4 + 4 * 3/4) / 10
    assert jaccard(SEED_TRUTH, SEED_PRED, average="weighted") == pytest.approx((1.5 + 2.25 + 3) / 10)


def test_seed_example_as_label_sets():
    truth = [["Airplane", "Boat", "Car"], ["Airplane", "Car"], ["Boat", "Car"], ["Car", "Boat", "Airplane"]]
    pred = [["Boat"], ["Airplane", "Boat", "Car"], {"Airplane", "Boat", "Car"}, ("Airplane", "Boat", "Car")]
    for average in AVERAGES:
        np.testing.assert_array_equal(
            jaccard(truth, pred, labels=NAMES, average=average), jaccard(SEED_TRUTH, SEED_PRED, average=average)
        )
    # `labels` fixes the output order
    np.testing.assert_allclose(jaccard(truth, pred, labels=["Car", "Boat", "Airplane"]), [3 / 4, 3 / 4, 2 / 4])


def test_label_sets_with_integer_labels_and_empty_sets():
    scores = jaccard([[0, 2], []], [np.array([2]), [1]], labels=[0, 1, 2], zero_division=0.0)
    np.testing.assert_array_equal(scores, [0.0, 0.0, 1.0])


# ---------------------------------------------------------------- scikit-learn


def _random_indicators(seed):
    """Seeded 0/1 matrices with some all-zero rows and columns on either side."""
    rng = np.random.default_rng(seed)
    n_samples, n_classes = rng.integers(1, 25), rng.integers(2, 7)
    truth = (rng.random((n_samples, n_classes)) < rng.uniform(0.1, 0.7)).astype(int)
    pred = (rng.random((n_samples, n_classes)) < rng.uniform(0.1, 0.7)).astype(int)
    for matrix in (truth, pred):
        matrix[rng.random(n_samples) < 0.3] = 0  # empty rows
        matrix[:, rng.random(n_classes) < 0.3] = 0  # empty columns
    if seed % 5 == 0:  # a column empty on both sides, a row too
        truth[:, 0] = pred[:, 0] = 0
        truth[0] = pred[0] = 0
    return truth, pred


def _call(function, truth, pred, **options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = function(truth, pred, **options)
    return value, len(caught) > 0


@pytest.mark.parametrize("seed", range(40))
def test_matches_sklearn_for_every_average_and_zero_division(seed):
    metrics = pytest.importorskip("sklearn.metrics")
    truth, pred = _random_indicators(seed)
    for average in AVERAGES:
        for zero_division in ("warn", 0.0, 1.0):
            ours, ours_warned = _call(jaccard, truth, pred, average=average, zero_division=zero_division)
            theirs, they_warned = _call(
                metrics.jaccard_score, truth, pred, average=average, zero_division=zero_division
            )
            np.testing.assert_array_equal(ours, theirs, err_msg=f"{average=} {zero_division=}")  # bit for bit
            assert ours_warned == they_warned, f"{average=} {zero_division=}"


@pytest.mark.parametrize("zero_division", ["warn", 0.0, 1.0])
@pytest.mark.parametrize("average", AVERAGES)
def test_all_zero_input_matches_sklearn(average, zero_division):
    metrics = pytest.importorskip("sklearn.metrics")
    zeros = np.zeros((3, 4), dtype=int)
    ours, ours_warned = _call(jaccard, zeros, zeros, average=average, zero_division=zero_division)
    theirs, they_warned = _call(metrics.jaccard_score, zeros, zeros, average=average, zero_division=zero_division)
    np.testing.assert_array_equal(ours, theirs)
    assert ours_warned == they_warned == (zero_division == "warn")


def test_weighted_with_no_true_labels_falls_back_to_the_plain_mean_like_sklearn():
    metrics = pytest.importorskip("sklearn.metrics")
    truth, pred = np.zeros((2, 3), dtype=int), np.array([[1, 0, 0], [0, 0, 0]])
    # per class: 0/1, 0/0, 0/0 -> with zero_division=1.0: [0, 1, 1], no weights -> 2/3
    assert jaccard(truth, pred, average="weighted", zero_division=1.0) == pytest.approx(2 / 3)
    assert jaccard(truth, pred, average="weighted", zero_division=1.0) == metrics.jaccard_score(
        truth, pred, average="weighted", zero_division=1.0
    )


@pytest.mark.parametrize("seed", range(0, 40, 5))
def test_nan_zero_division_leaves_undefined_entries_out_like_sklearn_on_the_rest(seed):
    # scikit-learn's jaccard_score refuses NaN; compare with it on the defined columns or rows only
    metrics = pytest.importorskip("sklearn.metrics")
    truth, pred = _random_indicators(seed)
    per_class = jaccard(truth, pred, zero_division=NAN)
    defined = np.flatnonzero((truth | pred).any(axis=0))
    assert np.isnan(per_class).sum() == truth.shape[1] - defined.size
    if defined.size:
        assert jaccard(truth, pred, average="macro", zero_division=NAN) == metrics.jaccard_score(
            truth, pred, labels=defined, average="macro"
        )
    rows = (truth | pred).any(axis=1)
    if rows.any():
        assert jaccard(truth, pred, average="samples", zero_division=NAN) == pytest.approx(
            metrics.jaccard_score(truth[rows], pred[rows], average="samples")
        )


def test_nan_everywhere_averages_to_nan():
    zeros = np.zeros((2, 2), dtype=int)
    for average in ("micro", "macro", "samples", "weighted"):
        assert math.isnan(jaccard(zeros, zeros, average=average, zero_division=NAN))


def test_warning_names_the_undefined_classes():
    with pytest.warns(UserWarning, match=r"classes \[1, 2\] have no true or predicted label"):
        jaccard([[1, 0, 0]], [[1, 0, 0]])
    with pytest.warns(UserWarning, match=r"samples \[1\]"):
        jaccard([[1, 0], [0, 0]], [[1, 0], [0, 0]], average="samples")


@pytest.mark.parametrize("dtype", [bool, np.uint8, np.int64, np.float32, np.float64])
def test_any_numeric_dtype_of_zeros_and_ones(dtype):
    truth, pred = np.array(SEED_TRUTH, dtype=dtype), np.array(SEED_PRED, dtype=dtype)
    assert jaccard(truth, pred, average="macro") == pytest.approx(2 / 3)


def test_one_column_is_one_class():
    # scikit-learn reads an (n, 1) matrix as binary targets and scores values 0 and 1; here it is one class
    np.testing.assert_array_equal(jaccard([[1], [0]], [[1], [1]]), [0.5])


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: jaccard([[1, 0]], [[1, 0, 1]]),
            r"'y_pred' must be of shape \(1, 2\) like 'y_true' \(got 'shape \(1, 3\)'\)",
        ),
        (
            lambda: jaccard([[1, 2]], [[1, 0]]),
            r"'y_true' must be binary \(only 0 and 1\) \(got '2 at index \(0, 1\)'\)",
        ),
        (
            lambda: jaccard([[1, 0]], [[0.5, 0]]),
            r"'y_pred' must be binary \(only 0 and 1\) \(got '0.5 at index \(0, 0\)'\)",
        ),
        (lambda: jaccard([[1, 0]], [[NAN, 0]]), r"'y_pred' must be binary"),
        (lambda: jaccard([1, 0], [1, 0]), r"'y_true' must be a 2-D indicator matrix .* \(got 'shape \(2,\)'\)"),
        (lambda: jaccard(np.zeros((0, 3)), np.zeros((0, 3))), r"at least one sample and one class"),
        (
            lambda: jaccard([[1, 0], [1]], [[1, 0], [1]]),
            r"'y_true' must be a binary indicator matrix .* \(got 'a ragged",
        ),
        (lambda: jaccard([["a"]], [["a"]]), r"'y_true' must be a binary indicator matrix .*label sets with 'labels'"),
        (lambda: jaccard([[1, 0]], [[1, 0]], average="binary"), r"'average' must be one of None, 'micro'"),
        (lambda: jaccard([[1, 0]], [[1, 0]], zero_division="nan"), r"'zero_division' must be 'warn', NaN or a number"),
        (lambda: jaccard([[1, 0]], [[1, 0]], zero_division=2), r"'zero_division' must be"),
        (
            lambda: jaccard([["a"]], [["x"]], labels=["a"]),
            r"'y_pred' must be label sets drawn from 'labels' \(got \"'x' in sample 0\"\)",
        ),
        (lambda: jaccard(["a"], [["a"]], labels=["a"]), r"'y_true' must be a collection of labels per sample \(wrap"),
        (lambda: jaccard([["a"]], [["a"], []], labels=["a"]), r"'y_pred' must be of shape \(1, 1\)"),
        (lambda: jaccard([], [], labels=["a"]), r"'y_true' must be at least one sample"),
        (lambda: jaccard([["a"]], [["a"]], labels="a"), r"'labels' must be a non-empty sequence of distinct labels"),
        (lambda: jaccard([["a"]], [["a"]], labels=["a", "a"]), r"'labels' must be a sequence of distinct labels"),
        (lambda: jaccard([["a"]], [["a"]], labels=[["a"]]), r"'labels' must be a sequence of hashable labels"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(call, message):
    with pytest.raises(InvalidArgumentError, match=message):
        call()
