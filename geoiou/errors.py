"""Exceptions raised by geoiou.

Each subclasses the builtin that callers already catch, so ``except ValueError`` keeps working.
"""

from __future__ import annotations

__all__ = ["FormatError", "GeoIoUError", "InvalidArgumentError", "InvalidRegionError", "UnsupportedPairError"]


class GeoIoUError(Exception):
    """Base class of every error geoiou raises on purpose."""


class InvalidRegionError(GeoIoUError, ValueError):
    """A region was built from values that do not describe a valid region."""


class UnsupportedPairError(GeoIoUError, TypeError):
    """Two regions (or a region and a metric) cannot be compared."""


class InvalidArgumentError(GeoIoUError, ValueError):
    """An option passed to a function is outside its accepted values."""


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
