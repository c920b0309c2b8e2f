"""The examples of docs/evaluation-temporal.md print exactly the output shown after them."""

import contextlib
import io
import pathlib
import re

import pytest

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "evaluation-temporal.md"
# A python block immediately followed by a text block: the code and what it prints.
EXAMPLE = re.compile(r"```python\n(.*?)```\s*```text\n(.*?)```", re.DOTALL)


def examples():
    return EXAMPLE.findall(DOC.read_text(encoding="utf-8"))


def test_the_page_has_an_example_per_protocol():
    assert len(examples()) == 3


@pytest.mark.parametrize(("code", "expected"), examples())
def test_an_example_prints_what_the_page_shows(code, expected):
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, str(DOC), "exec"), {})
    assert printed.getvalue() == expected
