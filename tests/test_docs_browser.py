"""The built docs site, as a reader sees it: every formula typeset (MathML, laid out by a real headless Chromium)
with no raw TeX left, and no page loading a script or a style sheet from the network.

The site is built once (``mkdocs build --strict``, about ten seconds) into a temporary folder. The browser test
opens one probe page that frames every page with formulas (``--allow-file-access-from-files``: the frames' DOMs
are the probe's to read) and reports, after the pages loaded, what Chromium laid out. It is skipped only when
``/usr/bin/chromium`` is missing (``apt-get install chromium``; CI installs it). The formulas are counted on
the Markdown sources independently of arithmatex and of the hook (docs_hooks/mathml.py).
"""

from __future__ import annotations

import html
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"
CHROMIUM = Path("/usr/bin/chromium")
#: headless, offline: no first-run, background, component-update, sync or QUIC traffic of the browser's own
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--allow-file-access-from-files",
]
#: the probe's script: per framed page, its formulas as Chromium laid them out, and any raw TeX in its text
PROBE = """
window.addEventListener("load", function () {
  const out = {};
  for (const frame of document.querySelectorAll("iframe")) {
    const doc = frame.contentDocument;
    const maths = [...doc.querySelectorAll("math")];
    const wrappers = [...doc.querySelectorAll(".arithmatex")];
    const raw = [];
    const walker = doc.createTreeWalker(doc.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest("code, pre, script, style")) continue;
      const found = node.data.match(/\\\\\\(|\\\\\\[|\\$|\\\\[A-Za-z]+/);
      if (found) raw.push(node.data.slice(Math.max(0, found.index - 30), found.index + 40));
    }
    out[frame.getAttribute("src")] = {
      math: maths.length,
      wrappers: wrappers.length,
      bare: wrappers.filter(w => !w.querySelector("math")).length,
      displays: [...new Set(maths.map(m => getComputedStyle(m).display))],
      blocks: maths.filter(m => m.getAttribute("display") === "block")
                   .filter(m => getComputedStyle(m).display !== "block math").length,
      empty: maths.filter(m => { const r = m.getBoundingClientRect(); return !(r.width > 0 && r.height > 0); }).length,
      fractions: doc.querySelectorAll("mfrac").length,
      stacked: [...doc.querySelectorAll("mfrac")].filter(function (f) {
        const [num, den] = [...f.children].map(c => c.getBoundingClientRect());
        return num.height > 0 && den.height > 0 && num.bottom <= den.top + 1;
      }).length,
      raw: raw,
    };
  }
  document.getElementById("probe").textContent = JSON.stringify(out);
});
"""


def formulas(markdown: str) -> int:
    """How many ``$...$`` and ``$$...$$`` formulas a page's Markdown has, outside code blocks and code spans."""
    text = re.sub(r"^```.*?^```", "", markdown, flags=re.M | re.S)
    text = re.sub(r"(`+).+?\1", "", text, flags=re.S)
    display = len(re.findall(r"\$\$.+?\$\$", text, re.S))
    text = re.sub(r"\$\$.+?\$\$", "", text, flags=re.S)
    return display + len(re.findall(r"\$[^$]+?\$", text))


#: the pages with formulas (their built path in the site) and how many each has
PAGES = {
    ("index.html" if p.stem == "index" else f"{p.stem}/index.html"): n
    for p in sorted(DOCS.glob("*.md"))
    if (n := formulas(p.read_text()))
}


def hook() -> ModuleType:
    """docs_hooks/mathml.py, imported from its file (it is mkdocs' hook, not part of the package)."""
    pytest.importorskip("latex2mathml", reason="the docs extra is not installed (pip install -e '.[docs]')")
    pytest.importorskip("mkdocs", reason="the docs extra is not installed (pip install -e '.[docs]')")
    spec = importlib.util.spec_from_file_location("mathml_hook", ROOT / "docs_hooks" / "mathml.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site as ``mkdocs build --strict`` writes it."""
    hook()
    out = tmp_path_factory.mktemp("site")
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return out


def test_formulas_are_counted() -> None:
    """The counter sees displayed and inline formulas, across lines, and not in code."""
    page = "A $x$ and $y \\sim\n z$.\n\n$$\n\\sum_i a_i\n$$\n\n`$not$` and\n\n```sh\n$ echo $HOME\n```\n"
    assert formulas(page) == 3
    assert sum(PAGES.values()) >= 100 and "beyond/index.html" in PAGES and "numbers/index.html" in PAGES


def test_the_hook_typesets_a_formula_as_mathml() -> None:
    mathml = hook()
    page = '<p>a <span class="arithmatex">\\(w\' = 0 &lt; w\\)</span></p>'
    page += '<div class="arithmatex">\\[\n\\frac{1}{2}\n\\]</div>'
    out = mathml.typeset(page)
    assert out.count("<math") == 2 and "\\" not in out
    assert '<span class="arithmatex"><math' in out and 'display="inline"' in out
    assert '<div class="arithmatex"><math' in out and 'display="block"' in out and "<mfrac>" in out
    assert "<mo>&lt;</mo>" in out and "&amp;" not in out  # the page's "&lt;" is TeX's "<", unescaped once


def test_the_hook_sets_primes_relations_and_displayed_limits_as_tex_does() -> None:
    mathml = hook()
    prime = '<mrow><mi>x</mi><mo lspace="0" rspace="0">\u2032</mo></mrow>'
    inline = mathml.mathml("P(y \\mid x') + x'_k", "inline")
    assert inline.count(prime) == 2 and "<msup>" not in inline and "<msubsup>" not in inline
    assert f"<msub>{prime}<mi>k</mi></msub>" in inline  # x'_k: the index after the prime
    assert "<mo>\u223c</mo>" in mathml.mathml("x \\sim y", "inline")
    assert "<munder><mo>max</mo>" in mathml.mathml("\\max_{x} y", "block")
    assert "<msub><mo>max</mo>" in mathml.mathml("\\max_{x} y", "inline")  # beside it in running text


@pytest.mark.parametrize("tex, why", [("\\notacommand x", "unknown command \\notacommand"), ("\\frac{1}{", "cannot")])
def test_the_hook_stops_the_build_on_a_formula_it_cannot_typeset(tex: str, why: str) -> None:
    mathml = hook()
    from mkdocs.exceptions import PluginError

    with pytest.raises(PluginError, match=re.escape(why)) as caught:
        mathml.typeset(f'<span class="arithmatex">\\({tex}\\)</span>', "beyond.md")
    assert str(caught.value).startswith("beyond.md: the formula") and len(str(caught.value)) < 200


def test_no_page_loads_from_the_network(site: Path) -> None:
    """No script, style sheet, frame or image from http(s); no CSS url() to the network."""
    remote = re.compile(r"<(?:script|img|iframe)\b[^>]*\ssrc=[\"']?(?:https?:)?//|<link\b[^>]*\shref=[\"']?(?:https?:)?//")
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 10
    for page in pages:
        tags = remote.findall(page.read_text())
        assert not tags, f"{page.relative_to(site)} loads from the network: {tags[0]}"
    for sheet in site.rglob("*.css"):
        assert not re.search(r"url\(\s*[\"']?(?:https?:)?//", sheet.read_text()), sheet.relative_to(site)
    assert ".highlight" in (site / "css" / "pygments.css").read_text()


@pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium (apt-get install chromium) for the browser test")
def test_every_formula_is_typeset_in_a_browser(site: Path, tmp_path: Path) -> None:
    frames = "\n".join(f'<iframe src="{page}" width="1200" height="900"></iframe>' for page in PAGES)
    probe = site / "probe.html"
    probe.write_text(f'<!doctype html>\n<html><body>\n{frames}\n<pre id="probe"></pre>\n<script>{PROBE}</script>\n</body></html>')
    cmd = [str(CHROMIUM), *FLAGS, f"--user-data-dir={tmp_path}", "--dump-dom", probe.as_uri()]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    found = re.search(r'<pre id="probe">(.*?)</pre>', done.stdout, re.S)
    assert found and found.group(1), f"the probe page reported nothing: {done.stderr[-500:]}"
    report = json.loads(html.unescape(found.group(1)))
    assert set(report) == set(PAGES)
    for page, count in PAGES.items():
        seen = report[page]
        assert seen["wrappers"] == seen["math"] == count, (page, seen)  # every formula of the source, as MathML
        assert seen["bare"] == 0 and seen["empty"] == 0 and seen["blocks"] == 0, (page, seen)
        assert set(seen["displays"]) <= {"math", "inline math", "block math"}, (page, seen)  # MathML layout
        assert seen["stacked"] == seen["fractions"], (page, seen)  # numerators above denominators
        assert not seen["raw"], (page, seen["raw"])
    assert sum(seen["fractions"] for seen in report.values()) > 10
