"""A compiled JSON tokenizer: the bytes of a file become a table of tokens in one pass (the "tape").

Each value of the document is one token, in document order (a container before what it holds),
and each key of an object is one token right before its value. A token has its kind, where it
starts and stops (bytes for strings and numbers, tokens for containers: a container's
descendants are the tokens up to its stop), and one 64-bit value: a number's, an integer's, or
the FNV-1a hash of a key's bytes. Nothing more is kept: 25 bytes a token, written once. Readers
then take their columns from the table with array operations (`geoiou.io.json_tape`), without a
Python object per value.

What the tokenizer accepts is what ``json.loads`` accepts, with the values it gives:

- numbers get the bits ``json.loads`` gives them: the pass finds where each is written, and
  `geoiou.io.decimals` reads them all afterwards, with JSON's grammar;
- ``NaN``, ``Infinity`` and ``-Infinity`` are numbers, as Python's ``json`` reads them;
- strings may hold any escape (marked: their bytes are not their text) and non-ASCII UTF-8
  (flagged: the file is then checked to be UTF-8 by Python);
- a key repeated in one object is found here (``json.loads`` would keep the last value silently).

Anything else (a syntax error, a control character in a string, nesting deeper than `MAX_DEPTH`)
stops the tokenizer with a status: the reader then lets ``json.loads`` read the file, which names
the fault as it always has.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from geoiou import threads
from geoiou._compiled import config, jit
from geoiou.io.kept_arrays import KeptArrays
from geoiou.io.decimals import FLOAT, INT, NUMBER, SLOW, read_numbers

__all__ = [
    "ARRAY",
    "ESCAPED_KEY",
    "ESCAPED_STRING",
    "FALSE",
    "FLOAT",
    "INT",
    "KEY",
    "MAX_DEPTH",
    "NULL",
    "OBJECT",
    "SLOW",
    "STRING",
    "TRUE",
    "DUPLICATE_KEY",
    "OK",
    "SYNTAX_ERROR",
    "TOO_DEEP",
    "fnv1a",
    "tokenize",
]

# Token kinds (numbers: `decimals`' INT, FLOAT and SLOW).
OBJECT, ARRAY, KEY, ESCAPED_KEY, STRING, ESCAPED_STRING = range(6)
TRUE, FALSE, NULL = range(9, 12)


# Why the tokenizer stopped: the whole text is one JSON value (OK); not JSON as ``json.loads`` reads
# it; an object repeats a key (written with the same bytes); nested deeper than `MAX_DEPTH`.
OK, SYNTAX_ERROR, DUPLICATE_KEY, TOO_DEEP = range(4)


#: Containers nested deeper than this are left to ``json.loads`` (which has a recursion limit of its own).
MAX_DEPTH = 512
#: Objects with more keys than this check repeated keys by sorting their hashes when they close.
_LINEAR_KEYS = 32
_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)

# Parser states: what may come next.
_VALUE, _VALUE_OR_CLOSE, _KEY, _KEY_OR_CLOSE, _COLON, _COMMA_OR_CLOSE, _DONE = range(7)


def fnv1a(data: bytes) -> int:
    """The 64-bit FNV-1a hash of `data` as a signed 64-bit integer, as the tokenizer gives each key.

    Examples
    --------
    >>> fnv1a(b"score") == fnv1a(b"score") != fnv1a(b"scores")
    True
    """
    value = 14695981039346656037
    for byte in data:
        value = ((value ^ byte) * 1099511628211) % 2**64
    return value - 2**64 if value >= 2**63 else value


@jit
def _capacity(buf: np.ndarray) -> tuple[int, int]:
    """At least the number of tokens of the text, and of its keys: ``(tokens, keys)``.

    Every token but the first follows a ``[``, ``{``, ``,`` or ``:``, and every key comes before a
    ``:`` (these bytes inside strings or before an empty container only make the bound looser):
    the arrays are made once, so that the tokenizer never grows them (an array reassigned in its
    loop costs reference counting per token).
    """
    tokens = 1
    keys = 1
    for k in range(buf.size):
        c = buf[k]
        if c == 58:
            tokens += 1
            keys += 1
        elif c == 44 or c == 123 or c == 91:
            tokens += 1
    return tokens, keys


@jit
def _tokenize(
    buf: np.ndarray,
    begin: int,
    end: int,
    inherited: int,
    ends_at: int,
    kind: np.ndarray,
    start: np.ndarray,
    stop: np.ndarray,
    integer: np.ndarray,
    base: int,
    key_capacity: int,
    outer_stops: np.ndarray,
    nan_word: np.ndarray,
    infinity_word: np.ndarray,
    true_word: np.ndarray,
    false_word: np.ndarray,
    null_word: np.ndarray,
) -> tuple[int, int, bool, bool, int]:
    """Tokenize ``buf[begin:end]`` into the arrays from token `base` on: ``(tokens, status, non_ascii, escaped_keys,
    list_token)``.

    The whole text: `inherited` and `ends_at` 0. A piece of a list of items (see `list_pieces`) that
    is the top value (depth 1) or a value of the top object (depth 2): a piece after the first
    starts within the list (`inherited` is the depth: its items are the first values, the
    containers' tokens are in the first piece), and a piece before the last wants to end after
    an item's comma at that depth (`ends_at`). The first piece gives the list's token
    (`list_token`, else -1); the last writes the token after each container it closes but did
    not open, by depth, into `outer_stops`. A piece before the last that closes such a container
    has a cut elsewhere than in one list: SYNTAX_ERROR (the text is then read whole).
    """
    # The helpers are closures: numba inlines them without counting references to `buf` on every
    # call, which for functions taking the array costs two atomic operations a token (measured:
    # a loop of number parsing 4x slower).
    n = end

    def is_space(c: int) -> bool:
        return c == 32 or c == 10 or c == 13 or c == 9

    def literal(i: int, word: np.ndarray) -> bool:
        """Whether the bytes at `i` spell `word` (an array of bytes)."""
        if i + word.size > n:
            return False
        for k in range(word.size):
            if buf[i + k] != word[k]:
                return False
        return True

    def string_end(i: int) -> tuple[int, int]:
        """``(stop, flags)`` of the string whose first byte (after the quote) is at `i`: stop is its closing quote.

        flags: 1 escaped, 2 non-ASCII; stop -1 for an invalid string (unterminated, a control character,
        a bad escape).
        """
        flags = 0
        while i < n:
            c = buf[i]
            if c == 34:  # "
                return i, flags
            if c == 92:  # backslash
                flags |= 1
                if i + 1 >= n:
                    return -1, flags
                e = buf[i + 1]
                if e == 117:  # \uXXXX
                    if i + 6 > n:
                        return -1, flags
                    for k in range(i + 2, i + 6):
                        h = buf[k]
                        if not ((48 <= h <= 57) or (65 <= h <= 70) or (97 <= h <= 102)):
                            return -1, flags
                    i += 6
                    continue
                if not (e == 34 or e == 92 or e == 47 or e == 98 or e == 102 or e == 110 or e == 114 or e == 116):
                    return -1, flags
                i += 2
                continue
            if c < 32:
                return -1, flags
            if c >= 128:
                flags |= 2
            i += 1
        return -1, flags

    def hash_of(start: int, stop: int) -> int:
        value = np.uint64(14695981039346656037)
        prime = np.uint64(1099511628211)
        for k in range(start, stop):
            value = (value ^ np.uint64(buf[k])) * prime
        return int(np.int64(value))

    def same_bytes(a: int, a_stop: int, b: int, b_stop: int) -> bool:
        if a_stop - a != b_stop - b:
            return False
        for k in range(a_stop - a):
            if buf[a + k] != buf[b + k]:
                return False
        return True

    number = integer.view(np.float64)  # one slot per token: a number's bits or an integer (a key's hash)
    stack = np.empty(MAX_DEPTH + 1, dtype=np.int64)  # the open containers' tokens
    open_kind = np.empty(MAX_DEPTH + 1, dtype=np.uint8)  # and their kinds
    key_base = np.empty(MAX_DEPTH + 1, dtype=np.int64)  # where each open object's keys begin in `keys`
    keys = np.empty(key_capacity, dtype=np.int64)  # key tokens of the open objects

    def read_string(i: int, token: int, plain: int, escaped: int) -> tuple[int, int]:
        """Write `token`, the string whose quote is at `i` (of kind `plain`, or `escaped` if it holds an escape).

        Its closing quote and its flags (see `string_end`); -1 for an invalid string.
        """
        end, flags = string_end(i + 1)
        kind[token] = escaped if flags & 1 else plain
        start[token], stop[token] = i + 1, end
        return end, flags

    def sorted_repeat(first: int, last: int) -> bool:
        """Whether two keys of ``keys[first:last]`` (one object's) have the same bytes: sorted hashes compared."""
        key_tokens = keys[first:last]
        order = np.argsort(integer[key_tokens])
        for k in range(1, order.size):
            b = key_tokens[order[k]]
            # Equal hashes run together; compare this key with every earlier one of the run.
            j = k - 1
            while j >= 0 and integer[key_tokens[order[j]]] == integer[b]:
                other = key_tokens[order[j]]
                if same_bytes(start[other], stop[other], start[b], stop[b]):
                    return True
                j -= 1
        return False

    depth = 0
    for level in range(inherited):  # within the list (and the top object), whose tokens are in the first piece
        stack[level], key_base[level] = -1, 0
        open_kind[level] = ARRAY if level == inherited - 1 else OBJECT
        depth += 1
    n_keys = 0
    count = base
    status = OK
    non_ascii = False
    escaped_keys = False
    state = _VALUE
    i = begin
    if begin == 0 and n >= 3 and buf[0] == 0xEF and buf[1] == 0xBB and buf[2] == 0xBF:
        i = 3  # a UTF-8 byte-order mark
    while True:
        while i < n and is_space(buf[i]):
            i += 1
        if i >= n:
            break
        c = buf[i]
        if state == _DONE:
            status = SYNTAX_ERROR
            break
        if state == _COMMA_OR_CLOSE:
            is_object = open_kind[depth - 1] == OBJECT
            if c == 44:  # ,
                state = _KEY if is_object else _VALUE
                i += 1
                continue
            if (c == 125 and is_object) or (c == 93 and not is_object):
                state = _COMMA_OR_CLOSE  # closed below
            else:
                status = SYNTAX_ERROR
                break
        if (
            (state == _COMMA_OR_CLOSE)
            or (state == _KEY_OR_CLOSE and c == 125)
            or (state == _VALUE_OR_CLOSE and c == 93)
        ):
            closing = stack[depth - 1]
            if closing >= 0:
                stop[closing] = count
            elif ends_at > 0:
                status = SYNTAX_ERROR  # a piece before the last leaves the list it was cut in
                break
            else:
                outer_stops[depth - 1] = count  # the list or the top object, opened in the first piece
            if open_kind[depth - 1] == OBJECT:
                first = key_base[depth - 1]
                if n_keys - first > _LINEAR_KEYS and sorted_repeat(first, n_keys):
                    status = DUPLICATE_KEY
                    break
                n_keys = first
            depth -= 1
            state = _COMMA_OR_CLOSE if depth > 0 else _DONE
            i += 1
            continue
        if state == _KEY or state == _KEY_OR_CLOSE:
            if c != 34:
                status = SYNTAX_ERROR
                break
            end, flags = read_string(i, count, KEY, ESCAPED_KEY)
            if end < 0:
                status = SYNTAX_ERROR
                break
            escaped_keys |= (flags & 1) != 0
            non_ascii |= (flags & 2) != 0
            integer[count] = hash_of(i + 1, end)
            first = key_base[depth - 1]
            if n_keys - first <= _LINEAR_KEYS:
                for k in range(first, n_keys):
                    other = keys[k]
                    if integer[other] == integer[count] and same_bytes(start[other], stop[other], i + 1, end):
                        status = DUPLICATE_KEY
                if status != OK:
                    break
            keys[n_keys] = count
            n_keys += 1
            count += 1
            i = end + 1
            state = _COLON
            continue
        if state == _COLON:
            if c != 58:
                status = SYNTAX_ERROR
                break
            i += 1
            state = _VALUE
            continue
        # A value (state _VALUE or _VALUE_OR_CLOSE).
        start[count] = i
        if c == 123 or c == 91:  # { or [
            if depth >= MAX_DEPTH:
                status = TOO_DEEP
                break
            kind[count] = OBJECT if c == 123 else ARRAY
            stack[depth], open_kind[depth] = count, kind[count]
            key_base[depth] = n_keys
            depth += 1
            count += 1
            i += 1
            state = _KEY_OR_CLOSE if c == 123 else _VALUE_OR_CLOSE
            continue
        if c == 34:
            end, flags = read_string(i, count, STRING, ESCAPED_STRING)
            if end < 0:
                status = SYNTAX_ERROR
                break
            non_ascii |= (flags & 2) != 0
            i = end + 1
        elif c == 45 or (48 <= c <= 57):
            if c == 45 and literal(i + 1, infinity_word):
                kind[count], number[count], stop[count] = FLOAT, -np.inf, i + 1 + infinity_word.size
            else:  # its text: read by `decimals.read_numbers` after the pass, with JSON's grammar
                end = i + 1
                while end < n and ((48 <= buf[end] <= 57) or buf[end] in (43, 45, 46, 69, 101)):
                    end += 1
                kind[count], stop[count] = NUMBER, end
            i = stop[count]
        elif literal(i, true_word):
            kind[count], stop[count] = TRUE, i + true_word.size
            i = stop[count]
        elif literal(i, false_word):
            kind[count], stop[count] = FALSE, i + false_word.size
            i = stop[count]
        elif literal(i, null_word):
            kind[count], stop[count] = NULL, i + null_word.size
            i = stop[count]
        elif literal(i, nan_word):
            kind[count], number[count], stop[count] = FLOAT, np.nan, i + nan_word.size
            i = stop[count]
        elif literal(i, infinity_word):
            kind[count], number[count], stop[count] = FLOAT, np.inf, i + infinity_word.size
            i = stop[count]
        else:
            status = SYNTAX_ERROR
            break
        count += 1
        state = _COMMA_OR_CLOSE if depth > 0 else _DONE
    if status == OK and (state != _VALUE or depth != ends_at if ends_at > 0 else state != _DONE):
        status = SYNTAX_ERROR  # the text ends inside a value, or holds none; a piece ends elsewhere than after an item
    list_token = stack[ends_at - 1] if status == OK and ends_at > 0 else -1
    return count - base, status, non_ascii, escaped_keys, list_token


def tokenize(data: bytes | np.ndarray) -> tuple[Any, ...]:
    """Tokenize JSON text: ``(kind, start, stop, integer, number, status, non_ascii, escaped_keys)``.

    `integer` and `number` are two views of one array: a token is an integer or a number, not both.
    A large list of objects is tokenized in pieces on several threads (`list_pieces`).

    Examples
    --------
    >>> kind, start, stop, integer, number, status, non_ascii, escaped = tokenize(b'{"a": [1, 2.5]}')
    >>> kind.tolist(), stop.tolist(), status
    ([0, 2, 1, 6, 7], [5, 3, 5, 8, 13], 0)
    >>> int(integer[3]), float(number[4])
    (1, 2.5)
    """
    buf = np.frombuffer(data, dtype=np.uint8) if not isinstance(data, np.ndarray) else data
    pieces, depth = list_pieces(buf)
    tokens = _tokenize_pieces(buf, pieces, depth)
    if len(pieces) > 2 and tokens[4] != OK:  # pieces that do not join (a boundary inside a string), or a fault
        tokens = _tokenize_pieces(buf, [0, buf.size])  # read whole: the fault as one pass finds it
    kind, start, stop, integer, status, non_ascii, escaped_keys = tokens
    if status == OK and not read_numbers(buf, kind, start, stop, integer, strict=True):
        status = SYNTAX_ERROR
    return kind, start, stop, integer, integer.view(np.float64), status, non_ascii, escaped_keys


#: Texts from this size are tokenized in pieces on several threads (when the top value is a list of objects, or an
#: object whose large value is one).
PIECE_BYTES = 1 << 21
#: Where a piece may begin: the opening brace of an object that follows another in a list.
_BOUNDARY = re.compile(rb"\}[ \t\r\n]*,[ \t\r\n]*\{")
_WORDS = [np.frombuffer(word, dtype=np.uint8) for word in (b"NaN", b"Infinity", b"true", b"false", b"null")]


def wanted_pieces() -> int:
    """One piece per thread the compiled code may use (`geoiou.set_threads`)."""
    return threads.limit() or int(config.NUMBA_NUM_THREADS)


def first_byte(buf: np.ndarray) -> int:
    """The first byte of the text past whitespace and a byte-order mark (within its first 64 bytes), or -1.

    Examples
    --------
    >>> first_byte(np.frombuffer(b"  \\n [1]", dtype=np.uint8)) == ord("[")
    True
    """
    found = np.flatnonzero(~np.isin(buf[:64], (32, 9, 10, 13, 0xEF, 0xBB, 0xBF)))
    return int(buf[found[0]]) if found.size else -1


def list_pieces(buf: np.ndarray) -> tuple[list[int], int]:
    """Where the pieces of the text begin, and its end: ``[0, ..., len(buf)]``; and the depth of the list cut.

    A text of `PIECE_BYTES` or more whose first value opens a list (depth 1) or an object (depth
    2: a list that is one of its values, such as a COCO file's ``"annotations"``) is cut, once per
    thread, at the first ``}, {`` after an even share of its bytes. Such bytes can also stand
    inside a string or in a list at another depth: each piece then checks that it ends right
    after an item of a list at that depth (`_tokenize`'s `ends_at`), and that it stays in the
    list it was cut in, which a wrong cut cannot both do; the text is then read whole.
    """
    wanted = wanted_pieces()
    depth = {ord("["): 1, ord("{"): 2}.get(first_byte(buf), 0)
    if wanted < 2 or buf.size < PIECE_BYTES or not depth:
        return [0, buf.size], 0
    view = buf.data  # the bytes, searched in place
    bounds = [0]
    for share in range(1, wanted):
        found = _BOUNDARY.search(view, max(share * buf.size // wanted, bounds[-1] + 1))
        if found is None:
            break
        bounds.append(found.end() - 1)
    return [*bounds, buf.size], depth


def _tokenize_pieces(buf: np.ndarray, pieces: list[int], depth: int = 0) -> tuple[Any, ...]:
    """The tokens of the text cut at `pieces` in a list at `depth`, each piece on a thread of its own, joined (a
    status other than `OK` if some piece is not JSON or does not end where the next begins).

    Each piece writes its tokens from its own base (its share of the arrays, from `_capacity`);
    the pieces after the first are then moved down against the one before, their containers'
    stops with them.
    """
    bounds = list(zip(pieces[:-1], pieces[1:]))
    capacities = [_capacity(buf[begin:end]) for begin, end in bounds]
    # A piece before the last ends with the comma before the next piece's first item (`list_pieces`), whose
    # token is the next piece's: not counted, a list of plain records is bounded exactly and joins in place.
    bases = np.cumsum([0] + [tokens - (k < len(bounds) - 1) for k, (tokens, _) in enumerate(capacities)])
    kind, start, stop, integer = _TOKEN_TABLE.take((int(bases[-1]),))

    outer_stops = np.full(2, -1, dtype=np.int64)  # written by the last piece

    def piece(k: int) -> tuple[int, int, bool, bool, int]:
        begin, end = bounds[k]
        last = k == len(bounds) - 1
        arrays = (kind, start, stop, integer, int(bases[k]), capacities[k][1], outer_stops)
        return _tokenize(buf, begin, end, depth if k > 0 else 0, 0 if last else depth, *arrays, *_WORDS)

    results = threads.on_threads(piece, len(bounds))  # the compiled pass releases the GIL
    status = max(status for _, status, *_ in results)
    if status != OK:
        return kind[:0], start[:0], stop[:0], integer[:0], status, False, False
    # The containers the last piece closes but did not open: the top value, and for a list in the top object the list.
    inherited = [0, results[0][4]][:depth]
    count = _joined(kind, start, stop, integer, bases, [found for found, *_ in results], inherited, outer_stops)
    if depth == 2 and _repeats_a_key(buf, kind, start, stop):
        status = DUPLICATE_KEY  # the top object's keys before the list and after it, each piece checking its own
    non_ascii = any(flag for _, _, flag, _, _ in results)
    escaped_keys = any(flag for _, _, _, flag, _ in results)
    return kind[:count], start[:count], stop[:count], integer[:count], status, non_ascii, escaped_keys


#: The token table, kept for the next text (`geoiou.io.kept_arrays`).
_TOKEN_TABLE = KeptArrays((np.uint8, np.int64, np.int64, np.int64))


def _joined(
    kind: np.ndarray,
    start: np.ndarray,
    stop: np.ndarray,
    integer: np.ndarray,
    bases: np.ndarray,
    counts: list[int],
    inherited: list[int],
    outer_stops: np.ndarray,
) -> int:
    """Move each piece's tokens down against the piece before (containers' stops shifted alike); the count.

    The `inherited` containers (their tokens, by depth), opened by the first piece and closed by
    the last, get their stops from `outer_stops`.
    """
    at = counts[0]
    for base, count in zip(bases[1:-1].tolist(), counts[1:]):
        shift = base - at
        if shift == 0:  # the bound was exact (no empty container, no `,:[{` inside a string before): in place
            at += count
            continue
        moved = slice(at, at + count)
        kind[moved], start[moved], stop[moved], integer[moved] = (
            kind[base : base + count],
            start[base : base + count],
            stop[base : base + count],
            integer[base : base + count],
        )
        containers = (kind[moved] == OBJECT) | (kind[moved] == ARRAY)
        stop[moved][containers] -= shift
        at += count
    if len(counts) > 1:
        shift = bases[-2] - (at - counts[-1])  # the last piece's
        for level, token in enumerate(inherited):
            stop[token] = outer_stops[level] - shift
    return at


def _repeats_a_key(buf: np.ndarray, kind: np.ndarray, start: np.ndarray, stop: np.ndarray) -> bool:
    """Whether the top object (token 0) has a key twice: its few keys, walked in Python."""
    seen = set()
    t = 1
    while t < stop[0]:
        key = buf[start[t] : stop[t]].tobytes()
        if key in seen:
            return True
        seen.add(key)
        t += 1  # the key's value
        t = int(stop[t]) if kind[t] == OBJECT or kind[t] == ARRAY else t + 1
    return False
