"""Live explorers: one per chapter (``commbook/chapters/<page>/explorer.py``), each an Altair
chart whose model is recomputed in the browser (no kernel, no server, no network) and equals the
commbook.models function it shows.

Each explorer module has ``explorer(...)`` (an :class:`~commbook.explorers.render.Explorer` that
displays the same in the rendered book and in JupyterLab), ``python_model(row, params)`` (the
Python model the browser must match, row by row) and ``TEST_POINTS`` (parameter values the browser
test sets). This package is the shared machinery: :mod:`.render` holds the display and controls,
:mod:`.layout` the page layout, :mod:`.presets` the link presets, :mod:`.sphinx` serves the JavaScript.
"""

from __future__ import annotations

import importlib

# explorer name (its HTML id and Explorer.name) -> the page package that holds it
PAGES = {
    "pingpong": "pingpong",
    "ring": "ring",
    "matrix": "matrix_add",
    "topology": "topology",
    "collectives": "collectives",
    "jacobi": "jacobi",
}
ALL = tuple(PAGES)


def module(name: str):
    """The explorer module of the explorer `name` (a key of :data:`PAGES`)."""
    return importlib.import_module(f"commbook.chapters.{PAGES[name]}.explorer")
