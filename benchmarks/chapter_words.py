"""Words of prose per page of a built book (code cells, outputs, code blocks and mathematics
not counted: commbook.prose_words), against the 4,000-word limit per chapter.

    python benchmarks/chapter_words.py [--html _build/html] [--toc _toc.yml] [--out FILE]

Run `make book` first (or build a copy of the book; the counts do not depend on execution
except for the few words glued from runs).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml
from benchreport import provenance, publish

from commbook.prose_words import PROSE_WORD_LIMIT, page_words


def toc_pages(toc: Path) -> list[str]:
    data = yaml.safe_load(toc.read_text())
    pages = [data["root"]]
    for part in data.get("parts", [{"chapters": data.get("chapters", [])}]):
        pages += [c["file"] for c in part["chapters"]]
    return pages


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--html", type=Path, default=Path("_build/html"))
    ap.add_argument("--toc", type=Path, default=Path("_toc.yml"))
    ap.add_argument("--out", help="also write the report to this file")
    args = ap.parse_args(argv)
    words = page_words(args.html, toc_pages(args.toc))
    lines = provenance("chapter_words.py", argv)
    over = 0
    for page, n in words.items():
        flag = "  OVER" if n > PROSE_WORD_LIMIT else ""
        over += bool(flag)
        lines.append(f"{page:32s} {n:6d}{flag}")
    lines.append(f"{'total':32s} {sum(words.values()):6d}; limit {PROSE_WORD_LIMIT} per page, {over} over")
    publish(lines, args.out)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
