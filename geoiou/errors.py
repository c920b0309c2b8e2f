"""Exceptions raised by geoiou.

Each subclasses the builtin that callers already catch, so ``except ValueError`` keeps working.
"""

from __future__ import annotations

__all__ = [
    "BatchIndexError",
    "FormatError",
    "FrozenRegionError",
    "GeoIoUError",
    "InvalidArgumentError",
    "InvalidRegionError",
    "InvalidTypeError",
    "MismatchError",
    "NotReadyError",
    "UnknownNameError",
    "UnsupportedPairError",
]


class GeoIoUError(Exception):
    """Base class of every error geoiou raises on purpose."""


class InvalidRegionError(GeoIoUError, ValueError):
    """A region was built from values that do not describe a valid region."""


class UnsupportedPairError(GeoIoUError, TypeError):
    """Two regions (or a region and a metric) cannot be compared."""


class InvalidArgumentError(GeoIoUError, ValueError):
    """An option passed to a function is outside its accepted values, or batches do not fit together."""


class InvalidTypeError(GeoIoUError, TypeError):
    """A value has a type geoiou does not take where it was given.

    Not a region where one is expected (a list or a shapely geometry given to `iou`: the message
    names the constructor to use), a region of another kind among those joined, a single region
    where a batch is needed (``len``), or an array that cannot be read here (a tensor that
    requires grad or lives on a GPU).
    """


class BatchIndexError(GeoIoUError, IndexError):
    """An index selects regions outside a batch."""


class FrozenRegionError(GeoIoUError, AttributeError):
    """An attribute of a region (or of `Annotations`) was set: they are immutable."""


class UnknownNameError(GeoIoUError, KeyError):
    """A result was asked for a number it does not have (``result["AP60"]``); the message lists those it has."""

    def __str__(self) -> str:  # KeyError would print the message quoted
        return str(self.args[0]) if self.args else ""


class MismatchError(GeoIoUError, AssertionError):
    """Inputs that must correspond do not: results naming images a dataset lacks, crowd flags not one per ground
    truth. An `AssertionError`, as pycocotools' own checks of the same (`geoiou.pycocotools`)."""


class NotReadyError(GeoIoUError, RuntimeError):
    """A step was asked for before the one it reads (``summarize`` before ``accumulate``)."""


class FormatError(GeoIoUError, ValueError):
    """An annotation file or literal is malformed; the message names the file, the line or record, and what was wrong.

    Attributes
    ----------
    source : str
        The file (or ``"<literal>"``, ``"<string>"``) that was read.
    location : str
        Where in it: ``"line 12"``, ``"annotations[3]"``, ``"database['v_x'].annotations[0]"``; empty
        when the whole file is at fault.
    reason : str
        What was wrong, in the form ``'{field}' must be {expected} (got {value})`` where it applies.
    """

    def __init__(self, source: str, location: str, reason: str) -> None:
        self.source, self.location, self.reason = source, location, reason
        where = ", ".join(part for part in (source, location) if part)
        super().__init__(f"{where}: {reason}" if where else reason)
