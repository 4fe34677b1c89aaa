"""Jacobi chapter (book/jacobi.md): convergence, roofline, time split, scaling, the report check."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..plotting import SERIES_COLORS, measured, model_line, new_axes


# --- jacobi --------------------------------------------------------------------------------
def plot_jacobi_convergence(runs, title="Jacobi: distance to the known solution, sweep by sweep"):
    """runs: [(label, error_rms_history, residual_rms_history)]; both on a log axis."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    for i, (label, err, res) in enumerate(runs):
        style = dict(marker="o", ms=3, lw=1, color=SERIES_COLORS[i % len(SERIES_COLORS)],
                     ls=["-", "--", ":", "-."][i % 4])
        axes[0].plot(np.arange(len(err)), err, label=label, **style)
        axes[1].plot(np.arange(len(res)), res, label=label, **style)
    for ax, what in zip(axes, ["RMS error against the exact solution", "RMS residual"]):
        ax.set_yscale("log")
        ax.set_xlabel("sweep")
        ax.set_title(what, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


JACOBI_BALANCES = [(16, "16 B/LUP (layer cond., no write-alloc.)"),
                   (24, "24 B/LUP (layer cond. + write-alloc.)"),
                   (40, "40 B/LUP (no layer cond.)")]


def plot_jacobi_roofline(L, mlups, bandwidth_MBps, mlups_min=None, mlups_max=None,
                         caches=(), title="One process: measured MLUP/s against the roofline"):
    """MLUP/s of single-process sweeps against the grid edge L, with the memory roofline
    bandwidth / code balance for each balance, and where two grids outgrow each cache.

    caches: [(name, bytes)] e.g. [("L2", 512 KiB), ("L3", 32 MiB)].
    """
    fig, ax = new_axes(title, "grid edge L (L^3 points, 2 arrays of doubles)", "MLUP/s", logx=True)
    L = np.asarray(L, float)
    measured(ax, L, mlups, mlups_min, mlups_max, label="measured, 1 process (median sweep)",
             color="C0", ms=6, elinewidth=1)
    for (balance, label), ls in zip(JACOBI_BALANCES, ["--", "-", ":"]):
        model_line(ax, [L.min() / 1.3, L.max() * 1.3], [bandwidth_MBps / balance] * 2,
                   label=f"roofline model, {label}", color="k", ls=ls, lw=1.2)
    for name, size in caches:
        edge = (size / 16) ** (1 / 3)  # two arrays of L^3 doubles
        if L.min() / 1.3 < edge < L.max() * 1.3:
            ax.axvline(edge, color="0.5", ls=":", lw=1)
            ax.annotate(f"2 grids > {name}", (edge, 0.0), xycoords=("data", "axes fraction"),
                        xytext=(3, 6), textcoords="offset points", fontsize=8, rotation=90,
                        va="bottom", color="0.4")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
    fig.set_size_inches(7.0, 5.0)
    fig.tight_layout()
    return fig


def plot_jacobi_time_split(labels, compute_us, halo_us, title="Where a sweep's time goes"):
    """Stacked bars per run: compute and halo exchange (µs per sweep, slowest rank)."""
    fig, ax = new_axes(title, "", "µs per sweep (slowest rank, median)", figsize=(6.4, 3.6))
    x = np.arange(len(labels))
    compute_us, halo_us = np.asarray(compute_us, float), np.asarray(halo_us, float)
    ax.bar(x, compute_us, color="C2", label="compute (measured)")
    ax.bar(x, halo_us, bottom=compute_us, color="C1", label="halo exchange (measured)")
    for xi, c, h in zip(x, compute_us, halo_us):
        ax.annotate(f"{h / (c + h):.0%}", (xi, c + h), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(x, labels, fontsize=8)
    ax.legend(fontsize=8)
    ax.grid(True, axis="x", alpha=0)
    return fig


def plot_jacobi_scaling(series=(), models=(), title="Jacobi: MLUP/s against processes",
                        ax=None, highlight=None, logy=False, legend_loc="upper left"):
    """MLUP/s against N: series [(label, N, mlups)] as points, models [(label, N, mlups)] as
    lines (labelled model), highlight = (N, mlups) of the selected point."""
    if ax is None:
        fig, ax = new_axes(title, "processes N", "MLUP/s", logy=logy)
    else:
        fig = ax.figure
    markers = ["o", "s", "^", "D", "v", "P"]
    for i, (label, N, p) in enumerate(series):
        measured(ax, N, p, label=label, color=SERIES_COLORS[i % len(SERIES_COLORS)],
                 marker=markers[i % len(markers)], ms=6)
    styles = ["-", "--", "-.", ":"]
    for i, (label, N, p) in enumerate(models):
        model_line(ax, N, p, label=label, color=["k", "C3", "C7", "C4"][i % 4],
                   ls=styles[i % len(styles)])
    if highlight is not None:
        ax.plot([highlight[0]], [highlight[1]], marker="*", ms=14, color="C3", lw=0,
                label=f"N = {highlight[0]}: {highlight[1]:,.0f} MLUP/s (model)")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8, loc=legend_loc)
    return fig


def plot_jacobi_report_check(labels, measured_mlups, report_mlups, consistent_mlups,
                             title="Model / measured for the report's ORFEO runs (L = 1200)"):
    """For each run, prediction / measurement of the report's arithmetic and of the same
    formula in consistent units (1 = perfect; below 1 the model underestimates)."""
    fig, ax = new_axes(title, "", "model / measured", figsize=(9, 3.8))
    x = np.arange(len(labels))
    m = np.asarray(measured_mlups, float)
    ax.bar(x - 0.2, np.asarray(report_mlups, float) / m, 0.4, color="C7",
           label="the report's numbers (model)")
    ax.bar(x + 0.2, np.asarray(consistent_mlups, float) / m, 0.4, color="C0",
           label="same formula, consistent units (model)")
    ax.axhline(1.0, color="k", lw=1)
    ax.set_xticks(x, labels, fontsize=8, rotation=30, ha="right")
    ax.set_ylim(0.6, 1.45)
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(True, axis="x", alpha=0)
    fig.tight_layout()
    return fig


def plot_jacobi_noncompute(labels, noncompute_s, imbalance_s, model_tc_s,
                           title="Per sweep: time outside the stencil against the model's T_c"):
    """Measured time per sweep outside the slowest rank's stencil, the compute imbalance
    between ranks, and the model's communication time, per run (log scale)."""
    fig, ax = new_axes(title, "", "seconds per sweep", logy=True, figsize=(9, 3.8))
    x = np.arange(len(labels))

    def shown(v):  # nothing to draw for zero (one process has no imbalance and no T_c)
        v = np.asarray(v, float)
        return np.where(v > 0, v, np.nan)

    noncompute_s, imbalance_s, model_tc_s = shown(noncompute_s), shown(imbalance_s), shown(model_tc_s)
    ax.bar(x - 0.27, noncompute_s, 0.27, color="C1", label="sweep - slowest compute (measured)")
    ax.bar(x, imbalance_s, 0.27, color="C4", label="slowest - fastest compute (measured)")
    ax.bar(x + 0.27, model_tc_s, 0.27, color="0.6", label="T_c = c/B + k T_l (model)")
    ax.set_xticks(x, labels, fontsize=8, rotation=30, ha="right")
    ax.legend(fontsize=8, loc="upper right")
    ax.grid(True, axis="x", alpha=0)
    fig.tight_layout()
    return fig
