"""The book as one PDF: `python -m commbook.pdf` (what `make pdf` runs) prints the built HTML pages
in Chromium, in the order of `_toc.yml`, and joins them with a table of contents, page numbers
and bookmarks.

Each page is printed as a reader's browser prints it (the book's print stylesheet: no
navigation; each live explorer replaced by a picture of its current state, see
commbook.explorers.layout). `--student` prints the student edition (_build/student/html, built
by `make book EDITION=student`), whose pages hold no solution. Beside the PDF, a JSON report
lists per page its title, its PDF pages, the figures it printed and any explorer picture wider
than the printed column (tests/test_book.py reads it).
"""

from __future__ import annotations

import argparse
import html
import io
import json
import shutil
import sys
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import booktools
from . import pages as pages_of

A4 = {"width": 794, "height": 1123}  # CSS pixels of an A4 sheet: explorers fit the paper's width
MARGIN = {"top": "14mm", "bottom": "16mm", "left": "13mm", "right": "13mm"}
FOOTER = (
    '<div style="font-size:8px;width:100%;text-align:center;color:#444">'
    '<span class="pageNumber"></span> / <span class="totalPages"></span></div>'
)
WAIT_MS = 60000  # a loaded machine (2 shared cores) draws slowly

# In print: every explorer's picture rendered (and awaited), MathJax done, then what printed.
PREPARE = """async () => {
  if (window.commbookMathJax) await window.commbookMathJax;  // loaded after the first explorer
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  if (window.commbookPrintPictures) await window.commbookPrintPictures();
  await Promise.all(Array.from(document.images).map(i => i.complete ? 0 :
      new Promise(ok => { i.onload = i.onerror = ok; })));
}"""
MEASURE = """() => {
  const col = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
  const right = col.getBoundingClientRect().right;
  const shown = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const pictures = Array.from(document.querySelectorAll('img.commbook-explorer-print')).filter(shown);
  return {
    title: (document.querySelector('article h1') || document.querySelector('h1') || {textContent: document.title})
             .textContent.replace('#', '').trim(),
    figures: Array.from(document.querySelectorAll('article img')).filter(shown).length,
    explorers: document.querySelectorAll('.commbook-explorer').length,
    pictures: pictures.length,
    clipped: pictures.filter(i => i.getBoundingClientRect().right > right + 1 || !i.naturalWidth)
                     .map(i => i.alt || i.className),
  };
}"""


@dataclass
class PagePrint:
    page: str
    title: str
    figures: int
    explorers: int
    pictures: int
    clipped: list = field(default_factory=list)
    first_page: int = 0  # 1-based, in the joined PDF
    pdf_pages: int = 0


def html_dir(root: Path, student: bool) -> Path:
    return root / "_build" / ("student/html" if student else "html")


def output_path(root: Path, student: bool) -> Path:
    return root / "_build" / "pdf" / ("commbook-student.pdf" if student else "commbook.pdf")


@contextmanager
def _chromium():
    from playwright.sync_api import sync_playwright

    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        raise SystemExit("pdf: chromium not found (apt-get install chromium)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=["--no-sandbox", "--disable-gpu"])
        try:
            yield b
        finally:
            b.close()


def print_page(browser, page_html: Path, name: str) -> tuple[PagePrint, bytes]:
    context = browser.new_context(viewport=A4)
    context.route("**/*", lambda r: r.continue_() if r.request.url.startswith(("file:", "data:")) else r.abort())
    try:
        tab = context.new_page()
        tab.goto(page_html.as_uri(), wait_until="load", timeout=120000)
        wanted = tab.evaluate("() => document.querySelectorAll('.commbook-explorer').length")
        if wanted:
            tab.wait_for_function(f"Object.keys(window.commbookExplorers || {{}}).length >= {wanted}", timeout=WAIT_MS)
        tab.evaluate(PREPARE)
        tab.emulate_media(media="print")
        info = tab.evaluate(MEASURE)
        pdf = tab.pdf(format="A4", print_background=True, margin=MARGIN)
    finally:
        context.close()
    return PagePrint(page=name, **info), pdf


def _toc_html(title: str, prints: list[PagePrint]) -> str:
    rows = "".join(f"<tr><td>{html.escape(p.title)}</td><td class=n>{p.first_page}</td></tr>" for p in prints)
    return (
        f"<!doctype html><html><head><meta charset=utf-8><title>{html.escape(title)}</title><style>"
        "body{font-family:sans-serif;margin:0}h1{font-size:22pt}h2{font-size:15pt;margin-top:2em}"
        "table{width:100%;border-collapse:collapse;font-size:12pt}td{padding:4pt 0;"
        "border-bottom:1px dotted #999}td.n{text-align:right}</style></head><body>"
        f"<h1>{html.escape(title)}</h1><h2>Contents</h2><table>{rows}</table></body></html>"
    )


def _numbers_pdf(browser, n: int) -> bytes:
    """n blank A4 pages carrying only 'i / n' in the footer, to stamp on the joined pages."""
    context = browser.new_context()
    try:
        tab = context.new_page()
        tab.set_content("<style>div{height:10px;break-after:page}</style>" + "<div></div>" * n)
        return tab.pdf(
            format="A4",
            margin=MARGIN,
            display_header_footer=True,
            header_template="<span></span>",
            footer_template=FOOTER,
        )
    finally:
        context.close()


def _print_html(browser, text: str) -> bytes:
    context = browser.new_context()
    try:
        tab = context.new_page()
        tab.set_content(text)
        return tab.pdf(format="A4", margin=MARGIN)
    finally:
        context.close()


def build_pdf(root: Path, student: bool = False, browser=None, out: Path | None = None) -> Path:
    """Print every page of the built book (toc order) into one PDF; returns its path."""
    from pypdf import PdfReader, PdfWriter

    src = html_dir(root, student)
    pages = [md.relative_to(root).with_suffix("") for md in pages_of.chapter_files(root, student=student)]
    missing = [str(p) for p in pages if not (src / f"{p}.html").is_file()]
    if missing:
        raise SystemExit(
            f"pdf: {src} lacks {', '.join(missing)}: run `make book{' EDITION=student' if student else ''}` first"
        )
    out = out or output_path(root, student)
    import yaml

    title = yaml.safe_load((root / "_config.yml").read_text()).get("title", "commbook")
    title += " (student edition)" if student else ""
    if browser is None:
        with _chromium() as b:
            return build_pdf(root, student, b, out)
    prints, parts = [], []
    for p in pages:
        info, pdf = print_page(browser, src / f"{p}.html", str(p))
        info.pdf_pages = len(PdfReader(io.BytesIO(pdf)).pages)
        prints.append(info)
        parts.append(pdf)
    toc_pages = 1
    while True:  # the contents' own length moves every chapter's first page
        first = toc_pages + 1
        for info in prints:
            info.first_page, first = first, first + info.pdf_pages
        toc = _print_html(browser, _toc_html(title, prints))
        n_toc = len(PdfReader(io.BytesIO(toc)).pages)
        if n_toc == toc_pages:
            break
        toc_pages = n_toc
    writer = PdfWriter()
    for part in [toc] + parts:
        writer.append(PdfReader(io.BytesIO(part)))
    numbers = PdfReader(io.BytesIO(_numbers_pdf(browser, len(writer.pages))))
    for page, stamp in zip(writer.pages, numbers.pages):
        page.merge_page(stamp)
    for info in prints:
        writer.add_outline_item(title=info.title, page_number=info.first_page - 1)
    writer.add_metadata({"/Title": title})
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    with open(tmp, "wb") as f:
        writer.write(f)
    tmp.replace(out)
    report = out.with_suffix(".json")
    report.write_text(json.dumps([asdict(p) for p in prints], indent=1))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m commbook.pdf", description=__doc__.split("\n\n")[0])
    ap.add_argument("--student", action="store_true", help="the student edition (_build/student/html)")
    ap.add_argument("--root", type=Path, default=None)
    args = ap.parse_args(argv)
    root = (args.root or booktools.repo_root()).resolve()
    t0 = time.perf_counter()
    out = build_pdf(root, student=args.student)
    prints = json.loads(out.with_suffix(".json").read_text())
    clipped = [(p["page"], c) for p in prints for c in p["clipped"]]
    print(
        f"pdf: {out} ({sum(p['pdf_pages'] for p in prints) + prints[0]['first_page'] - 1} pages, "
        f"{len(prints)} chapters) in {time.perf_counter() - t0:.0f} s"
    )
    if clipped:
        print(f"pdf: explorer pictures wider than the page: {clipped}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
