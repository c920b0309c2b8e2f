"""The documentation site builds with ``mkdocs build --strict`` and holds what it promises.

The site is built once per session into a temporary directory (about 10 s: the gallery pictures
are drawn by geoiou.plot during the build). The checks read the built HTML: every public name of
each documented module has its own entry with its docstring, every gallery block produced its
picture, and nothing is fetched from the network.
"""

from __future__ import annotations

import html
import importlib
import importlib.util
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mkdocs")
pytest.importorskip("mkdocstrings")
pytest.importorskip("material")
pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parents[1]
HOOK = ROOT / "docs" / "hooks" / "gallery.py"
# The API reference: one page per public module.
API_PAGES = {
    "geoiou": "api/geoiou/index.html",
    "geoiou.evaluation": "api/evaluation/index.html",
    "geoiou.diagnostics": "api/diagnostics/index.html",
    "geoiou.io": "api/io/index.html",
    "geoiou.dask": "api/dask/index.html",
    "geoiou.plot": "api/plot/index.html",
    "geoiou.rle": "api/rle/index.html",
    "geoiou.pycocotools": "api/pycocotools/index.html",
    "geoiou.lvis": "api/lvis/index.html",
}
NAV_PAGES = [
    "index.html",
    "getting-started/index.html",
    "conventions/index.html",
    "howto/diagnose/index.html",
    "howto/dota/index.html",
    "howto/temporal/index.html",
    "howto/mixed-geometries/index.html",
    "howto/3d-detection/index.html",
    "howto/compare/index.html",
    "evaluation-detection/index.html",
    "pycocotools/index.html",
    "evaluation-temporal/index.html",
    "evaluation-segmentation/index.html",
    "cli/index.html",
    "gallery/index.html",
    "performance/index.html",
    "scaling-out/index.html",
    "design/index.html",
]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def build(config: Path, site: Path) -> subprocess.CompletedProcess:
    """Run ``mkdocs build --strict`` on `config` into `site`, as a separate process."""
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config), "--site-dir", str(site)],
        cwd=config.parent,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )


def plain_text(page: str) -> str:
    """The page's text without tags, entities decoded and whitespace collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("docs") / "site"
    result = build(ROOT / "mkdocs.yml", directory)
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stderr[-5000:]}"
    return directory


def load_gallery_hook():
    spec = importlib.util.spec_from_file_location("docs_gallery_hook", HOOK)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_every_navigation_page_is_built(site):
    missing = [page for page in NAV_PAGES if not (site / page).is_file()]
    assert missing == []


@pytest.mark.parametrize("module_name", list(API_PAGES))
def test_api_page_documents_every_public_name_with_its_docstring(site, module_name):
    module = importlib.import_module(module_name)
    page = (site / API_PAGES[module_name]).read_text(encoding="utf-8")
    text = plain_text(page)
    # Classes and functions; constants (e.g. threshold tuples) have no docstring of their own to show.
    names = [
        name
        for name in module.__all__
        if inspect.isclass(getattr(module, name)) or inspect.isfunction(getattr(module, name))
    ]
    assert names, f"{module_name}.__all__ lists nothing to document"
    for name in names:
        qualified = f"{module_name}.{name}"
        assert f'id="{qualified}"' in page, f"{qualified} has no entry on {API_PAGES[module_name]}"
        # The summary line, as rendered: markdown backticks become <code> and disappear from the text.
        summary = inspect.getdoc(getattr(module, name)).splitlines()[0].replace("`", "")
        assert " ".join(summary.split()) in text, f"the summary of {qualified} is missing: {summary!r}"


def test_geoiou_api_page_shows_the_iou_docstring_and_its_example(site):
    text = plain_text((site / API_PAGES["geoiou"]).read_text(encoding="utf-8"))
    assert "Return the intersection over union of a and b, elementwise with broadcasting." in text
    assert "zero_division" in text and "Examples" in text


def test_gallery_shows_one_rendered_png_per_block(site):
    hook = load_gallery_hook()
    blocks = hook.gallery_blocks((ROOT / "docs" / "gallery.md").read_text(encoding="utf-8"))
    # The pictures the brief asks for: box, rotated, polygon, mask, interval pairs, a scene, a PR curve.
    assert len(blocks) >= 7
    page = (site / "gallery" / "index.html").read_text(encoding="utf-8")
    for block in blocks:
        image = site / "gallery" / block.name
        assert image.read_bytes()[:8] == PNG_SIGNATURE, f"{block.name} is not a PNG"
        assert image.stat().st_size > 10_000, f"{block.name} is nearly empty ({image.stat().st_size} bytes)"
        assert f'src="{block.name}"' in page or f'src="../gallery/{block.name}"' in page, f"{block.name} is not shown"


def test_site_fetches_nothing_from_the_network(site):
    pages = "".join(path.read_text(encoding="utf-8") for path in site.rglob("*.html"))
    assert "fonts.googleapis.com" not in pages and "fonts.gstatic.com" not in pages
    assert "googletagmanager" not in pages


def write_gallery_site(root: Path, block_code: str) -> Path:
    """A minimal site that uses the gallery hook on one block; return its config file."""
    (root / "docs").mkdir()
    (root / "docs" / "gallery.md").write_text(
        f"# Gallery\n\n```python\n# gallery: picture.png\n{block_code}```\n\n![picture](gallery/picture.png)\n",
        encoding="utf-8",
    )
    config = root / "mkdocs.yml"
    config.write_text(f"site_name: gallery test\nhooks:\n  - {HOOK}\n", encoding="utf-8")
    return config


def test_a_failing_gallery_block_fails_the_build_and_names_the_picture(tmp_path):
    config = write_gallery_site(tmp_path, "import geoiou\nax = geoiou.Box([1, 0, 0, 1])\n")  # an invalid box
    result = build(config, tmp_path / "site")
    assert result.returncode != 0
    assert "gallery picture 'picture.png'" in result.stderr and "InvalidRegionError" in result.stderr


def test_a_working_gallery_block_builds_its_picture(tmp_path):
    code = (
        "import geoiou\nfrom geoiou.plot import plot_pair\n"
        "ax = plot_pair(geoiou.Box([0, 0, 2, 2]), geoiou.Box([1, 1, 3, 3]))\n"
    )
    result = build(write_gallery_site(tmp_path, code), tmp_path / "site")
    assert result.returncode == 0, result.stderr[-3000:]
    assert (tmp_path / "site" / "gallery" / "picture.png").read_bytes()[:8] == PNG_SIGNATURE


def test_gallery_block_without_ax_is_refused():
    hook = load_gallery_hook()
    with pytest.raises(RuntimeError, match="'nothing.png': the code must bind 'ax'"):
        hook.render_block(hook.GalleryBlock("nothing.png", "value = 1\n"))


def test_two_gallery_blocks_naming_one_picture_are_refused():
    hook = load_gallery_hook()
    block = "```python\n# gallery: same.png\nax = None\n```\n"
    with pytest.raises(ValueError, match=r"distinct pictures \(got \['same.png'\]"):
        hook.gallery_blocks(block + "\n" + block)
