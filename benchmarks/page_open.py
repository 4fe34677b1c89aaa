"""How fast each built page opens: time from navigation to the page's first explorer being usable
(drawn, controls bound: window.commbookFirstReadyMs, set by commbook.explorers.layout), the
load event, and the page weight (bytes of every response), in headless Debian chromium.

Goal: first explorer usable within 1 s of load on this machine; page weight <= 1.5 MB.

    python benchmarks/page_open.py [--repeat 5] [--html _build/html] [--out FILE]

Run `make book` first. Reports the median over --repeat cold loads (a new browser context each).
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import statistics
import sys
from pathlib import Path

from benchreport import provenance, publish

from commbook import booktools


def measure(browser, url: str) -> dict:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.route("**/*", lambda r: r.continue_() if r.request.url.startswith(("file:", "data:")) else r.abort())
    sizes = []
    tab = context.new_page()
    # a web server sends gzip: the compressed size is the weight that counts (raw size beside)
    tab.on(
        "response", lambda resp: sizes.append((len(b := resp.body()), len(gzip.compress(b, 6)))) if resp.ok else None
    )
    tab.goto(url, wait_until="load")
    n = tab.evaluate("() => document.querySelectorAll('.commbook-explorer').length")
    if n:
        tab.wait_for_function("window.commbookFirstReadyMs !== undefined", timeout=30000)
    t = tab.evaluate("""() => ({load: performance.getEntriesByType('navigation')[0].loadEventEnd,
                               ready: window.commbookFirstReadyMs || null})""")
    context.close()
    return {
        "load_ms": t["load"],
        "ready_ms": t["ready"],
        "bytes": sum(r for r, _ in sizes),
        "gzip": sum(g for _, g in sizes),
        "explorers": n,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--html", type=Path, default=None, help="built pages (default _build/html)")
    ap.add_argument("--out", help="also write the report to this file")
    args = ap.parse_args(argv)
    root = booktools.repo_root()
    html = args.html or root / "_build" / "html"
    from playwright.sync_api import sync_playwright

    lines = provenance("page_open.py", argv) + [
        f"# {args.repeat} cold loads of each page (median), headless chromium, 1280 px",
        "| page | explorers | load (ms) | first explorer usable (ms) | after load (ms) | weight raw (KB) | weight gzip (KB) |",
        "|---|---|---|---|---|---|---|",
    ]
    worst = 0.0
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
        for md in booktools.chapter_files(root):
            page = md.relative_to(root).with_suffix("")
            runs = [measure(b, (html / f"{page}.html").as_uri()) for _ in range(args.repeat)]
            load = statistics.median(r["load_ms"] for r in runs)
            ready = [r["ready_ms"] for r in runs if r["ready_ms"] is not None]
            ready_ms = statistics.median(ready) if ready else None
            after = f"{ready_ms - load:.0f}" if ready_ms is not None else "-"
            if ready_ms is not None:
                worst = max(worst, ready_ms - load)
            lines.append(
                f"| {page} | {runs[0]['explorers']} | {load:.0f} | "
                f"{f'{ready_ms:.0f}' if ready_ms is not None else '-'} | {after} | "
                f"{max(r['bytes'] for r in runs) / 1000:.0f} | {max(r['gzip'] for r in runs) / 1000:.0f} |"
            )
        b.close()
    lines.append(f"\nworst first-explorer time after the load event: {worst:.0f} ms (goal: 1000 ms)")
    return publish(lines, args.out)


if __name__ == "__main__":
    sys.exit(main())
