"""Words of prose per page of a built book (code cells, outputs, code blocks and mathematics
not counted: commbook.prose_words), against the 4,000-word limit per chapter.

    python benchmarks/chapter_words.py [--html _build/html] [--toc _toc.yml] [--out FILE]

Run `make book` first (or build a copy of the book; the counts do not depend on execution
except for the few words glued from runs).
"""

from __future__ import annotations

import sys

from benchreport import built_book_parser, provenance, publish, toc_pages

from commbook.prose_words import PROSE_WORD_LIMIT, page_words


def main(argv=None) -> int:
    args = built_book_parser(__doc__).parse_args(argv)
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
