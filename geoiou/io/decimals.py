"""Decimal numbers written in a file's bytes, read to the bits Python gives them, by one compiled pass.

The JSON tokenizer (`geoiou.io.json_tokens`) and the text table (`geoiou.io.text_table`) find
where numbers are written; `read_numbers` reads them all, in place in their token tables:

- an integer of at most 18 digits is exact (int64);
- a decimal whose mantissa (at most 18 significant digits) is at most 2**53 and whose power of
  ten is within ±22 is one multiplication or division of two exact doubles, which IEEE rounds
  correctly (Clinger's fast path): the double Python's ``float`` gives;
- any other number (17-digit ``repr`` outputs, large exponents, integers beyond 64 bits) is
  marked `SLOW` and `resolve_slow` converts them all with Python's ``float`` in one C-speed pass
  over their joined text.

JSON's grammar (``-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?``) is checked with ``strict``;
otherwise the grammar is the part of Python's ``float`` that text label files use (a ``+``, ``.5``
and ``5.`` too; ``inf``, ``nan`` and underscores are left to the caller's slower path).

Examples
--------
>>> buf = np.frombuffer(b"12 -0.5 1e400 0.30000000000000004 +.5", dtype=np.uint8)
>>> start, stop = np.array([0, 3, 8, 14, 34]), np.array([2, 7, 13, 33, 37])
>>> kind, value = np.full(5, NUMBER, dtype=np.uint8), np.zeros(5, dtype=np.int64)
>>> read_numbers(buf, kind, start, stop, value, strict=False)
True
>>> resolve_slow(buf, kind, start, stop, value.view(np.float64))
>>> kind.tolist(), int(value[0]), value.view(np.float64)[1:].tolist()
([6, 7, 8, 8, 7], 12, [-0.5, inf, 0.30000000000000004, 0.5])
"""

from __future__ import annotations

import numpy as np

from geoiou._compiled import in_parallel, jit, prange

__all__ = ["FLOAT", "INT", "NUMBER", "SLOW", "read_numbers", "resolve_slow"]

# Kinds of numbers, as in the JSON token table: a number not read yet, an integer, a float, a float
# that Python reads (`resolve_slow`).
NUMBER, INT, FLOAT, SLOW = 12, 6, 7, 8

#: Exact powers of ten as doubles (10**22 is the largest).
_POWERS = np.array([10.0**k for k in range(23)])
_TWO_53 = 2**53


def read_numbers(
    buf: np.ndarray, kind: np.ndarray, start: np.ndarray, stop: np.ndarray, value: np.ndarray, *, strict: bool
) -> bool:
    """Read every token of kind `NUMBER` (its text ``buf[start:stop]``) into `kind` and `value` (int64), in place.

    `value` holds an integer, or a float's bits (its float64 view). False if some text is not a
    number of the grammar (JSON's with `strict`).
    """
    data = (buf, kind, start, stop, value, value.view(np.float64), strict, _POWERS)
    if in_parallel(kind.size, TOKEN_COST_NS):
        return bool(_read_numbers_parallel(*data) == 0)
    return bool(_read_numbers(*data, 0, kind.size) == 0)


#: Nanoseconds a token costs `read_numbers` on one thread (most are numbers), for `in_parallel`.
TOKEN_COST_NS = 8.0
#: Tokens a stretch of the parallel driver reads (the serial driver's call counts references once a stretch).
TOKENS_A_STRETCH = 1 << 16


@jit(parallel=True)
def _read_numbers_parallel(
    buf: np.ndarray,
    kind: np.ndarray,
    start: np.ndarray,
    stop: np.ndarray,
    integer: np.ndarray,
    number: np.ndarray,
    strict: bool,
    powers: np.ndarray,
) -> int:
    n = kind.shape[0]
    invalid = 0
    for stretch in prange((n + TOKENS_A_STRETCH - 1) // TOKENS_A_STRETCH):  # each token on its own
        begin = stretch * TOKENS_A_STRETCH
        invalid += _read_numbers(
            buf, kind, start, stop, integer, number, strict, powers, begin, min(n, begin + TOKENS_A_STRETCH)
        )
    return invalid


@jit
def _read_numbers(
    buf: np.ndarray,
    kind: np.ndarray,
    start: np.ndarray,
    stop: np.ndarray,
    integer: np.ndarray,
    number: np.ndarray,
    strict: bool,
    powers: np.ndarray,
    begin: int,
    end: int,
) -> int:
    """Read the tokens ``begin <= t < end``; how many are not numbers of the grammar."""

    # A closure, not a function of its own: numba would count references to `buf` at every call.
    def parse(i: int, end: int) -> tuple[int, int, float]:
        """``(kind, integer, float)`` of the text ``buf[i:end]``; kind 0 if it is not a number."""
        negative = buf[i] == 45
        if negative or (buf[i] == 43 and not strict):
            i += 1
        mantissa = 0
        digits = 0  # significant digits kept in the mantissa
        dropped = False  # a significant digit that did not fit
        exponent = 0
        whole = 0  # digits before the point
        if strict and i < end and buf[i] == 48 and i + 1 < end and 48 <= buf[i + 1] <= 57:
            return 0, 0, 0.0  # JSON writes no leading zero
        while i < end and 48 <= buf[i] <= 57:
            if digits < 18:
                mantissa = mantissa * 10 + (buf[i] - 48)
                if mantissa > 0:
                    digits += 1  # leading zeros are not significant
            else:
                dropped = True
                exponent += 1
            whole += 1
            i += 1
        integral = True
        fraction = 0
        if i < end and buf[i] == 46:  # a fraction
            integral = False
            i += 1
            while i < end and 48 <= buf[i] <= 57:
                if digits < 18:
                    mantissa = mantissa * 10 + (buf[i] - 48)
                    if mantissa > 0:
                        digits += 1
                    exponent -= 1
                elif buf[i] != 48:
                    dropped = True
                fraction += 1
                i += 1
            if strict and fraction == 0:
                return 0, 0, 0.0
        if whole == 0 and (strict or fraction == 0):
            return 0, 0, 0.0
        if i < end and (buf[i] == 101 or buf[i] == 69):  # an exponent
            integral = False
            i += 1
            sign = 1
            if i < end and (buf[i] == 43 or buf[i] == 45):
                sign = -1 if buf[i] == 45 else 1
                i += 1
            if i >= end or not (48 <= buf[i] <= 57):
                return 0, 0, 0.0
            written = 0
            while i < end and 48 <= buf[i] <= 57:
                if written < 100000:
                    written = written * 10 + (buf[i] - 48)
                i += 1
            exponent += sign * written
        if i != end:
            return 0, 0, 0.0
        if integral:
            if dropped:
                return SLOW, 0, 0.0
            return INT, -mantissa if negative else mantissa, 0.0
        if mantissa == 0 and not dropped:
            return FLOAT, 0, -0.0 if negative else 0.0
        if dropped or mantissa > _TWO_53 or exponent > 22 or exponent < -22:
            return SLOW, 0, 0.0
        value = float(mantissa)
        value = value * powers[exponent] if exponent >= 0 else value / powers[-exponent]
        return FLOAT, 0, -value if negative else value

    def read(t: int) -> int:
        """Read token `t` if it is a number not read yet; 1 if its text is not a number, else 0."""
        if kind[t] != NUMBER:
            return 0
        if start[t] >= stop[t]:
            return 1
        found, whole_value, float_value = parse(start[t], stop[t])
        if found == 0:
            return 1
        kind[t] = found
        if found == INT:
            integer[t] = whole_value
        else:
            number[t] = float_value
        return 0

    invalid = 0
    for t in range(begin, end):  # each token on its own: the same bits for any number of threads
        invalid += read(t)
    return invalid


def resolve_slow(buf: np.ndarray, kind: np.ndarray, start: np.ndarray, stop: np.ndarray, number: np.ndarray) -> None:
    """Convert the `SLOW` numbers with Python's ``float``, all in one pass over their joined text, into `number`."""
    slow = np.flatnonzero(kind == SLOW)
    if slow.size:
        text = joined_spans(buf, start[slow], stop[slow], ord(" "))
        number[slow] = np.array(list(map(float, text.tobytes().split())), dtype=np.float64)


@jit
def joined_spans(buf: np.ndarray, start: np.ndarray, stop: np.ndarray, separator: int) -> np.ndarray:
    """The bytes of the spans ``buf[start[k]:stop[k]]`` end to end, `separator` after each but the last."""
    size = 0
    for k in range(start.size):
        size += stop[k] - start[k] + 1
    joined = np.empty(max(size - 1, 0), dtype=np.uint8)
    at = 0
    for k in range(start.size):
        for j in range(start[k], stop[k]):
            joined[at] = buf[j]
            at += 1
        if at < joined.size:
            joined[at] = separator
            at += 1
    return joined
