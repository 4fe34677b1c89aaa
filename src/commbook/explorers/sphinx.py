"""Sphinx extension: serve the explorers' JavaScript from the book, only on pages that use it.

At builder start it vendors vl-convert's bundle into the book's static folder (see
:func:`commbook.explorers.render.vendor_bundle`) and tells the kernels that execute the notebooks
not to inline it; each page whose body holds an explorer gets the script added to its head.
"""

from __future__ import annotations

import os
from pathlib import Path

from . import render


def _vendor(app):
    render.vendor_bundle(Path(app.srcdir) / "book")


def _add_to_page(app, pagename, templatename, context, doctree):
    if 'class="commbook-explorer"' in context.get("body", ""):
        app.add_js_file(f"{render.STATIC_SUBDIR}/{render.BUNDLE_NAME}")
        app.add_js_file(f"{render.STATIC_SUBDIR}/{render.PAGE_SCRIPT_NAME}")


def setup(app):
    os.environ[render.ENV_STATIC] = "1"  # read by the kernels the build starts
    app.connect("builder-inited", _vendor)
    app.connect("html-page-context", _add_to_page)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
