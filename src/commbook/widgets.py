"""ipywidgets explorers. Each explorer has a static default figure (drawn by the notebook in an
ordinary cell, so the rendered book shows it) and refuses impossible values: sliders are bounded
and text boxes are validated before anything is drawn. One section per chapter."""
from __future__ import annotations


def positive(name: str, value: float) -> float:
    """Refuse a non-positive or non-finite parameter with a clear message."""
    import math
    if value is None or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive number, not {value!r}")
    return float(value)


# --- ping-pong -----------------------------------------------------------------------------

# --- ring ----------------------------------------------------------------------------------

# --- matrix addition -------------------------------------------------------------------------

# --- collectives and topology ---------------------------------------------------------------

# --- jacobi --------------------------------------------------------------------------------
