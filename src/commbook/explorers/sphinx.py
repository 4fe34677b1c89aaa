"""Sphinx extension: serve the explorers' JavaScript from the book, only on pages that use it.

At builder start it vendors vl-convert's bundle into the book's static folder (see
:func:`commbook.explorers.render.vendor_bundle`) and tells the kernels that execute the notebooks
not to inline it; each page whose body holds an explorer gets the script added to its head
(deferred), and its MathJax, if any, starts once the first explorer is usable.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from . import render


def _vendor(app):
    render.vendor_bundle(Path(app.srcdir) / "book")


# MathJax after the first explorer: its script (1.2 MB) would otherwise run before the page's
# DOMContentLoaded, which the explorers wait for. Inserted before the load event, it still delays
# that event; window.commbookMathJax resolves once it has run (the print and the tests await it).
MATHJAX_AFTER_EXPLORER = """window.commbookMathJax = new Promise(function (done) {
  function add() {
    if (window.commbookMathJaxAdded) return;
    window.commbookMathJaxAdded = true;
    var s = document.createElement("script");
    s.src = %s;
    s.onload = s.onerror = done;
    document.head.appendChild(s);
  }
  document.addEventListener("commbook:explorer-ready", add);
  window.addEventListener("load", add);  // an explorer that failed to draw
});"""


def _mathjax_after_explorer(app, context):
    """Move the page's MathJax script behind its first explorer (see MATHJAX_AFTER_EXPLORER)."""
    scripts = context.get("script_files", [])
    path = str(app.config.mathjax_path or "")
    mathjax = [js for js in scripts if path and str(getattr(js, "filename", js)).endswith(path)]
    if not mathjax or "://" in path:
        return  # no formula on the page, or MathJax from elsewhere
    for js in mathjax:
        scripts.remove(js)
    url = context["pathto"](mathjax[0].filename, resource=True)
    app.add_js_file(None, body=MATHJAX_AFTER_EXPLORER % json.dumps(url))


def _add_to_page(app, pagename, templatename, context, doctree):
    if 'class="commbook-explorer"' in context.get("body", ""):
        # deferred: the text is drawn while they load; they run before DOMContentLoaded
        app.add_js_file(f"{render.STATIC_SUBDIR}/{render.BUNDLE_NAME}", loading_method="defer")
        app.add_js_file(f"{render.STATIC_SUBDIR}/{render.PAGE_SCRIPT_NAME}", loading_method="defer")
        _mathjax_after_explorer(app, context)


def setup(app):
    os.environ[render.ENV_STATIC] = "1"  # read by the kernels the build starts
    app.connect("builder-inited", _vendor)
    app.connect("html-page-context", _add_to_page, priority=600)  # after sphinx.ext.mathjax's
    return {"parallel_read_safe": True, "parallel_write_safe": True}
