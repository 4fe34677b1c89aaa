"""Live explorers: one module per chapter, each an Altair chart whose model is recomputed in the
browser (no kernel, no server, no network) and equals the commbook.models function it shows.

Each module has ``explorer(...)`` (an :class:`~commbook.explorers.render.Explorer` that displays
the same in the rendered book and in JupyterLab), ``python_model(row, params)`` (the Python
model the browser must match, row by row) and ``TEST_POINTS`` (parameter values the browser test
sets). :mod:`.render` holds the shared display and controls; :mod:`.sphinx` serves the JavaScript.
"""

ALL = ("pingpong", "ring", "matrix", "topology", "collectives", "jacobi")
