"""What a reader meets on each built page, counted: axe-core violations by impact in the light
and the dark theme (1280 px), and the elements sticking out of the text column at 1280, 1024
and 390 px. The same checks as tests/test_book.py, as counts instead of a pass/fail, so that
any built book (this one, or an older commit's) can be compared:

    python benchmarks/reader_audit.py [--html _build/html] [--toc _toc.yml] [--out FILE]

Run `make book` first (or build the commit to compare). Needs Debian's chromium.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from benchreport import built_book_parser, provenance, publish, toc_pages

# the page checks and the browser launcher the test suite uses (one definition of each check)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import chromium  # noqa: E402
import page_checks as pc  # noqa: E402

WIDTHS = (1280, 1024, 390)
IMPACTS = ("critical", "serious", "moderate", "minor")


def audit(browser, html: Path, page: str) -> dict:
    url = (html / f"{page}.html").resolve().as_uri()
    result = {"page": page, "axe": {}, "overflow": {}}
    for width in WIDTHS:
        context, tab = pc.open_page(browser, url, width)
        try:
            result["overflow"][width] = tab.evaluate(pc.OVERFLOW)
            if width == 1280:
                for theme in ("light", "dark"):
                    pc.set_theme(tab, theme)
                    found = pc.axe_violations(tab)
                    result["axe"][theme] = found
        finally:
            context.close()
    return result


def main(argv=None) -> int:
    args = built_book_parser(__doc__).parse_args(argv)
    from playwright.sync_api import sync_playwright

    lines = provenance("reader_audit.py", argv) + [
        f"- built book: {args.html}",
        "- axe: violations (rules) and the elements they flag (nodes), by impact, light + dark theme",
        "- overflow: elements outside the text column (tests/page_checks.OVERFLOW) per width",
        "",
        "| page | critical | serious | moderate | minor | rules (critical/serious) | overflow 1280 | 1024 | 390 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    totals, rules = Counter(), Counter()
    with sync_playwright() as p:
        browser = chromium.launch(p)
        try:
            for page in toc_pages(args.toc):
                if not (args.html / f"{page}.html").is_file():
                    lines.append(f"| {page} | (not built) |||||||")
                    continue
                r = audit(browser, args.html, page)
                count = Counter()
                for found in r["axe"].values():
                    for v in found:
                        count[v["impact"]] += v["nodes"]
                        if v["impact"] in ("critical", "serious"):
                            rules[v["id"]] += v["nodes"]
                totals.update(count)
                ids = sorted({v["id"] for f in r["axe"].values() for v in f if v["impact"] in ("critical", "serious")})
                over = [len(r["overflow"][w]) for w in WIDTHS]
                totals.update({f"overflow {w}": n for w, n in zip(WIDTHS, over)})
                lines.append(
                    f"| {page} | "
                    + " | ".join(str(count[i]) for i in IMPACTS)
                    + f" | {', '.join(ids) or '-'} | "
                    + " | ".join(map(str, over))
                    + " |"
                )
        finally:
            browser.close()
    lines += [
        "",
        "Totals (flagged elements, both themes): "
        + ", ".join(f"{i} {totals[i]}" for i in IMPACTS)
        + "; outside the column: "
        + ", ".join(f"{w} px {totals[f'overflow {w}']}" for w in WIDTHS),
        "Critical and serious by rule: " + (", ".join(f"{k} {n}" for k, n in rules.most_common()) or "none"),
    ]
    publish(lines, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
