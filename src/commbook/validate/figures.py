"""Predicted against measured, drawn from the committed validation tables."""

from __future__ import annotations

import numpy as np

from .criteria import JACOBI_WITHIN, WITHIN
from .tables import load_table


def _scatter(ax, measured, predicted, band: float, title: str, color=None, label=None):
    measured, predicted = np.asarray(measured, float), np.asarray(predicted, float)
    ok = (measured > 0) & (predicted > 0)
    measured, predicted = measured[ok], predicted[ok]
    inside = np.abs(predicted / measured - 1) <= band
    ax.scatter(
        measured[inside],
        predicted[inside],
        s=6,
        alpha=0.5,
        color=color or "tab:blue",
        label=label or f"within {band:.0%}: {inside.mean():.0%} of {inside.size} points",
    )
    ax.scatter(measured[~inside], predicted[~inside], s=6, alpha=0.6, color="tab:red", label=f"outside {band:.0%}")
    lo, hi = min(measured.min(), predicted.min()) / 1.5, max(measured.max(), predicted.max()) * 1.5
    x = np.geomspace(lo, hi, 50)
    ax.plot(x, x, color="black", lw=0.8)
    ax.fill_between(x, x * (1 - band), x * (1 + band), color="grey", alpha=0.25, label=f"±{band:.0%} band")
    ax.set(xscale="log", yscale="log", xlim=(lo, hi), ylim=(lo, hi), title=title)
    ax.legend(fontsize=7, loc="upper left")


def figure(name: str, directory=None):
    """Predicted against measured (log-log, the acceptance band drawn) from the committed
    tables: "pingpong", "collectives" or "jacobi". Model values are labelled as such."""
    import matplotlib.pyplot as plt

    if name == "pingpong":
        pts = load_table("pingpong_points", directory)
        fig, ax = plt.subplots(figsize=(5.5, 5))
        _scatter(
            ax,
            pts.t_us,
            pts.pred_us,
            WITHIN,
            "ping-pong: held-out sizes (odd), piecewise model fitted on the even ones",
        )
        ax.set(xlabel="measured time (µs)", ylabel="model time (µs)")
    elif name == "collectives":
        pts = load_table("collectives_points", directory)
        ops = sorted(set(pts.op))
        fig, axes = plt.subplots(1, len(ops), figsize=(4.2 * len(ops), 4.2), squeeze=False)
        for ax, op in zip(axes[0], ops):
            p = pts[pts.op == op]
            _scatter(ax, p.t_us, p.pred_us, WITHIN, f"{op}: P beyond the fitted ones")
            ax.set(xlabel="measured time (µs)", ylabel="model time (µs)")
    elif name == "jacobi":
        ja = load_table("jacobi", directory)
        fig, ax = plt.subplots(figsize=(5.5, 5))
        for machine, color in (("orfeo-thin", "tab:blue"), ("orfeo-gpu", "tab:green")):
            j = ja[ja.machine == machine]
            ax.scatter(
                j.measured_mlups,
                j.model_mlups,
                s=14,
                color=color,
                label=f"{machine}: {j.within_15.mean():.0%} of {len(j)} runs within 15 %",
            )
        x = np.geomspace(ja.measured_mlups.min() / 1.5, ja.model_mlups.max() * 1.5, 50)
        ax.plot(x, x, color="black", lw=0.8)
        ax.fill_between(
            x, x * (1 - JACOBI_WITHIN), x * (1 + JACOBI_WITHIN), color="grey", alpha=0.25, label="±15 % band"
        )
        ax.set(
            xscale="log",
            yscale="log",
            xlabel="measured MLUP/s",
            ylabel="model MLUP/s",
            title="Jacobi: the report's model P(L, N) against every run",
        )
        ax.legend(fontsize=7, loc="upper left")
    else:
        raise ValueError(f"no validation figure '{name}'; known: pingpong, collectives, jacobi")
    fig.tight_layout()
    return fig
