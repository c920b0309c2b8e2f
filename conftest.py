"""Root conftest: test imports and the Hypothesis profiles.

pytest puts the directory of this file (the repository root) on ``sys.path`` when it loads it,
which ``python -m pytest`` does by itself, so ``from tests.strategies import ...`` works under
plain ``pytest`` as under ``python -m pytest``.

Hypothesis profiles (``--hypothesis-profile=NAME``):

* ``ci`` (the default): every property draws the few examples its ``ci_settings(n)`` asks for,
  the same ones on every run (derandomized), so CI is fast and never flaky;
* ``deep``: every property draws ``DEEP_FACTOR`` times as many examples, new ones on each run,
  for fuzzing on demand (``python -m pytest tests/test_properties.py --hypothesis-profile=deep``).
  The properties compare every ordered pair of 2-D kinds and intervals with shapely and the
  pixel-square oracle, so a deep run is a search for disagreements. Failures print the example
  and a ``@reproduce_failure`` line to replay it.
"""

from hypothesis import HealthCheck, settings

#: How many times more examples each property draws under the ``deep`` profile.
DEEP_FACTOR = 40

_QUIET = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]
settings.register_profile("ci", derandomize=True, database=None, deadline=None, suppress_health_check=_QUIET)
settings.register_profile(
    "deep",
    max_examples=100 * DEEP_FACTOR,
    derandomize=False,
    database=None,
    deadline=None,
    suppress_health_check=_QUIET,
    print_blob=True,
)
settings.load_profile("ci")  # Hypothesis' pytest plugin loads --hypothesis-profile after this, if given
