"""Ring chapter (book/ring.md): time of one ring against P and against the message size."""
from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from ..plotting import CLASS_COLORS, SERIES_COLORS, measured, model_line, new_axes


def plot_ring(series, models=(), boundaries=(), title="Ring: time of one ring vs processes",
              ax=None, logy=False, per_step=False, legend="best"):
    """Ring time against P: measured series as points with their spread, models as lines.

    series: [(label, table with np, t_us, t_min_us, t_max_us)], models: [(label, P, t_us)],
    boundaries: [(P, class)] where the ring first uses a dearer link (drawn as dotted lines).
    per_step divides every time by P (µs per step).
    """
    if ax is None:
        fig, ax = new_axes(title, "processes P", "µs per step" if per_step else "time of one ring (µs)",
                           logy=logy)
    else:
        fig = ax.figure
    for i, (label, df) in enumerate(series):
        df = df.sort_values("np")
        P = df["np"].to_numpy(float)
        k = P if per_step else 1.0
        measured(ax, P, df["t_us"] / k, df["t_min_us"] / k, df["t_max_us"] / k, label=label,
                 color=SERIES_COLORS[i % len(SERIES_COLORS)], elinewidth=1)
    styles = ["-", "--", "-.", ":"]
    for i, (label, P, t) in enumerate(models):
        P = np.asarray(P, float)
        model_line(ax, P, np.asarray(t, float) / (P if per_step else 1.0), label=label,
                   color="k", ls=styles[i % len(styles)])
    for P, cls in boundaries:
        if P > 1:
            ax.axvline(P - 0.5, color=CLASS_COLORS.get(cls, "0.5"), ls=":", lw=1.2)
            ax.annotate(f"{cls} from P={P}", (P - 0.5, 1.0), xycoords=("data", "axes fraction"),
                        xytext=(3, -12), textcoords="offset points", fontsize=8, rotation=90,
                        va="top", color=CLASS_COLORS.get(cls, "0.5"))
    ax.set_xlim(left=0)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(fontsize=8, loc=legend)
    return fig


def plot_ring_sizes(table, models=(), title="Ring: time per step vs message size", ax=None):
    """µs per step (ring time / P) against message size, measured with spread; models:
    [(label, sizes, µs per step)]."""
    if ax is None:
        fig, ax = new_axes(title, "message size n (bytes)", "µs per step", logx=True, logy=True)
    else:
        fig = ax.figure
    df = table.sort_values("size_bytes")
    P = df["np"].to_numpy(float)
    measured(ax, df["size_bytes"], df["t_us"] / P, df["t_min_us"] / P, df["t_max_us"] / P,
             label=f"measured, P = {int(P[0])} (min-max bars)", color=SERIES_COLORS[0],
             elinewidth=1)
    for i, (label, n, t) in enumerate(models):
        model_line(ax, n, t, label=label, color="k", ls=["-", "--", ":"][i % 3])
    ax.legend(fontsize=8)
    return fig
