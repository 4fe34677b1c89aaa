"""Matplotlib figures for the book. Measured data are drawn as points with their spread,
models as lines whose legend label says "model". One section per chapter."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

MEASURED_STYLE = dict(marker="o", ms=4, lw=0, capsize=2)
MODEL_STYLE = dict(lw=1.6)


def new_axes(title: str = "", xlabel: str = "", ylabel: str = "", logx=False, logy=False,
             figsize=(6.4, 4.0)):
    fig, ax = plt.subplots(figsize=figsize)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if logx:
        ax.set_xscale("symlog", linthresh=1, base=2) if logx == "symlog" else ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    return fig, ax


def measured(ax, x, y, ymin=None, ymax=None, label="measured", **kw):
    """Points with asymmetric error bars from min/max when given."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    style = {**MEASURED_STYLE, **kw}
    if ymin is not None and ymax is not None:
        yerr = np.vstack([y - np.asarray(ymin, float), np.asarray(ymax, float) - y])
        return ax.errorbar(x, y, yerr=np.clip(yerr, 0, None), label=label, **style)
    style.pop("capsize", None)
    return ax.plot(x, y, label=label, **style)


def model_line(ax, x, y, label="model", **kw):
    if "model" not in label.lower():
        label = f"{label} (model)"
    return ax.plot(x, y, label=label, **{**MODEL_STYLE, **kw})


# --- ping-pong -----------------------------------------------------------------------------

# --- ring ----------------------------------------------------------------------------------

# --- matrix addition -------------------------------------------------------------------------

# --- collectives and topology ---------------------------------------------------------------

# --- jacobi --------------------------------------------------------------------------------
