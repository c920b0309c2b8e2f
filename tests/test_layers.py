"""The house as docs/design.md draws it: no import runs up the layers.

Every module of the package is read with `ast` (nothing is imported) and each of its import
statements is checked against the layer table below: a module imports from its own layer and from
the rows below it, never from a row above nor from the other layers of its own row. An import at
module level (``if TYPE_CHECKING:`` blocks included: a type is a dependency too) that breaks this
is always a fault. One inside a function (a lazy import) is allowed only where `DELIBERATE` lists
it with its reason; an entry there that no longer occurs is a fault too, so the list cannot rot.

What a statement imports is the module it names: ``from geoiou.regions import Box`` imports
``geoiou.regions``, ``from geoiou import rle`` imports ``geoiou.rle``, ``from geoiou import Box``
imports the package ``geoiou`` itself (the public namespace, in the matching row). Python runs the
parent packages of a module first, so ``import geoiou.rle`` also runs ``geoiou/__init__.py``: the
namespace is loaded before anything else and is not counted as a dependency of what it contains.

A new module must be given a layer here (the test says which are missing): its place is the row
of the highest layer it imports from, or lower if the design asks it to be.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "geoiou"

#: The layers, top to bottom. A module imports from its own layer and from the rows below; the
#: layers side by side in one row never import each other.
ROWS: tuple[tuple[str, ...], ...] = (
    ("cli",),
    ("plot", "dask", "report", "dropin"),
    ("diagnostics",),  # read evaluation states and results, never files: below every presentation of them
    ("io", "evaluation"),  # readers hand over tables and know no protocol; protocols know no file format
    ("matching",),
    ("metrics",),
    ("kernels",),
    ("dispatch",),
    ("tables",),
    ("regions",),
    ("foundation",),
)

#: Module or package (then every module in it) -> its layer; the most specific entry wins. The
#: comment gives the reason where the layer is not the module's own name.
LAYER_OF: dict[str, str] = {
    "geoiou.cli": "cli",
    "geoiou.demo": "cli",  # `geoiou demo`: reads the bundled files and prints an evaluation
    "geoiou.tour": "cli",  # the tour `geoiou demo` runs: every reader, evaluation and picture
    "geoiou.plot": "plot",
    "geoiou.report": "report",  # the HTML report page: its own SVG charts and drawings, no matplotlib
    "geoiou.diagnostics": "diagnostics",
    # pycocotools' and lvis-api's API over the COCO readers and the COCO matcher: above io and evaluation both
    "geoiou.pycocotools": "dropin",
    "geoiou.lvis": "dropin",
    "geoiou.dask": "dask",
    "geoiou.io": "io",
    "geoiou.evaluation": "evaluation",
    "geoiou": "matching",  # the package namespace: re-exports regions, metrics, overlaps and match
    "geoiou.matching": "matching",
    "geoiou.grouped_overlaps": "matching",  # the overlaps within groups that matching and agreement take
    "geoiou.metrics": "metrics",
    "geoiou.boundary": "metrics",  # boundary IoU: the IoU metrics over the regions' bands
    "geoiou.signed": "metrics",  # signed IoU of boxes and intervals: a metric without the kernel table
    "geoiou.sparse": "metrics",  # overlaps(): the sparse pairwise metric, on the kernels like pairwise_*
    "geoiou.bev": "metrics",  # bird's-eye-view IoU: the IoU of the footprints of 3-D regions
    "geoiou.kernels": "kernels",
    "geoiou._compiled": "foundation",  # how code is compiled (numba); modules import it lazily below the kernels
    "geoiou._core": "foundation",  # the compiled core (the crate): plain arrays in and out, it imports no geoiou module
    "geoiou._contiguous": "foundation",  # arrays as the crate reads them
    "geoiou._pages": "foundation",  # outputs' pages touched before threads write them
    "geoiou.dispatch": "dispatch",
    "geoiou.tables": "tables",  # Annotations, TemporalSegments: what readers build and evaluations take
    "geoiou.rle_rasterize": "kernels",  # pycocotools' rasterizer: its loop is compiled (raster_loops), as kernels are
    "geoiou.raster_loops": "kernels",  # the rasterizer's entry into the compiled core (src/raster.rs)
    "geoiou.regions": "regions",
    "geoiou.errors": "foundation",
    "geoiou._validation": "foundation",
    "geoiou.rle": "foundation",
    "geoiou.threads": "foundation",
    "geoiou._ranges": "foundation",
    "geoiou._placing": "foundation",
    "geoiou._distinct": "foundation",  # distinct values by a sort (NumPy 2's hashing np.unique is slow on many ids)
    "geoiou._progress": "foundation",
    "geoiou._collection": "foundation",
    "geoiou.threshold_score": "foundation",  # a function of IoU arrays: it needs no region
}

#: Lazy imports that run up the layers on purpose: (importing module, imported module) -> why.
DELIBERATE: dict[tuple[str, str], str] = {
    (
        "geoiou.regions.base",
        "geoiou.metrics",
    ): "Region.iou, intersection_area and union_area are shorthands for the metrics, imported when "
    "called: regions load without metrics (which import regions), and a call finds them loaded by "
    "`import geoiou`",
}

ROW_OF = {layer: row for row, layers in enumerate(ROWS) for layer in layers}


class Import(NamedTuple):
    """One imported module of one statement."""

    module: str  # the importing module
    path: str  # its file, relative to the repository
    line: int
    target: str  # the imported module (or package)
    lazy: bool  # inside a function
    typing_only: bool  # under ``if TYPE_CHECKING:``


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> str | None:
    """The layer of the most specific entry of `LAYER_OF` that is `module` or a package holding it."""
    if module in LAYER_OF:
        return LAYER_OF[module]
    parts = module.split(".")
    for end in range(len(parts) - 1, 1, -1):  # "geoiou" alone names only the package's own namespace
        layer = LAYER_OF.get(".".join(parts[:end]))
        if layer is not None:
            return layer
    return None


def imports_of(module: str, path: Path, modules: set[str]) -> list[Import]:
    """The package's modules that each import statement of `module` names, with its line and whether it is lazy."""
    tree = ast.parse(path.read_text(), filename=str(path))
    is_package = path.name == "__init__.py"
    found: list[Import] = []

    def visit(node: ast.AST, lazy: bool, typing_only: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = lazy or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            typing = typing_only or (isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test))
            if isinstance(child, ast.Import):
                targets = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = module.split(".")[: len(module.split(".")) - child.level + is_package]
                    source = ".".join(base + ([child.module] if child.module else []))
                else:
                    source = child.module or ""
                # `from package import name` names the submodule when there is one, else the package.
                targets = [
                    f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else source for alias in child.names
                ]
            else:
                visit(child, inner, typing)
                continue
            rel = path.relative_to(ROOT).as_posix()
            found.extend(
                Import(module, rel, child.lineno, target, inner, typing)
                for target in dict.fromkeys(targets)
                if target == "geoiou" or target.startswith("geoiou.")
            )

    visit(tree, False, False)
    return found


def all_imports() -> list[Import]:
    modules = package_modules()
    # The compiled core is a module too (its stub stands for it), though no .py file holds it.
    known = set(modules) | {module_name(stub) for stub in PACKAGE.rglob("*.pyi")}
    return [found for module, path in modules.items() for found in imports_of(module, path, known)]


def breaks_the_layers(found: Import) -> bool:
    """Whether `found` imports from a row above its module's, or from another layer of the same row."""
    own, other = layer_of(found.module), layer_of(found.target)
    assert own is not None and other is not None  # test_every_module_has_a_layer says which are not
    return ROW_OF[other] < ROW_OF[own] or (ROW_OF[other] == ROW_OF[own] and other != own)


def describe(found: Import) -> str:
    where = "in a function" if found.lazy else "under TYPE_CHECKING" if found.typing_only else "at module level"
    return (
        f"{found.path}:{found.line}: {found.module} ({layer_of(found.module)}) imports "
        f"{found.target} ({layer_of(found.target)}) {where}"
    )


def test_the_layer_table_is_consistent():
    assert len(ROW_OF) == sum(len(row) for row in ROWS), "a layer appears in two rows"
    assert set(LAYER_OF.values()) <= set(ROW_OF), set(LAYER_OF.values()) - set(ROW_OF)


def test_every_module_has_a_layer():
    missing = [module for module in package_modules() if layer_of(module) is None]
    assert not missing, f"give these modules a layer in LAYER_OF: {missing}"


def test_no_import_runs_up_the_layers():
    faults = [
        describe(found)
        for found in all_imports()
        if breaks_the_layers(found) and not (found.lazy and (found.module, found.target) in DELIBERATE)
    ]
    if faults:
        pytest.fail("imports that run up the layers (docs/design.md, Layers):\n" + "\n".join(faults), pytrace=False)


def test_every_deliberate_lazy_import_still_occurs_and_still_needs_to_be_lazy():
    lazy_ups = {(found.module, found.target) for found in all_imports() if found.lazy and breaks_the_layers(found)}
    stale = sorted(set(DELIBERATE) - lazy_ups)
    assert not stale, f"DELIBERATE lists imports that no longer run up the layers lazily: {stale}"


def test_the_walk_sees_lazy_and_type_checking_imports():
    # The walker itself: imports in functions are lazy, those under TYPE_CHECKING are marked and
    # counted as module level, `from package import module` names the module.
    found = {(f.target, f.lazy) for f in all_imports() if f.module == "geoiou.regions.base"}
    assert ("geoiou.metrics", True) in found and ("geoiou.errors", False) in found
    found = {
        (f.target, f.typing_only) for f in all_imports() if f.module == "geoiou.regions.mask_conversions" and not f.lazy
    }
    assert {("geoiou.regions.mask", True), ("geoiou.regions.coverage", False)} <= found
    assert ("geoiou.io.coco", "geoiou.rle") in {(f.module, f.target) for f in all_imports()}
