"""mkdocs hook: the docs' formulas typeset at build time as MathML, which browsers display without a script.

``pymdownx.arithmatex`` (generic mode) leaves each ``$...$`` as ``<span class="arithmatex">\\(...\\)</span>`` and
each ``$$...$$`` as ``<div class="arithmatex">\\[...\\]</div>``; this hook replaces the TeX inside by the MathML
``latex2mathml`` converts it to, so the built site renders its formulas offline, with no JavaScript and no CDN.
A formula latex2mathml cannot convert, or one with a command it does not know (it would keep the backslash),
stops the build with the page and the formula.
"""

from __future__ import annotations

import re
from html import unescape
from typing import Any

from latex2mathml.converter import convert
from mkdocs.exceptions import PluginError

#: an arithmatex wrapper: its tag (span inline, div displayed) and its escaped TeX with the delimiters
FORMULA = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.S)
#: the delimiters arithmatex writes, and the MathML display of each
DELIMITERS = {"span": ("\\(", "\\)", "inline"), "div": ("\\[", "\\]", "block")}


def mathml(tex: str, display: str) -> str:
    """The MathML of one formula (``display``: ``"inline"`` or ``"block"``); ValueError if it cannot be typeset."""
    try:
        out = convert(tex, display=display)
    except Exception as e:  # latex2mathml raises its own errors (and IndexError) on TeX it cannot parse
        raise ValueError(f"latex2mathml cannot convert it ({type(e).__name__})") from e
    unknown = re.findall(r"\\[A-Za-z]+", out)
    if unknown:
        raise ValueError(f"unknown command {unknown[0]}")
    return out


def typeset(page_html: str, where: str = "the page") -> str:
    """``page_html`` with every arithmatex formula replaced by its MathML (in the same wrapper)."""

    def replace(m: re.Match[str]) -> str:
        tag, body = m.group(1), unescape(m.group(2)).strip()
        left, right, display = DELIMITERS[tag]
        if not (body.startswith(left) and body.endswith(right)):
            raise PluginError(f"{where}: a formula without its delimiters: {body[:80]!r}")
        tex = body[len(left) : -len(right)]
        try:
            return f'<{tag} class="arithmatex">{mathml(tex, display)}</{tag}>'
        except ValueError as e:
            raise PluginError(f"{where}: the formula {tex.strip()[:80]!r}: {e}") from e

    return FORMULA.sub(replace, page_html)


def on_page_content(html: str, page: Any, **kwargs: Any) -> str:
    """mkdocs' event after a page's Markdown became HTML (mkdocs passes ``html`` by name): typeset its formulas."""
    return typeset(html, page.file.src_uri)
