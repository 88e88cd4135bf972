"""mkdocs hook: the docs' formulas typeset at build time as MathML, which browsers display without a script.

``pymdownx.arithmatex`` (generic mode) leaves each ``$...$`` as ``<span class="arithmatex">\\(...\\)</span>`` and
each ``$$...$$`` as ``<div class="arithmatex">\\[...\\]</div>``; this hook replaces the TeX inside by the MathML
``latex2mathml`` converts it to, so the built site renders its formulas offline, with no JavaScript and no CDN.
Three touches make the MathML look as TeX sets it: a prime follows its base (``x′``, not a raised ``′`` on ``x``,
which a browser would raise twice), ``\\sim`` is the relation ∼ (latex2mathml 3.81 writes an identifier ``~``),
and in a displayed formula the limits of max, min, sup, inf and lim go under them. A formula latex2mathml cannot
convert, or one with a command it does not know (it would keep the backslash), stops the build with the page and
the formula.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html import unescape
from typing import Any

from latex2mathml.converter import convert
from mkdocs.exceptions import PluginError

#: an arithmatex wrapper: its tag (span inline, div displayed) and its escaped TeX with the delimiters
FORMULA = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.S)
#: the delimiters arithmatex writes, and the MathML display of each
DELIMITERS = {"span": ("\\(", "\\)", "inline"), "div": ("\\[", "\\]", "block")}
MATHML = "http://www.w3.org/1998/Math/MathML"
ET.register_namespace("", MATHML)
#: the primes (′ ″ ‴) and the operators whose limits a displayed formula sets underneath
PRIMES = set("\u2032\u2033\u2034")
LIMITS = {"max", "min", "sup", "inf", "lim"}


def _tag(name: str) -> str:
    return f"{{{MATHML}}}{name}"


def _is_prime(element: ET.Element) -> bool:
    return element.tag in (_tag("mi"), _tag("mo")) and len(element) == 0 and set(element.text or "x") <= PRIMES


def _primed(base: ET.Element, prime: ET.Element) -> ET.Element:
    """``base`` followed by ``prime`` as an operator without space around it."""
    row = ET.Element(_tag("mrow"))
    row.append(base)
    ET.SubElement(row, _tag("mo"), lspace="0", rspace="0").text = prime.text
    return row


def _polished(element: ET.Element, block: bool) -> ET.Element:
    """``element`` with primes after their bases, ∼ a relation and, if ``block``, limits under max, min, ...
    (bottom up)."""
    for i, child in enumerate(list(element)):
        element[i] = _polished(child, block)
    if element.tag == _tag("mi") and element.text == "~":
        element.tag, element.text = _tag("mo"), "\u223c"
    if element.tag == _tag("msup") and _is_prime(element[1]):
        return _primed(element[0], element[1])
    if element.tag == _tag("msubsup") and _is_prime(element[2]):
        sub = ET.Element(_tag("msub"))
        sub.extend([_primed(element[0], element[2]), element[1]])
        return sub
    if block and element.tag == _tag("msub") and element[0].tag == _tag("mo") and element[0].text in LIMITS:
        element.tag = _tag("munder")
    return element


def polish(mathml: str) -> str:
    """latex2mathml's MathML with TeX's primes, ∼ and displayed limits (see the module's docstring)."""
    root = ET.fromstring(mathml)
    return ET.tostring(_polished(root, root.get("display") == "block"), encoding="unicode")


def mathml(tex: str, display: str) -> str:
    """The MathML of one formula (``display``: ``"inline"`` or ``"block"``); ValueError if it cannot be typeset."""
    try:
        out = convert(tex, display=display)
    except Exception as e:  # latex2mathml raises its own errors (and IndexError) on TeX it cannot parse
        raise ValueError(f"latex2mathml cannot convert it ({type(e).__name__})") from e
    unknown = re.findall(r"\\[A-Za-z]+", out)
    if unknown:
        raise ValueError(f"unknown command {unknown[0]}")
    return polish(out)


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
