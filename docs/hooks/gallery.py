"""mkdocs hook that renders the pictures of docs/gallery.md while the site builds.

Each picture is made by a ```python block of the gallery page whose first line is
``# gallery: NAME.png``. The hook runs the block (matplotlib's Agg backend, a fresh namespace)
and adds the figure of the block's ``ax`` to the site as ``gallery/NAME.png``, so the page shows
exactly the code that made each picture and no PNG is ever written to the source tree. Any
failure (an exception in a block, a block without ``ax``, a picture the page does not show)
stops the build.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["GALLERY_PAGE", "GalleryBlock", "gallery_blocks", "on_files", "render_block"]

GALLERY_PAGE = "gallery.md"
IMAGE_DIRECTORY = "gallery"
# A fenced python block whose first line names its picture: the name is group 1, the code group 2.
BLOCK_PATTERN = re.compile(r"^```python\n# gallery: ([\w.-]+\.png)\n(.*?)^```$", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class GalleryBlock:
    """One picture of the gallery: its file name and the code that draws it.

    Examples
    --------
    >>> GalleryBlock("square.png", "ax = None").name
    'square.png'
    """

    name: str
    code: str


def gallery_blocks(markdown: str) -> list[GalleryBlock]:
    """Return the picture blocks of a gallery page, in page order.

    Parameters
    ----------
    markdown : str
        The text of the page.

    Returns
    -------
    list of GalleryBlock
        One per ```python block whose first line is ``# gallery: NAME.png``.

    Raises
    ------
    ValueError
        If two blocks name the same picture.

    Examples
    --------
    >>> page = "Text.\\n\\n```python\\n# gallery: one.png\\nax = draw()\\n```\\n"
    >>> gallery_blocks(page)
    [GalleryBlock(name='one.png', code='ax = draw()\\n')]
    """
    blocks = [GalleryBlock(match.group(1), match.group(2)) for match in BLOCK_PATTERN.finditer(markdown)]
    names = [block.name for block in blocks]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ValueError(f"gallery blocks must name distinct pictures (got {repeated} more than once)")
    return blocks


def render_block(block: GalleryBlock) -> bytes:
    """Run one gallery block with matplotlib's Agg backend and return the PNG of its ``ax``.

    Parameters
    ----------
    block : GalleryBlock
        The code to run; it must bind ``ax`` to a matplotlib Axes.

    Returns
    -------
    bytes
        The PNG image of the figure holding ``ax``.

    Raises
    ------
    RuntimeError
        If the code raises (the message names the picture) or does not bind ``ax``.

    Examples
    --------
    >>> code = "import matplotlib.pyplot as plt\\nfigure, ax = plt.subplots()\\nax.plot([0, 1], [0, 1])\\n"
    >>> render_block(GalleryBlock("line.png", code))[:8]
    b'\\x89PNG\\r\\n\\x1a\\n'
    """
    import matplotlib

    matplotlib.use("Agg", force=True)  # no display on a build machine
    import matplotlib.pyplot as pyplot

    namespace: dict[str, Any] = {"__name__": f"gallery:{block.name}"}
    try:
        exec(compile(block.code, f"<gallery: {block.name}>", "exec"), namespace)  # the page's own code
    except Exception as error:
        raise RuntimeError(f"gallery picture {block.name!r}: its code raised {error!r}") from error
    axes = namespace.get("ax")
    if axes is None or not hasattr(axes, "figure"):
        raise RuntimeError(
            f"gallery picture {block.name!r}: the code must bind 'ax' to a matplotlib Axes (got {axes!r})"
        )
    buffer = io.BytesIO()
    axes.figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    pyplot.close("all")
    return buffer.getvalue()


def on_files(files: Any, config: Any) -> Any:
    r"""mkdocs event: render every gallery picture and add it to the site's files.

    Parameters
    ----------
    files : mkdocs.structure.files.Files
        The site's files, to which ``gallery/NAME.png`` is added for every block.
    config : mkdocs.config.defaults.MkDocsConfig
        The site's configuration (``docs_dir`` locates the gallery page).

    Returns
    -------
    mkdocs.structure.files.Files
        `files` with the pictures added.

    Raises
    ------
    RuntimeError
        If a block fails, or a rendered picture is not shown on the page.

    Examples
    --------
    >>> import tempfile
    >>> from mkdocs.config import load_config
    >>> from mkdocs.structure.files import Files
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "docs").mkdir()
    >>> _ = (root / "mkdocs.yml").write_text(f"site_name: example\nhooks: [{__file__}]\n")
    >>> code = "import matplotlib.pyplot as plt\nfigure, ax = plt.subplots()\n"
    >>> page = f"```python\n# gallery: empty.png\n{code}```\n![](gallery/empty.png)\n"
    >>> _ = (root / "docs" / "gallery.md").write_text(page)
    >>> config = load_config(str(root / "mkdocs.yml"))
    >>> [file.src_uri for file in config.plugins.on_files(Files([]), config=config)]  # as mkdocs calls it
    ['gallery/empty.png']
    """
    from mkdocs.structure.files import File

    markdown = (Path(config["docs_dir"]) / GALLERY_PAGE).read_text(encoding="utf-8")
    for block in gallery_blocks(markdown):
        uri = f"{IMAGE_DIRECTORY}/{block.name}"
        if f"]({uri})" not in markdown:
            raise RuntimeError(
                f"gallery picture {block.name!r} is rendered but {GALLERY_PAGE} does not show it ({uri})"
            )
        files.append(File.generated(config, uri, content=render_block(block)))
    return files
