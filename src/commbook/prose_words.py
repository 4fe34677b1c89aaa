"""Words of prose on a built page: what a reader reads, not code, outputs or formulas.

A chapter's length is counted in its rendered HTML (issue: no chapter above 4,000 words of
prose): the article's text without code cells (input and output), code blocks, mathematics,
scripts, the header links and the page's navigation. `benchmarks/chapter_words.py` prints the
count of every page of a build; `tests/test_book.py` holds each chapter to the limit.
"""

from __future__ import annotations

import re
from pathlib import Path

PROSE_WORD_LIMIT = 4000
# a chapter's lesson (the page before its lab), and the whole book when chapters became lesson and
# lab (benchmarks/results/chapter_words.txt, 2026-11-27): it may only shrink from there
LESSON_WORD_LIMIT = 2500
BOOK_WORDS_BEFORE_LESSONS = 35155

# what is not prose: code cells (input and output), code blocks, mathematics, and machinery
_NOT_PROSE = (
    "div.cell",
    "div.highlight",
    "pre",
    "script",
    "style",
    "span.math",
    "div.math",
    "a.headerlink",
    "nav",
    "div.commbook-explorer",
)
_WORD = re.compile(r"[^\W\d_](?:[\w'’.-]*\w)?")


def prose_words(html: str) -> int:
    """Words of prose in a built page's HTML (its main article when it has one)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    article = soup.select_one("article[role=main]") or soup.select_one("main") or soup
    for selector in _NOT_PROSE:
        for node in article.select(selector):
            node.decompose()
    return len(_WORD.findall(article.get_text(" ")))


def page_words(html_dir: Path, pages) -> dict[str, int]:
    """{page: prose words} of the built pages `pages` ("book/pingpong", ...) under html_dir."""
    out = {}
    for page in pages:
        path = Path(html_dir) / f"{page}.html"
        if not path.is_file():
            raise FileNotFoundError(f"{path}: not built (run make book first)")
        out[page] = prose_words(path.read_text(encoding="utf-8"))
    return out
