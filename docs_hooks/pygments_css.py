"""mkdocs hook: code blocks highlighted at build time by Pygments (``pymdownx.highlight``), with the style sheet written
into the site, in place of the theme's highlight.js from a CDN: the built site loads nothing from the network."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pygments.formatters import HtmlFormatter

#: where the style sheet goes in the site (mkdocs.yml's ``extra_css`` names it) and the Pygments style it holds
CSS = "css/pygments.css"
STYLE = "default"


def style_sheet() -> str:
    """The CSS of :data:`STYLE` for ``pymdownx.highlight``'s blocks (class ``highlight``)."""
    return str(HtmlFormatter(style=STYLE).get_style_defs(".highlight"))


def on_post_build(config: Any, **kwargs: Any) -> None:
    """mkdocs' event after the site is written: add the style sheet."""
    path = Path(config["site_dir"]) / CSS
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(style_sheet() + "\n")
