"""Helpers for the reader-facing checks of the built pages (test_book.py): what sticks out of
the text column at a given width, the axe-core audit, what a page weighs."""

import re


def verdict_cases(html: str, name: str) -> list[str]:
    """The case each rendered {verdict} whose id matches `name` (a regex, '-' for '_') chose: the
    directive gives its container the class verdict-case-<case>."""
    tags = re.findall(rf'<div class="([^"]*)" id="verdict-{name}"', html)
    return [c.removeprefix("verdict-case-") for t in tags for c in t.split() if c.startswith("verdict-case-")]


# Everything a reader must see whole, measured against the article column. A code block or a
# table may scroll inside a box that fits (overflow-x: auto); nothing else may stick out.
OVERFLOW = r"""() => {
  const col = document.querySelector('article.bd-article') || document.querySelector('main');
  const c = col.getBoundingClientRect();
  const name = e => {
    const ex = e.closest('.commbook-explorer');
    let s = e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
            (e.classList.length ? '.' + Array.from(e.classList).slice(0, 2).join('.') : '');
    if (ex) s += ' in explorer ' + ex.dataset.explorer;
    const h = e.closest('section') && e.closest('section').querySelector('h1,h2,h3');
    if (h) s += ' (section "' + h.textContent.replace('#', '').trim().slice(0, 50) + '")';
    return s;
  };
  const scrollsInside = e => {
    for (let a = e.parentElement; a && a !== col; a = a.parentElement) {
      const ox = getComputedStyle(a).overflowX;
      if ((ox === 'auto' || ox === 'scroll') && a.getBoundingClientRect().right <= c.right + 1)
        return a.matches('pre, .highlight, table, .output, .cell_output, .pst-scrollable-table-container, ' +
                         '.table-wrapper, mjx-container, .math, .output_area') ||
               !!a.closest('pre, .highlight');
    }
    return false;
  };
  const sel = 'img, svg, table, figure, iframe, video, mjx-container, .commbook-explorer, ' +
              '.vega-bindings, .vega-bind, .cell_output, .admonition, .role-legend, .role-title, ' +
              '.commbook-explorer-note, p, li, dl, blockquote, .sd-card, details';
  const out = [];
  for (const e of col.querySelectorAll(sel)) {
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || getComputedStyle(e).visibility === 'hidden') continue;
    if (e.closest('svg') && e.tagName.toLowerCase() === 'svg' && e.parentElement.closest('svg')) continue;
    if (r.right <= c.right + 1 && r.left >= c.left - 1) continue;
    if (e.matches('table, mjx-container, pre') || e.closest('pre, .highlight, mjx-container, table'))
      if (scrollsInside(e)) continue;
    out.push(name(e) + ': ' + Math.round(r.left) + '..' + Math.round(r.right) + ' px, column ' +
             Math.round(c.left) + '..' + Math.round(c.right));
  }
  const doc = document.documentElement;
  if (doc.scrollWidth > window.innerWidth + 1) {
    const wide = Array.from(document.body.querySelectorAll('*')).filter(e => {
      const r = e.getBoundingClientRect();
      if (r.width === 0 || r.right <= window.innerWidth + 1) return false;
      for (let a = e.parentElement; a; a = a.parentElement)  // clipped by a box inside the window
        if (getComputedStyle(a).overflowX !== 'visible' && a.getBoundingClientRect().right <= window.innerWidth + 1)
          return false;
      return !Array.from(e.children).some(k => k.getBoundingClientRect().right > window.innerWidth + 1);
    }).slice(0, 3).map(e => name(e) + ' "' + (e.textContent || '').trim().slice(0, 40) + '"');
    out.push('the page scrolls sideways: ' + doc.scrollWidth + ' px wide in a ' + window.innerWidth +
             ' px window; widest: ' + wide.join('; '));
  }
  return out;
}"""

import gzip  # noqa: E402

EXPLORER_COUNT = "() => document.querySelectorAll('.commbook-explorer').length"


def set_theme(tab, theme: str) -> str:
    """The theme's own switch does this: data-theme/data-mode on <html> (styles follow at once)."""
    tab.evaluate(
        "t => { document.documentElement.dataset.theme = t; document.documentElement.dataset.mode = t; }", theme
    )
    # the theme fades colours in (CSS transitions): audit the colours they end at, however long a
    # loaded machine takes to get there (axe once caught a half-faded search box in the dark theme)
    tab.evaluate("""() => Promise.all(document.getAnimations()
                                      .filter(a => a instanceof CSSTransition).map(a => a.finished))""")
    return tab.evaluate("() => getComputedStyle(document.body).backgroundColor")


def open_page(browser, url: str, width: int, sizes: list | None = None, watch: tuple | None = None):
    """A tab on the page at `width` px, explorers drawn, formulas typeset; `sizes` collects
    (url, bytes, gzip-compressed bytes) of every response (the page weight: a web server sends
    the compressed bytes); `watch` = (external, console_errors): chromium.watch from the start."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.route("**/*", lambda r: r.continue_() if r.request.url.startswith(("file:", "data:")) else r.abort())
    tab = context.new_page()
    if watch is not None:
        import chromium

        chromium.watch(tab, *watch, page_errors=False)
    if sizes is not None:

        def _size(resp):
            try:
                body = resp.body()
                sizes.append((resp.url, len(body), len(gzip.compress(body, 6))))
            except Exception:  # a redirect or aborted request has no body
                pass

        tab.on("response", _size)
    tab.goto(url, wait_until="load", timeout=120000)  # a loaded machine (CI: 2 shared cores)
    n = tab.evaluate(EXPLORER_COUNT)
    if n:
        tab.wait_for_function(f"Object.keys(window.commbookExplorers || {{}}).length >= {n}", timeout=60000)
    tab.evaluate("""async () => { if (window.commbookMathJax) await window.commbookMathJax;
                                  if (window.MathJax && MathJax.startup && MathJax.startup.promise)
                                    await MathJax.startup.promise; }""")
    tab.wait_for_timeout(200)
    return context, tab


def axe_violations(tab) -> list[dict]:
    """axe-core (the copy shipped in axe-playwright-python's wheel: no network) on the page."""
    from axe_playwright_python.sync_playwright import Axe

    result = Axe().run(tab)
    return [
        {
            "id": v["id"],
            "impact": v["impact"],
            "nodes": len(v["nodes"]),
            "help": v["help"],
            "targets": [n["target"] for n in v["nodes"][:5]],
        }
        for v in result.response["violations"]
    ]
