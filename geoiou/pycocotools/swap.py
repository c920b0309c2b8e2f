"""`init_as_pycocotools`: ``import pycocotools`` gives `geoiou.pycocotools` for the rest of the process.

The swap writes the four module names into ``sys.modules`` (``pycocotools``, ``pycocotools.coco``,
``pycocotools.cocoeval``, ``pycocotools.mask``), so every later ``import`` and ``from ... import``
of them, in any library, resolves to geoiou's. Modules that imported pycocotools before keep what
they hold: call it first, at the top of the program. `restore_pycocotools` puts back what was there.
"""

from __future__ import annotations

import sys
from types import ModuleType

__all__ = ["init_as_pycocotools", "restore_pycocotools"]

_NAMES = ("pycocotools", "pycocotools.coco", "pycocotools.cocoeval", "pycocotools.mask")
#: What ``sys.modules`` held under the names before the swap (None: nothing).
_saved: dict[str, ModuleType | None] = {}


def init_as_pycocotools() -> None:
    """Make ``pycocotools``, ``pycocotools.coco``, ``pycocotools.cocoeval`` and ``pycocotools.mask`` geoiou's.

    Examples
    --------
    >>> init_as_pycocotools()
    >>> import pycocotools.mask
    >>> pycocotools.mask.__name__
    'geoiou.pycocotools.mask'
    >>> restore_pycocotools()
    """
    import geoiou.pycocotools as package
    from geoiou.pycocotools import coco, cocoeval, mask

    modules = {
        "pycocotools": package,
        "pycocotools.coco": coco,
        "pycocotools.cocoeval": cocoeval,
        "pycocotools.mask": mask,
    }
    for name, module in modules.items():
        if name not in _saved:
            _saved[name] = sys.modules.get(name)
        sys.modules[name] = module


def restore_pycocotools() -> None:
    """Undo `init_as_pycocotools`: the names give what they gave before (or nothing, if nothing was imported).

    Examples
    --------
    >>> restore_pycocotools()  # without a swap, nothing to undo
    """
    for name, module in _saved.items():
        if module is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = module
    _saved.clear()
