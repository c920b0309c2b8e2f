"""Exceptions raised by geoiou.

Each subclasses the builtin that callers already catch, so ``except ValueError`` keeps working.
"""

from __future__ import annotations

__all__ = ["GeoIoUError", "InvalidArgumentError", "InvalidRegionError", "UnsupportedPairError"]


class GeoIoUError(Exception):
    """Base class of every error geoiou raises on purpose."""


class InvalidRegionError(GeoIoUError, ValueError):
    """A region was built from values that do not describe a valid region."""


class UnsupportedPairError(GeoIoUError, TypeError):
    """Two regions (or a region and a metric) cannot be compared."""


class InvalidArgumentError(GeoIoUError, ValueError):
    """An option passed to a function is outside its accepted values."""
