"""Matrix-addition chapter (book/matrix_add.md, book/matrix_add_lab.md): where the time goes, ORFEO grids,
halo volume, and the lab's verdicts."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ...verdict import Verdict, cases, model_side
from ..lab import engines_placed_by, machine_scope  # noqa: F401 (the lab page's verdict)

PHASE_COLORS = {"scatter": "C0", "add": "C2", "gather": "C1"}


def plot_matrix_phases(rows, model=None, title="Matrix addition: where the time goes", ax=None, label_col="grid"):
    """Stacked bars of the median scatter, add and gather time per row (one kernel run each),
    the total's min-max as an error bar, and model totals as black markers.

    rows: the kernel's table(s) (columns grid, t_scatter_median_us, ...); model: {label: µs}
    keyed like rows[label_col].
    """
    if ax is None:
        fig, ax = plt.subplots(figsize=(8.6, 4.0))
    else:
        fig = ax.figure
    labels = [str(v) for v in rows[label_col]]
    x = np.arange(len(rows))
    bottom = np.zeros(len(rows))
    for phase in ("scatter", "add", "gather"):
        v = rows[f"t_{phase}_median_us"].to_numpy(float) / 1e3
        ax.bar(x, v, 0.6, bottom=bottom, label=f"{phase} (measured)", color=PHASE_COLORS[phase])
        bottom += v
    t = rows["t_us"] if "t_us" in rows else rows["t_median_us"]
    tmin = rows["t_min_us"].to_numpy(float) / 1e3
    tmax = rows["t_max_us"].to_numpy(float) / 1e3
    t = t.to_numpy(float) / 1e3
    ax.errorbar(
        x,
        t,
        yerr=np.vstack([t - tmin, tmax - t]).clip(0),
        fmt="none",
        ecolor="k",
        capsize=3,
        lw=1,
        label="total: min-max over repetitions",
    )
    if model:
        ax.plot(x, [model.get(lab, np.nan) / 1e3 for lab in labels], "kD", ms=6, mfc="white", label="total (model)")
    ax.set_xticks(x, labels, rotation=30 if len(x) > 6 else 0)
    ax.set_ylabel("time (ms)")
    ax.set_xlabel(label_col)
    ax.set_title(title)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    return fig


def plot_orfeo_matrix(table, value="t_us", title="ORFEO, 24 processes: time per process grid", ax=None, models=None):
    """One marker per (grid, matrix shape): table with columns grid, matrix, t_us (µs),
    source_label. Grids are ordered 1-D, 2-D, 3-D so a trend with dimensionality would show.
    models: {label: µs} drawn as horizontal lines (the model does not depend on the grid)."""
    from ...models.matrix import grid_dimensionality

    if ax is None:
        fig, ax = plt.subplots(figsize=(9, 3.8))
    else:
        fig = ax.figure
    grids = sorted(dict.fromkeys(table["grid"]), key=lambda g: (grid_dimensionality(g), g))
    pos = {g: i for i, g in enumerate(grids)}
    markers = ["o", "s", "^", "v", "D"]
    for i, ((src, shape), g) in enumerate(table.groupby(["source_label", "matrix"], sort=False)):
        ax.plot(
            [pos[v] for v in g["grid"]],
            g[value] / 1e3,
            markers[i % 5],
            ms=5,
            ls="none",
            label=f"{src}: {shape}",
            color=f"C{i}",
        )
    for j, (label, t) in enumerate((models or {}).items()):
        ax.axhline(
            t / 1e3,
            color="k",
            lw=1.2,
            ls=["-", "--", ":"][j % 3],
            label=label if "model" in label.lower() else f"{label} (model)",
        )
    dims = [grid_dimensionality(g) for g in grids]
    for d in (2, 3):
        if d in dims:
            ax.axvline(dims.index(d) - 0.5, color="0.6", lw=1, ls=":")
    ax.set_xticks(range(len(grids)), grids, rotation=60, fontsize=8)
    ax.set_ylabel("time (ms)")
    ax.set_xlabel("process grid (1-D, then 2-D, then 3-D)")
    ax.set_ylim(bottom=0)
    ax.set_title(title)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return fig


def plot_halo_vs_collective(shape, P, title=None, ax=None):
    """Per grid of P processes: elements a halo exchange moves (depends on the grid) against the
    elements one scatter of the matrix moves (does not)."""
    from ...models import matrix as M

    if ax is None:
        fig, ax = plt.subplots(figsize=(7.2, 3.8))
    else:
        fig = ax.figure
    gs = [g for g in M.grids(P) if all(a <= b for a, b in zip(g, M._dims("shape", shape)))]
    gs.sort(key=lambda g: M.halo_elements(shape, g))
    halo = [M.halo_elements(shape, g) for g in gs]
    blocks = M.block_sizes(shape, gs[0])
    scatter = int(blocks.sum() - blocks[0])
    x = np.arange(len(gs))
    ax.bar(x, halo, 0.6, color="C4", label="one halo exchange (width 1), all ranks")
    ax.axhline(scatter, color="C0", lw=2, label="one scatter of the matrix (any grid)")
    ax.set_xticks(x, [M.grid_name(g) for g in gs], rotation=60, fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("elements moved")
    ax.set_title(title or f"{M.grid_name(shape)} matrix on {P} processes")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------
# Verdicts of the lab (book/matrix_add_lab.md): code picks the case, the page holds the words


@cases("one_fastest", "one_beaten", "all_beaten")
def first_look(by_P) -> Verdict:
    """The add's share of the total on every row (P = 1 included), and whether the one-process
    run, which moves nothing, was beaten by a distributed one (all_beaten: by every one)."""
    t = by_P.set_index("np").sort_index()
    share = t["t_add_median_us"] / t["t_median_us"]
    one = float(t.loc[1, "t_median_us"])
    others = t["t_median_us"].drop(index=1)
    numbers = {
        "share_min": float(share.min()),
        "share_max": float(share.max()),
        "share_p1": float(share.loc[1]),
        "one_ms": one / 1e3,
        "fastest_ms": float(others.min()) / 1e3,
        "beaten": int((others < one).sum()),
        "runs": len(others),
    }
    if one <= others.min():
        return Verdict("one_fastest", numbers)
    return Verdict("all_beaten" if one > others.max() else "one_beaten", numbers)


def _scatter_transfer_us(shape, grid, link) -> float:
    """The model's transfer time of one scatter, without the root's copies."""
    from ...models import matrix as M

    blocks = M.block_sizes(shape, grid)
    return M.collective_time(len(blocks), 8.0 * float(blocks.sum() - blocks.flat[0]), link)


@cases("pack_larger", "pack_smaller", "mixed")
def pack_vs_transfer(by_grid, shape, link) -> Verdict:
    """The root's packing time (t_pack_us, A and B) on every grid against the transfer the two
    scatters (A and B) cost in the fitted model."""
    ratio = [float(r.t_pack_us) / (2 * _scatter_transfer_us(shape, r.grid, link)) for r in by_grid.itertuples()]
    numbers = {
        "pack_ms_min": float(by_grid["t_pack_us"].min()) / 1e3,
        "pack_ms_max": float(by_grid["t_pack_us"].max()) / 1e3,
        "ratio_min": min(ratio),
        "ratio_max": max(ratio),
    }
    key = "pack_larger" if min(ratio) > 1 else "pack_smaller" if max(ratio) < 1 else "mixed"
    return Verdict(key, numbers)


@cases("within_noise", "grid_matters")
def grid_spread(by_grid) -> Verdict:
    """Do the grids' medians differ by more than one grid's repetitions do (its min-max bar)?"""
    t = by_grid["t_median_us"].to_numpy(float)
    between = t.max() / t.min() - 1
    within = float(((by_grid["t_max_us"] - by_grid["t_min_us"]) / by_grid["t_median_us"]).max())
    return Verdict("within_noise" if between <= within else "grid_matters", {"between": between, "within": within})


@cases("minor", "large")
def add_share(rows, predictions, minor: float = 0.25) -> Verdict:
    """The add's share of the total, measured and in the model, over every row (P = 1 included)."""
    measured = rows["t_add_median_us"] / rows["t_median_us"]
    model = [predictions[g].add / predictions[g].total for g in rows["grid"]]
    numbers = {
        "measured_min": float(measured.min()),
        "measured_max": float(measured.max()),
        "model_min": min(model),
        "model_max": max(model),
    }
    return Verdict("minor" if max(measured.max(), max(model)) < minor else "large", numbers)


@cases("both_below", "model_below", "measured_below", "neither_below")
def speedup(rows, predictions) -> Verdict:
    """Measured and model speedup (serial sum over the distributed total) on every row."""
    measured = (rows["t_serial_add_us"] / rows["t_median_us"]).to_numpy(float)
    model = [predictions[g].speedup for g in rows["grid"]]
    m_below, p_below = bool((measured < 1).all()), all(s < 1 for s in model)
    key = {(True, True): "both_below", (False, True): "model_below", (True, False): "measured_below"}.get(
        (m_below, p_below), "neither_below"
    )
    numbers = {
        "measured_min": float(measured.min()),
        "measured_max": float(measured.max()),
        "model_min": min(model),
        "model_max": max(model),
    }
    return Verdict(key, numbers)


@cases("below_one", "above_one")
def limit(limit_value: float, add_rate: float) -> Verdict:
    """The speedup limit b/(24 r) of this run: below_one up to 1 (a limit of exactly 1 is never
    reached, so no P beats the serial sum), above_one beyond."""
    return Verdict("below_one" if limit_value <= 1 else "above_one", {"value": limit_value, "add_rate": add_rate})


def save_runs(runs, page: str):
    """The lab's mpiexec runs as one tidy table, written to this machine's measurement file."""
    from ... import data, kernels, machine

    tidy = kernels.tidy_all(list(runs), machine=machine.name(), source=f"live run of {page}")
    data.write_measurements(data.measurement_path("matrix_add"), tidy, kernels.measurement_meta(runs[-1], page))
    return tidy


@cases("within", "below", "above", "mixed")
def total_side(rows, predictions) -> Verdict:
    """Measured over model of the total, every row of model_beside_runs's table (keyed by P)."""
    return model_side(rows.np, rows.t_median_us, [predictions[g].total for g in rows.grid])


def model_beside_runs(rows, predictions):
    """Per row: the measured phase medians and total (ms), the model's, and measured over model."""
    import pandas as pd

    out = {}
    for r in rows.itertuples():
        p = predictions[r.grid]
        out[f"{r.np} × {r.grid}"] = {
            "scatter (ms)": r.t_scatter_median_us / 1e3,
            "model scatter (ms)": p.scatter / 1e3,
            "add (ms)": r.t_add_median_us / 1e3,
            "model add (ms)": p.add / 1e3,
            "gather (ms)": r.t_gather_median_us / 1e3,
            "model gather (ms)": p.gather / 1e3,
            "total (ms)": r.t_median_us / 1e3,
            "model total (ms)": p.total / 1e3,
            "measured / model": r.t_median_us / p.total,
        }
    return pd.DataFrame(out).T
