"""The console as a person sees it, in headless Chromium at a desktop (1440x900) and a phone
(390x844) size: every page without horizontal scroll, diagram and chart text >= 11 px (scrolling
instead of shrinking), the first failure below the sticky header at the failing line, and each
page's parts (dashboard, chart axes, an unclashing link graph, paged notes with a folder tree, the
note's title/tags/properties with each link once, the whole score formula, index state, grep
separators)."""

from __future__ import annotations

import signal
import subprocess
import sys
import wave
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.console.test_console import ARTIFACTS, LOADED_MACHINE_MS, _chromium, _start_ui
from tests.helpers import REPO, png_pixels, write

if TYPE_CHECKING:
    from playwright.sync_api import Error, Page

SIZES = ((1440, 900), (390, 844))
PYTEST_LOG = REPO / "tests" / "data" / "logs" / "pytest_many_verbose.log"

MIN_SVG_TEXT_PX = """sel => Math.min(...[...document.querySelectorAll(sel)].flatMap(s => {
  const k = s.getBoundingClientRect().width / s.viewBox.baseVal.width;
  return [...s.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize) * k);
}))"""
OVERLAPS = """sel => { const r = [...document.querySelectorAll(sel + ' text')].map(t => t.getBoundingClientRect());
  let n = 0; for (let i = 0; i < r.length; i++) for (let j = i + 1; j < r.length; j++)
    if (r[i].left < r[j].right && r[j].left < r[i].right && r[i].top < r[j].bottom && r[j].top < r[i].bottom) n++;
  return n; }"""


CONTRAST = """sel => { const el = document.querySelector(sel); if (!el) return null;
  const rgba = c => { const m = c.match(/[\\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
  let layers = []; for (let e = el; e; e = e.parentElement) {
    const b = rgba(getComputedStyle(e).backgroundColor); if (b[3] > 0) layers.push(b); if (b[3] >= 1) break; }
  let bg = [0, 0, 0]; for (const [r, g, b, a] of layers.reverse()) bg = [r * a + bg[0] * (1 - a), g * a + bg[1] * (1 - a), b * a + bg[2] * (1 - a)];
  const lum = c => { const v = c.map(x => { x /= 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
  const fg = rgba(getComputedStyle(el).color); const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
  return (hi + 0.05) / (lo + 0.05); }"""


def one_h1(page: Page, what: str) -> None:
    """The page's own h1 (a note's text may hold more)."""
    assert page.locator("main > h1, main header h1, main section h1").count() == 1, f"{what}: no h1"


def offload(vault: Path, task: str, stdin: bytes) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "k0maru", "offload", "--vault", str(vault), "--task-id", task],
        input=stdin,
        capture_output=True,
    )
    assert r.returncode == 0, r.stderr


@pytest.fixture
def big_demo(demo: Path) -> Path:
    """The demo vault plus 240 notes in folders (paging, the tree), a note that links to another
    twice, a captured pytest log and a 3,000-line log (thousands separators, grep paging)."""
    for i in range(240):
        write(demo, f"bulk/{'ab'[i % 2]}/note-{i:03}.md", f"# Bulk note {i}\n\nfiller {i}\n")
    write(
        demo,
        "20_Cards/twice.md",
        "---\ntags: [twice, links]\nowner: ada\nstatus: draft\n---\n# Linked twice\n\n"
        "<!-- an HTML comment stays hidden -->\n"
        "See [[sqlite-busy-timeout]] and again [[sqlite-busy-timeout|the same card]].\n\n"
        "| option | effect | notes |\n|---|---|---|\n"
        f"| {'x' * 90} | {'a_very_long_identifier_' * 4} | {'wide ' * 30} |\n\n"
        f"```\n{'IMPORTANT: a very long line of code that does not wrap ' * 3}\n```\n\n"
        "![[beep.wav]]\n",
    )
    (demo / "att").mkdir()
    with wave.open(str(demo / "att" / "beep.wav"), "wb") as beep:  # half a second of silence
        beep.setnchannels(1)
        beep.setsampwidth(2)
        beep.setframerate(8000)
        beep.writeframes(bytes(8000))
    offload(demo, "pytest", PYTEST_LOG.read_bytes())
    ticks = "".join(f"tick {i}\n" for i in range(3000)) + "error: the end\n"
    offload(demo, "ticks", ticks.encode())
    return demo


@pytest.mark.slow
def test_console_at_desktop_and_phone_sizes(big_demo: Path) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    proc = pw = browser = None
    try:
        pw, browser = _chromium()
        proc, url = _start_ui(big_demo, env={"K0MARU_EMBED": "0"})
        for width, height in SIZES:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.set_default_timeout(LOADED_MACHINE_MS)
            errors: list[str] = []

            def record(e: Error, errors: list[str] = errors) -> None:
                errors.append(str(e))

            page.on("pageerror", record)
            check_size(page, url, width, height)
            assert not errors, errors
            page.close()
    finally:
        if browser is not None:
            browser.close()
        if pw is not None:
            pw.stop()
        if proc is not None:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=120)


def no_horizontal_scroll(page: Page, what: str) -> None:
    wide = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert wide <= 0, f"{what} scrolls sideways by {wide} px"


def check_size(page: Page, url: str, width: int, height: int) -> None:
    size = f"{width}x{height}"

    def shot(name: str, full: bool = True) -> None:
        page.screenshot(path=str(ARTIFACTS / f"{name}-{width}.png"), full_page=full)

    # the dashboard: counts, index state, the latest offloads
    page.goto(url)
    stats = page.locator(".dashboard .stat").all_inner_texts()
    assert any(s.startswith("notes\n") and "290" in s for s in stats), stats
    state = page.inner_text("#embedding")
    assert "worker" in state and "bm25" in state  # embed = false: no chunk waits, none claimed
    assert "wait for vectors" not in state and "embeddings disabled" in state
    assert page.locator("table.recent tbody tr").count() == 2  # both offloads
    no_horizontal_scroll(page, f"the dashboard at {size}")
    shot("dashboard")

    # logs: time, duration and task columns, thousands separators
    page.goto(url + "logs")
    heads = page.locator("table.logs th").all_inner_texts()
    assert heads[:3] == ["when", "took", "task"], heads
    assert "3,001" in page.inner_text("table.logs")
    no_horizontal_scroll(page, f"the logs list at {size}")
    one_h1(page, "the logs list")
    for cell in (
        page.locator("table.logs tbody tr").first.locator("td").all()
    ):  # every column in view
        box = cell.bounding_box()
        assert box is not None and box["x"] + box["width"] <= width + 1, (size, cell.inner_text())
    shot("logs")

    # a pytest log opens at the failing line itself, below the sticky header, with its number
    page.click("table.logs tr:has-text('pytest') a")
    page.wait_for_selector("#first-failure")
    failure = page.locator("#first-failure")
    assert "return 100 // (n - 213)" in failure.inner_text()
    number = failure.locator("i").inner_text()
    assert page.inner_text(".first-link") == f"log line {number}" and number == "325"
    header = page.evaluate("document.querySelector('header.top').getBoundingClientRect().bottom")
    top = failure.evaluate("e => e.getBoundingClientRect().top")
    assert header <= top < height - 20, f"first failure at {top} px, header ends at {header}"
    assert page.evaluate(MIN_SVG_TEXT_PX, "svg.mermaid-svg") >= 11
    no_horizontal_scroll(page, f"the log page at {size}")
    one_h1(page, "a log")
    page.evaluate("document.fonts.ready.then(() => true)")  # measured in the fonts it shows
    header = page.evaluate("document.querySelector('header.top').getBoundingClientRect().height")
    assert header <= 90, f"the sticky header is {header} px tall at {size}"  # was 130 on a phone
    assert page.evaluate(CONTRAST, "pre.log span i") >= 4.5  # line numbers
    shot("log", full=False)

    # grep: `--` between separate groups, 120 matches a page with next/previous
    page.goto(url + "logs")
    page.click("table.logs tr:has-text('ticks') a")
    ticks = page.url.split("#")[0]
    page.goto(ticks + "?grep=tick%20(100|200|300)$&context=1")
    assert page.locator("pre.log span.sep").count() == 2
    page.goto(ticks + "?grep=tick&context=0")
    assert page.evaluate(CONTRAST, "pre.log span.m i") >= 4.5  # line numbers of matches
    assert "showing 120 of 3,000 matching lines" in page.inner_text(".pager")
    page.click(".pager >> text=next")
    assert "(matches 121–240" in page.inner_text(".pager")
    page.click(".pager >> text=previous")
    assert "(matches 1–120" in page.inner_text(".pager")
    page.goto(ticks + "?lines=1:60")
    assert "showing lines 1–60 of 3,001" in page.inner_text(".pager")
    page.click(".pager >> text=next")
    assert "showing lines 61–120 of 3,001" in page.inner_text(".pager")
    no_horizontal_scroll(page, f"a grep at {size}")

    # tokens: a chart with axes and labels, its text >= 11 px (it scrolls on a phone)
    page.goto(url + "tokens")
    assert page.locator("svg.chart-svg .axis-y text.tick").count() >= 2
    assert page.locator("svg.chart-svg .axis-x text.tick").count() >= 2
    assert page.locator("svg.chart-svg text.axis-title").count() == 2
    assert page.evaluate(MIN_SVG_TEXT_PX, "svg.chart-svg") >= 11
    assert "," in page.inner_text(".grid")
    no_horizontal_scroll(page, f"the tokens page at {size}")
    shot("tokens")

    # notes: 200 a page, next/previous, a folder tree
    page.goto(url + "notes")
    assert "1–200 of 290 notes" in page.inner_text("main")
    assert page.locator("ul.notes li").count() == 200
    page.click(".pager >> text=next")
    assert "201–290 of 290 notes" in page.inner_text("main")
    page.click(".tree a:text('bulk/')")
    assert "240 notes" in page.inner_text("main")
    assert page.locator(".tree a:text('bulk/a/')").count() == 1
    no_horizontal_scroll(page, f"the notes list at {size}")
    shot("notes")

    # a note: title, tags, properties, each link once
    page.goto(url + "notes/20_Cards/twice.md")
    assert page.inner_text("h1.note-title") == "Linked twice"
    assert page.locator(".tags .badge").all_inner_texts() == ["#links", "#twice"]  # as indexed
    assert "owner" in page.inner_text("dl.props") and "draft" in page.inner_text("dl.props")
    assert page.locator("aside li a:text('SQLITE_BUSY and busy_timeout')").count() == 1
    assert "HTML comment" not in page.inner_text("article")
    # the embedded recording plays: the browser fetched it from /files/ and read its length
    page.wait_for_function("() => document.querySelector('article audio').readyState >= 1")
    assert page.evaluate("() => document.querySelector('article audio').duration") == 0.5
    no_horizontal_scroll(page, f"a note at {size}")

    # the link graph: legible labels that do not overlap
    page.goto(url + "notes/20_Cards/sqlite-busy-timeout.md")
    assert page.locator("aside svg.graph-svg").count() == 1
    assert page.evaluate(MIN_SVG_TEXT_PX, "svg.graph-svg") >= 11
    assert page.evaluate(OVERLAPS, "svg.graph-svg") == 0
    no_horizontal_scroll(page, f"the note page at {size}")
    shot("note")

    # search: the whole score formula, graph term included
    page.goto(url + "search?q=SQLITE_BUSY")
    one_h1(page, "search")
    hit = page.locator("li.hit").first.bounding_box()
    assert hit is not None and hit["y"] < height / 2, f"the first hit starts at y={hit} at {size}"
    formula = page.locator(".formula").first.inner_text()
    assert "bm25" in formula and "vector" in formula and "graph" in formula
    no_horizontal_scroll(page, f"search at {size}")

    # status: worker, pending vectors, BM25 state
    page.goto(url + "status")
    text = page.inner_text("main")
    assert "pending vectors" in text and "worker" in text and "bm25" in text
    no_horizontal_scroll(page, f"the status page at {size}")
    shot("status")
    one_h1(page, "status")

    # the loadout an agent gets first, what concerns the focus first
    page.goto(url + "loadout?focus=sqlite")
    assert page.locator("section.loadout").count() >= 1
    assert page.input_value("input[name=focus]") == "sqlite"
    no_horizontal_scroll(page, f"the loadout at {size}")
    one_h1(page, "the loadout")
    shot("loadout")
    for path in ("", "tokens", "notes", "notes/20_Cards/twice.md", "gaps"):
        page.goto(url + path)
        one_h1(page, f"/{path}")
    page.goto(url + "notes")  # a link in a list item beside its path: underlined too
    deco = page.evaluate(
        "[...document.querySelectorAll('.notes li a')].map(a => getComputedStyle(a).textDecorationLine)"
    )
    assert deco and all("underline" in d for d in deco), deco
    page.goto(url + "notes/20_Cards/twice.md")
    deco = page.evaluate(
        "[...document.querySelectorAll('article p a')].map(a => getComputedStyle(a).textDecorationLine)"
    )
    assert deco and all("underline" in d for d in deco), deco  # not told apart by colour only


LIGATURE_FREE_TWIN = """sel => { const code = document.querySelector(sel);
  const place = (id, off, top) => {  // a copy of the code, at whole pixels (no subpixel shifts)
    const p = document.createElement('p'); const copy = code.cloneNode(true); copy.id = id;
    Object.assign(p.style, {position: 'fixed', left: '40px', top: top + 'px', margin: '0', zIndex: 99,
      background: '#000', padding: '8px'});
    if (off) {  // the same characters with every font feature that could join them turned off
      copy.style.fontVariantLigatures = 'none';
      copy.style.fontFeatureSettings = '"liga" 0, "clig" 0, "calt" 0, "dlig" 0'; }
    p.appendChild(copy); code.closest('article').appendChild(p); };
  place('as-shown', false, 200); place('twin', true, 300);
  return document.fonts.ready.then(() => [...document.fonts].some(
    f => f.family.includes('JetBrains') && f.status === 'loaded')); }"""


@pytest.mark.slow
def test_code_shows_each_character_as_written(demo: Path) -> None:
    """`|-`, `!=`, `->` in code and logs are the characters typed, not the font's ligatures (a log
    of a failing test must stay the log): the code looks exactly like a copy with every ligature
    turned off."""
    write(demo, "20_Cards/ops.md", "# Ops\n\nCompare `|- != -> <= ==> www` here.\n")
    proc = pw = browser = None
    try:
        pw, browser = _chromium()
        proc, url = _start_ui(demo, env={"K0MARU_EMBED": "0"})
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(LOADED_MACHINE_MS)
        page.goto(url + "notes/20_Cards/ops.md")
        assert page.evaluate(LIGATURE_FREE_TWIN, "article.note p code"), (
            "the code font did not load"
        )
        shown = page.locator("#as-shown").screenshot()
        twin = page.locator("#twin").screenshot()
        assert png_pixels(shown) == png_pixels(twin), "the font joined characters into ligatures"
        page.close()
    finally:
        if browser is not None:
            browser.close()
        if pw is not None:
            pw.stop()
        if proc is not None:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=120)
