"""Makes ``from tests.strategies import ...`` work under plain ``pytest`` as under ``python -m pytest``.

pytest puts the directory of this file (the repository root) on ``sys.path`` when it loads it,
which ``python -m pytest`` does by itself.
"""
