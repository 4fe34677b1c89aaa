"""How fast each built page opens and how much it weighs, in headless Debian chromium at 1280 px.

Per page, the median over --repeat cold loads (a new browser context each):

* **first explorer usable**: ms from the start of navigation until the page's first explorer is
  drawn with its controls bound (window.commbookFirstReadyMs, set by commbook.explorers.layout);
* **first input answered**: then its first slider (or menu) is moved once and the time until
  the chart has redrawn is added: **time to first interactive** = usable + that answer;
* **main-thread CPU before usable**: the CPU time the page's renderer main thread spent from
  navigation until the explorer was usable (thread time of its tasks in a Chrome trace). Wall
  times grow with the machine's load (other jobs share the cores); this CPU time much less, so
  it is what to compare between loaded runs, and the wall time an idle machine would show;
* DOMContentLoaded and load, and the **page weight**: the bytes of every response, raw and as
  a web server sends them (gzip level 6; tests/test_book.py::test_page_in_browser holds it to 1.5 MB).

Goal: first explorer interactive within 1 s of navigation on this machine; weight <= 1.5 MB.

    python benchmarks/page_open.py [--repeat 5] [--html _build/html] [--pages pingpong,ring] [--out FILE]

Run `make book` first. The load average before and after is in the report.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import sys
from pathlib import Path

from benchreport import provenance, publish

from commbook import booktools

# Move the first explorer's first control one step and wait for the chart to redraw: ms taken.
FIRST_INPUT = """async () => {
  const el = document.querySelector('.commbook-explorer');
  const r = (window.commbookExplorers || {})[el.id];
  const c = el.querySelector('.vega-bindings input[type=range], .vega-bindings select');
  if (!r || !c) return null;
  const t0 = performance.now();
  if (c.tagName === 'SELECT') c.selectedIndex = (c.selectedIndex + 1) % c.options.length;
  else c.value = Number(c.value) === Number(c.max) ? c.min : c.max;
  c.dispatchEvent(new Event(c.tagName === 'SELECT' ? 'change' : 'input', {bubbles: true}));
  await r.view.runAsync();
  await new Promise(requestAnimationFrame);
  return performance.now() - t0;
}"""


def main_thread_cpu_ms(trace: bytes, ready_ms: float) -> float:
    """CPU time (not wall time: a loaded machine stretches that) of the page's renderer main
    thread from navigation start until `ready_ms` after it, from a Chrome trace."""
    events = json.loads(trace)["traceEvents"]
    nav = next(e for e in events if e.get("name") == "navigationStart" and e["args"]["data"].get("documentLoaderURL"))
    end = nav["ts"] + 1000 * ready_ms
    tasks = [
        e
        for e in events
        if e.get("name") == "RunTask"
        and (e["pid"], e["tid"]) == (nav["pid"], nav["tid"])
        and nav["ts"] <= e["ts"] < end
    ]
    return sum(e.get("tdur", 0) for e in tasks) / 1000


def measure(browser, url: str) -> dict:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.route("**/*", lambda r: r.continue_() if r.request.url.startswith(("file:", "data:")) else r.abort())
    sizes = []
    tab = context.new_page()
    browser.start_tracing(page=tab, categories=["disabled-by-default-devtools.timeline", "blink.user_timing"])
    # a web server sends gzip: the compressed size is the weight that counts (raw size beside)
    tab.on(
        "response", lambda resp: sizes.append((len(b := resp.body()), len(gzip.compress(b, 6)))) if resp.ok else None
    )
    tab.goto(url, wait_until="domcontentloaded")
    n = tab.evaluate("() => document.querySelectorAll('.commbook-explorer').length")
    answer = None
    if n:
        tab.wait_for_function("window.commbookFirstReadyMs !== undefined", timeout=60000, polling=10)
    tab.wait_for_load_state("load")
    trace = browser.stop_tracing()
    if n:
        answer = tab.evaluate(FIRST_INPUT)
    t = tab.evaluate("""() => { const e = performance.getEntriesByType('navigation')[0];
        return {dcl: e.domContentLoadedEventEnd, load: e.loadEventEnd, ready: window.commbookFirstReadyMs || null}; }""")
    context.close()
    return {
        "cpu_ms": main_thread_cpu_ms(trace, t["ready"]) if t["ready"] else None,
        "dcl_ms": t["dcl"],
        "load_ms": t["load"],
        "ready_ms": t["ready"],
        "answer_ms": answer,
        "bytes": sum(r for r, _ in sizes),
        "gzip": sum(g for _, g in sizes),
        "explorers": n,
    }


def median(runs, key):
    values = [key(r) for r in runs if key(r) is not None]
    return statistics.median(values) if values else None


def fmt(x, unit=""):
    return "-" if x is None else f"{x:.0f}{unit}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--html", type=Path, default=None, help="built pages (default _build/html)")
    ap.add_argument("--pages", default="", help="comma-separated page names (default: every page of _toc.yml)")
    ap.add_argument("--out", help="also write the report to this file")
    args = ap.parse_args(argv)
    root = booktools.repo_root()
    html = args.html or root / "_build" / "html"
    from playwright.sync_api import sync_playwright

    pages = [md.relative_to(root).with_suffix("") for md in booktools.chapter_files(root)]
    if args.pages:
        wanted = set(args.pages.split(","))
        pages = [p for p in pages if p.name in wanted]
    lines = provenance("page_open.py", argv) + [
        f"# {args.repeat} cold loads of each page (median), headless chromium, 1280 px; times in ms from the"
        " start of navigation (wall clock); CPU = thread time of the page's main thread until its first"
        " explorer was usable",
        "| page | explorers | DOMContentLoaded | load | first explorer usable | first input answered in |"
        " **first interactive** | main-thread CPU before usable | weight raw (KB) | weight gzip (KB) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    worst = 0.0
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
        for page in pages:
            runs = [measure(b, (html / f"{page}.html").as_uri()) for _ in range(args.repeat)]
            ready, answer = median(runs, lambda r: r["ready_ms"]), median(runs, lambda r: r["answer_ms"])
            first = median(runs, lambda r: r["ready_ms"] + r["answer_ms"] if r["answer_ms"] is not None else None)
            if first is not None:
                worst = max(worst, first)
            cpu = fmt(median(runs, lambda r: r["cpu_ms"]))
            lines.append(
                f"| {page} | {runs[0]['explorers']} | {fmt(median(runs, lambda r: r['dcl_ms']))} | "
                f"{fmt(median(runs, lambda r: r['load_ms']))} | {fmt(ready)} | {fmt(answer)} | **{fmt(first)}** | {cpu} | "
                f"{max(r['bytes'] for r in runs) / 1000:.0f} | {max(r['gzip'] for r in runs) / 1000:.0f} |"
            )
        b.close()
    lines.append(f"\nworst time to first interactive: {worst:.0f} ms from navigation (goal: 1000 ms)")
    lines.append("load average (1/5/15 min) at the end: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    return publish(lines, args.out)


if __name__ == "__main__":
    sys.exit(main())
