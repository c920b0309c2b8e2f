"""Readers for annotation files; each returns geoiou regions."""

from geoiou.io.dota import DotaObjects, read_dota

__all__ = ["DotaObjects", "read_dota"]
