"""What every chapter's figures share: measured data as points with their spread, models as
lines whose legend says "model", byte sizes on log axes. Colours come from matplotlib's
colour-blind-safe cycle (set once here), and colour is never the only difference: each measured
series on an axes gets its own marker and each model line its own dash pattern. Every figure
shown in a notebook carries a description for its alt text (commbook.figure_alt)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from cycler import cycler

from . import figure_alt
from .units import format_bytes

# 'tableau-colorblind10' (matplotlib's style of the Tableau colour-blind palette) as the C0..C9
# colours every chapter's figures use
plt.rcParams["axes.prop_cycle"] = cycler(
    color=plt.style.library["tableau-colorblind10"]["axes.prop_cycle"].by_key()["color"]
)
figure_alt.install()

MEASURED_STYLE = dict(marker="o", ms=4, lw=0, capsize=2, elinewidth=1)
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*")
DASHES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)))


MODEL_STYLE = dict(lw=1.6)
CLASS_COLORS = {"self": "0.6", "core": "C2", "socket": "C1", "node": "C3"}
SERIES_COLORS = ["C0", "C9", "C4", "C5", "C6", "C8"]  # not the link-class colours


def label_axes(ax, title: str = "", xlabel: str = "", ylabel: str = "", legend: bool = False):
    """Title, axis labels, the legend when asked, and the light grid every figure has."""
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if legend:
        ax.legend()
    ax.grid(True, which="both", alpha=0.3)
    return ax


def new_axes(title: str = "", xlabel: str = "", ylabel: str = "", logx=False, logy=False, figsize=(6.4, 4.0)):
    fig, ax = plt.subplots(figsize=figsize)
    figure_alt.install()  # after pyplot set up the inline backend
    if logx:
        ax.set_xscale("symlog", linthresh=1, base=2) if logx == "symlog" else ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    label_axes(ax, title, xlabel, ylabel)
    return fig, ax


def measured(ax, x, y, ymin=None, ymax=None, label="measured", **kw):
    """Points with asymmetric error bars from min/max when given."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    style = {**MEASURED_STYLE, "marker": MARKERS[len(getattr(ax, "_cb_measured", ())) % len(MARKERS)], **kw}
    ax._cb_measured = getattr(ax, "_cb_measured", ()) + (label,)
    if ymin is not None and ymax is not None:
        yerr = np.vstack([y - np.asarray(ymin, float), np.asarray(ymax, float) - y])
        return ax.errorbar(x, y, yerr=np.clip(yerr, 0, None), label=label, **style)
    style.pop("capsize", None)
    style.pop("elinewidth", None)
    return ax.plot(x, y, label=label, **style)


def model_line(ax, x, y, label="model", **kw):
    if "model" not in label.lower():
        label = f"{label} (model)"
    dash = DASHES[len(getattr(ax, "_cb_models", ())) % len(DASHES)]
    ax._cb_models = getattr(ax, "_cb_models", ()) + (label,)
    return ax.plot(x, y, label=label, **{**MODEL_STYLE, "ls": dash, **kw})


def size_grid(n):
    top = max(float(np.max(n)), 2.0)
    return np.concatenate([[0.0], np.geomspace(1.0, top, 600)])


def model_label(model, prefix="Hockney model"):
    segs = getattr(model, "segments", None)
    if segs is not None and not hasattr(model, "lambda_us"):
        return f"piecewise {prefix} ({len(segs)} segments)"
    lam, bw = model.lambda_us, model.bandwidth_MBps
    return f"{prefix}: λ = {lam:.3g} µs, b = {bw:.4g} MB/s"


def model_of(fit):
    return getattr(fit, "model", fit)


def size_axis(ax):
    """Symlog base-2 size axis (0 B stays visible), labelled every 16x, ticked every 2x."""
    from matplotlib.ticker import FixedLocator, FuncFormatter

    ax.set_xscale("symlog", linthresh=1, base=2)
    ax.set_xlim(left=0)
    top = max(ax.get_xlim()[1], 2.0)
    powers = 2.0 ** np.arange(0, int(np.log2(top)) + 1)
    ax.xaxis.set_major_locator(FixedLocator(np.concatenate([[0], powers[::4]])))
    ax.xaxis.set_minor_locator(FixedLocator(powers))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: format_bytes(round(v), compact=True)))
    ax.set_xlabel("message size n (bytes)")
    ax.grid(True, which="both", alpha=0.3)
