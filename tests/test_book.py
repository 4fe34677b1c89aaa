"""The rendered book: every chapter executes (the build), and its pages look right in a real
headless browser (Debian's chromium driven by Playwright): figures loaded, formulas typeset,
no error output, no request leaving the machine."""

import os
import re
import subprocess
import sys
from pathlib import Path

import chromium
import pytest
import yaml
from once import once

REPO = Path(__file__).resolve().parents[1]
HTML = REPO / "_build" / "html"

# The first test also builds the book (session fixture): allow for a cold build. Only the build
# runs MPI (test_page_built_without_errors is marked so): the other tests read its pages.
pytestmark = [pytest.mark.book, pytest.mark.timeout(3600)]


def toc_pages() -> list[str]:
    from commbook.pages import toc_files

    return toc_files(yaml.safe_load((REPO / "_toc.yml").read_text()))


BUILD_INPUTS = ["book", "src", "kernels_c", "data", "_config.yml", "_toc.yml", "pyproject.toml"]
BUILD_KEY = REPO / "_build" / "test-build.key"


def _inputs_key() -> str:
    """What the build reads: the files (tracked or new) under BUILD_INPUTS, this venv (its MPI
    family) and the COMMBOOK_ settings."""
    import hashlib

    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", *BUILD_INPUTS], cwd=REPO, capture_output=True, text=True
    )
    digest = hashlib.sha256(
        f"{sys.prefix}\n{sorted((k, v) for k, v in os.environ.items() if k.startswith('COMMBOOK_'))}".encode()
    )
    for name in sorted(listed.stdout.split("\n")) if listed.returncode == 0 else []:
        path = REPO / name
        if name and path.is_file():
            digest.update(name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest() if listed.returncode == 0 else "no git"


def _build_book(basetemp: Path) -> tuple[int, str]:
    """`make book`'s build, offline: no ORFEO mirror and an empty fetch cache, so every ORFEO
    figure must come from the derived tables shipped in data/orfeo/derived/. A session whose
    inputs equal those of this checkout's last passing test build reads that build's pages
    (CI's second pass reads the first pass's: rendering them again checks nothing new)."""
    key = _inputs_key()
    if key != "no git" and BUILD_KEY.is_file() and BUILD_KEY.read_text() == key and (HTML / "index.html").is_file():
        return 0, f"the pages of the last test build, whose inputs are these ({BUILD_KEY})"
    BUILD_KEY.unlink(missing_ok=True)
    cache = basetemp / "empty-orfeo-cache"
    cache.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, COMMBOOK_ORFEO_MIRROR="none", COMMBOOK_DATA_CACHE=str(cache))
    proc = subprocess.run(
        [sys.executable, "-m", "commbook.booktools", "build"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=3000,
        env=env,
    )
    log = proc.stdout + proc.stderr
    (REPO / "_build").mkdir(exist_ok=True)
    (REPO / "_build" / "test-build.log").write_text(log)
    if proc.returncode == 0:
        BUILD_KEY.write_text(key)
    return proc.returncode, log


@pytest.fixture(scope="session")
def built_book(tmp_path_factory):
    """Build the book as `make book` does (execution cached in _build/.jupyter_cache), once per
    session (under pytest-xdist too: tests/once.py)."""
    rc, log = once(tmp_path_factory, "book-build", _build_book)
    if rc != 0:
        pytest.fail(f"book build failed (exit {rc}); last lines:\n{log}")
    return HTML


@pytest.mark.mpi  # executes every chapter: CI runs it one test at a time, before the page readers
@pytest.mark.parametrize("page", toc_pages())
def test_page_built_without_errors(built_book, page):
    html = (built_book / f"{page}.html").read_text()
    assert "Traceback (most recent call last)" not in html
    assert not re.search(r'class="[^"]*\boutput (traceback|error)\b', html)
    assert "not fetched" not in html and "not available here" not in html  # offline build


@pytest.mark.parametrize("page", toc_pages())
def test_no_page_over_the_prose_word_limit(built_book, page):
    from commbook.prose_words import PROSE_WORD_LIMIT, prose_words

    words = prose_words((built_book / f"{page}.html").read_text())
    assert 0 < words <= PROSE_WORD_LIMIT, f"{page}: {words} words of prose (limit {PROSE_WORD_LIMIT})"


def lesson_pages() -> list[str]:
    """The chapters with a lab page (book/<page>_lab.md in the table of contents)."""
    pages = toc_pages()
    return [p for p in pages if f"{p}_lab" in pages]


@pytest.mark.parametrize("page", lesson_pages())
def test_a_lesson_is_at_most_2500_words(built_book, page):
    from commbook.prose_words import LESSON_WORD_LIMIT, prose_words

    words = prose_words((built_book / f"{page}.html").read_text())
    assert words <= LESSON_WORD_LIMIT, f"{page}: {words} words of prose in the lesson (limit {LESSON_WORD_LIMIT})"


def test_the_book_is_shorter_than_before_the_lessons(built_book):
    from commbook.prose_words import BOOK_WORDS_BEFORE_LESSONS, prose_words

    total = sum(prose_words((built_book / f"{page}.html").read_text()) for page in toc_pages())
    assert total < BOOK_WORDS_BEFORE_LESSONS, f"{total} words of prose in the book"


@pytest.mark.parametrize(
    "page", ["pingpong", "ring", "matrix_add", "topology", "collectives_library", "collectives_orfeo", "jacobi"]
)
def test_orfeo_figures_drawn_from_derived_tables(built_book, page):
    html = (built_book / "book" / f"{page}.html").read_text()
    assert "data/orfeo/derived/" in html  # the caption names the derived table it drew


def test_pingpong_page_has_every_figure(built_book):
    html = (built_book / "book" / "pingpong.html").read_text()
    images = re.findall(r'<img [^>]*src="([^"]+)"', html)
    # fit, residuals, piecewise, ORFEO link classes and curves (+ the explorer); the lesson runs no MPI
    assert len(images) >= 5, images
    assert 'class="commbook-explorer"' in html


def test_node_boundary_sections_say_where_their_numbers_come_from(built_book):
    """Live on emulated nodes where the build can make them (root, CI): one lab measures and the
    other may show that same run (`shared`); else the shipped reference run, said in the text
    (tests/test_nodes.py checks the reference path itself)."""
    import page_checks as pc

    from commbook.nodes import boundary

    said = [
        pc.verdict_cases((built_book / "book" / f"{page}.html").read_text(), r"(?:pp|ring)-nodes-source")
        for page in ("pingpong_lab", "ring_lab")
    ]
    if boundary.reference_reason():
        assert said == [["reference"], ["reference"]]
    else:
        assert all(s in (["live"], ["shared"]) for s in said) and said != [["shared"], ["shared"]], said


@pytest.mark.parametrize("page", ["pingpong_lab", "ring_lab", "matrix_add_lab", "data", "jacobi_lab"])
def test_measuring_page_says_which_mpi_measured_it(built_book, page):
    from commbook import mpi_env

    html = (built_book / "book" / f"{page}.html").read_text()
    text = re.sub(r"<[^>]+>", "", html)
    assert mpi_env.detect().version in text


def test_claims_and_citations_render(built_book):
    html = (built_book / "book" / "pingpong.html").read_text()
    assert re.search(r'<span class="claim">0\.99 µs</span>', html)  # the text before <name>
    assert "&lt;pp-ucx-node-latency&gt;" not in html
    refs = (built_book / "book" / "references.html").read_text()
    assert "Hockney" in refs and "Scorcia" in refs and "Loletti" in refs


# Jupyter Book 1 pages always log these two; they are the theme's, not ours.
HARMLESS_CONSOLE = ("THEBE_JS_URL", "Identifier 'THEBE_JS_URL' has already been declared", "mode", "favicon")


@pytest.mark.browser
@pytest.mark.parametrize("page", toc_pages())
def test_page_in_browser(built_book, browser, page):
    """The page at 1280 px, opened once for every check a reader's first look needs: no request
    leaves the machine, every image loads, formulas are typeset, no error output or console
    error, nothing sticks out of the text column, the page weight (see check_weight), and
    axe-core in both themes (see check_accessibility, last: it switches the theme). A full-page
    screenshot is kept in _build/screenshots."""
    import page_checks as pc

    external, console_errors, sizes = [], [], []
    context, tab = pc.open_page(
        browser, (built_book / f"{page}.html").as_uri(), 1280, sizes=sizes, watch=(external, console_errors)
    )
    try:
        tab.wait_for_timeout(1300)  # MathJax typesets after load (open_page waited 200 ms)
        shots = REPO / "_build" / "screenshots"
        shots.mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=str(shots / f"{page.replace('/', '_')}.png"), full_page=True)
        broken = tab.evaluate("""() => Array.from(document.images)
            .filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)""")
        has_math = tab.evaluate("() => document.querySelectorAll('.math, mjx-container').length")
        typeset = tab.evaluate("() => document.querySelectorAll('mjx-container').length")
        raw_tex = tab.evaluate("() => document.body.innerText.includes('\\\\frac')")
        tracebacks = tab.evaluate("() => document.querySelectorAll('.output.traceback, .output.error').length")
        overflow = [f"{page} at 1280 px: {p}" for p in tab.evaluate(pc.OVERFLOW)]
        assert external == [], f"requests leaving the machine: {external}"
        assert broken == [], f"images that did not load: {broken}"
        assert tracebacks == 0
        if has_math:
            assert typeset > 0 and not raw_tex, "formulas were not typeset"
        real_errors = [e for e in console_errors if not any(h in e for h in HARMLESS_CONSOLE)]
        assert real_errors == [], real_errors
        assert overflow == [], "\n".join(overflow)
        check_weight(tab, page, sizes)
        check_accessibility(tab, page)
    finally:
        context.close()


# Every chapter's live explorer, in the built book, offline (helpers in explorer_browser.py).
EXPLORER_PAGES = {
    "book/pingpong": 1,
    "book/ring": 1,
    "book/matrix_add": 1,
    "book/topology": 1,
    "book/collectives_library": 1,
    "book/jacobi": 1,
}


@pytest.mark.browser
@pytest.mark.parametrize("page", sorted(EXPLORER_PAGES))
def test_explorers_live_in_book(built_book, browser, page):
    """Every explorer on the page draws inside the book's theme: its first control moves the
    figure, no request leaves the machine, no console error; the browser's model equals the
    Python model; before/after screenshots kept in _build/explorer-shots. (Every control of
    every explorer is moved in tests/test_explorers_browser.py, on standalone pages.)"""
    import explorer_browser as eb

    from commbook.explorers import render

    html_text = (built_book / f"{page}.html").read_text()
    assert render.BUNDLE_NAME in html_text, "the page does not load the vendored explorer script"
    for other in toc_pages():
        if other not in EXPLORER_PAGES:  # loaded only where used
            assert render.BUNDLE_NAME not in (built_book / f"{other}.html").read_text(), other
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file://") else route.abort())
    tab = context.new_page()
    external, console_errors = [], []
    chromium.watch(tab, external, console_errors)
    tab.goto((built_book / f"{page}.html").as_uri(), wait_until="load")
    divs = eb.wait_for_explorers(tab, EXPLORER_PAGES[page])
    shots = REPO / "_build" / "explorer-shots"
    shots.mkdir(parents=True, exist_ok=True)
    name = page.replace("/", "_")
    for div in divs:
        box = tab.locator(f"#{div}")
        box.scroll_into_view_if_needed()
        box.screenshot(path=str(shots / f"{name}-{div}-before.png"))
        controls = eb.controls(tab, div)
        assert controls, f"{div}: no controls"
        first = controls[0]
        assert eb.move_changes_figure(tab, div, first), f"{page}: moving '{first['name']}' changed nothing"
        eb.set_value(tab, div, first, first["value"])
        eb.settle(tab, div)
        box.screenshot(path=str(shots / f"{name}-{div}-after.png"))
        assert eb.compare_models(tab, div) > 0
    context.close()
    assert external == [], f"requests leaving the machine: {external}"
    real_errors = [e for e in console_errors if not any(h in e for h in HARMLESS_CONSOLE)]
    assert real_errors == [], real_errors


# --- every reader: fits a phone, accessible, printable, light (helpers in page_checks.py) -----
WIDTHS = (1024, 390)  # and 1280, in test_page_in_browser
MAX_PAGE_BYTES = 1_500_000


@pytest.mark.browser
@pytest.mark.parametrize("page", toc_pages())
def test_page_fits_every_width(built_book, browser, page):
    """At 1024 and 390 px (1280: test_page_in_browser) nothing a reader must see (explorer,
    figure, table, legend, formula) sticks out of the text column; the explorers at 390 px are kept as screenshots in
    _build/explorer-shots-390."""
    import page_checks as pc

    problems = []
    shots = REPO / "_build" / "explorer-shots-390"
    shots.mkdir(parents=True, exist_ok=True)
    for width in WIDTHS:
        context, tab = pc.open_page(browser, (built_book / f"{page}.html").as_uri(), width)
        try:
            problems += [f"{page} at {width} px: {p}" for p in tab.evaluate(pc.OVERFLOW)]
            if width == 390:
                for i, box in enumerate(tab.locator(".commbook-explorer").all()):
                    box.scroll_into_view_if_needed()
                    box.screenshot(path=str(shots / f"{page.replace('/', '_')}-{i}.png"))
        finally:
            context.close()
    assert problems == [], "\n".join(problems)


def check_weight(tab, page: str, sizes: list) -> None:
    """Everything the page loads (HTML, scripts, styles, fonts, every figure: none is lazy) stays
    under 1.5 MB as transferred, i.e. as a web server sends it: text gzip-compressed (level 6),
    fonts and PNGs as they are (compression gains them nothing). The uncompressed size, which is
    what the browser parses, is in the message; commbook.page_weight keeps both down."""
    pending = tab.evaluate("() => Array.from(document.images).filter(i => !i.complete).map(i => i.src)")
    raw, sent = sum(s[1] for s in sizes), sum(s[2] for s in sizes)
    biggest = sorted(sizes, key=lambda s: -s[2])[:5]
    assert pending == [], f"{page}: images not loaded, so not weighed: {pending}"
    assert not any("fontawesome.js" in s[0] for s in sizes), f"{page}: the theme's 1.5 MB icon script is back"
    assert 0 < sent <= MAX_PAGE_BYTES, f"{page}: {sent:,} B gzip ({raw:,} B raw); largest: {biggest}"


def check_accessibility(tab, page: str) -> None:
    """axe-core in the light and the dark theme: no critical or serious violation (every
    violation found is written to _build/a11y/ for the record); every figure has an alt text
    that describes it, not its file name."""
    import json

    import page_checks as pc

    out = REPO / "_build" / "a11y"
    out.mkdir(parents=True, exist_ok=True)
    bad, backgrounds = [], set()
    alts = tab.evaluate("() => Array.from(document.querySelectorAll('article img')).map(i => i.alt)")
    for theme in ("light", "dark"):
        backgrounds.add(pc.set_theme(tab, theme))
        found = pc.axe_violations(tab)
        (out / f"{page.replace('/', '_')}-{theme}.json").write_text(json.dumps(found, indent=1))
        bad += [
            f"{theme}: {v['impact']} {v['id']} ({v['nodes']}x): {v['help']} {v['targets']}"
            for v in found
            if v["impact"] in ("critical", "serious")
        ]
    assert len(backgrounds) == 2, "the dark theme did not apply"
    no_alt = [a for a in alts if not a or a.endswith((".png", ".svg", ".jpg")) or len(a) < 20]
    assert no_alt == [], f"{page}: figures without a describing alt text: {no_alt}"
    assert bad == [], f"{page}:\n" + "\n".join(bad)


@pytest.mark.browser
@pytest.mark.starts_first  # long (prints every page): under pytest-xdist it must not end the pass alone
def test_pdf_of_the_book(built_book, browser):
    """`make pdf`: one PDF, every chapter's title in it, at least as many images as the pages
    print figures (matplotlib PNGs and the explorers' pictures), no explorer picture wider than
    the paper, every page numbered."""
    import json
    import unicodedata

    from pypdf import PdfReader

    from commbook import pdf

    out = pdf.build_pdf(REPO, browser=browser)
    prints = json.loads(out.with_suffix(".json").read_text())
    reader = PdfReader(out)
    text = " ".join(" ".join(unicodedata.normalize("NFKC", p.extract_text() or "").split()) for p in reader.pages)
    assert [p["page"] for p in prints] == toc_pages()
    for p in prints:
        assert p["title"] and p["title"] in text, f"{p['page']}: title {p['title']!r} not in the PDF"
        assert p["clipped"] == [], f"{p['page']}: explorer pictures wider than the page: {p['clipped']}"
        assert p["pictures"] == p["explorers"], f"{p['page']}: an explorer printed without its picture"
    images = sum(len(page.images) for page in reader.pages)
    assert images >= sum(p["figures"] for p in prints) > 0
    last = " ".join((reader.pages[-1].extract_text() or "").split())
    assert f"{len(reader.pages)} / {len(reader.pages)}" in last
    assert [o.title for o in reader.outline] == [p["title"] for p in prints]
