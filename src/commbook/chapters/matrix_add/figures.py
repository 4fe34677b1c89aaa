"""Matrix-addition chapter (book/matrix_add.md): where the time goes, ORFEO grids, halo volume."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

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
# What the page's prose says about its own measurements, decided from them


def first_look_text(by_P) -> str:
    """The add's share of the total, and whether one process beat the distributed runs."""
    t = by_P.set_index("np")
    share = (t["t_add_median_us"] / t["t_median_us"]).drop(index=1, errors="ignore")
    one = float(t.loc[1, "t_median_us"]) if 1 in t.index else float("nan")
    others = t["t_median_us"].drop(index=1, errors="ignore")
    add = t["t_add_median_us"].sort_index()
    shrinks = bool((add.diff().dropna() < 0).all())
    text = ("the add phase shrinks as the work is divided, but it " if shrinks else "the add phase ") + (
        f"is {share.max():.1%} of the total or less"
    )
    if one <= others.min():
        return text + (
            "; and the one-process run, which only copies memory, is not beaten by the "
            "runs that move the blocks between processes."
        )
    return text + (
        f"; the one-process run ({one / 1e3:.1f} ms) was beaten here by "
        f"{(others < one).sum()} of the distributed runs, fastest "
        f"{others.min() / 1e3:.1f} ms."
    )


def grid_spread_text(by_grid) -> str:
    """Do the grids' medians differ by more than one grid's repetitions do (its min-max bar)?"""
    t = by_grid["t_median_us"].to_numpy(float)
    between = t.max() / t.min() - 1
    within = float(((by_grid["t_max_us"] - by_grid["t_min_us"]) / by_grid["t_median_us"]).max())
    if between <= within:
        return (
            f"the grids' medians differ by {between:.0%}, no more than one grid's repetitions "
            f"(its bar spans up to {within:.0%} of its median)"
        )
    return (
        f"here the grids' medians differ by {between:.0%}, more than one grid's repetitions "
        f"(its bar spans at most {within:.0%} of its median): on this run the grid did matter"
    )


def model_shape_text(rows, predictions) -> str:
    """Does the model's split of the time match the measured one (share of the add)?"""
    rows = rows[rows["np"] > 1]  # one process moves nothing: its add is its whole run
    measured = float((rows["t_add_median_us"] / rows["t_median_us"]).max())
    model = max(p.add / p.total for g, p in predictions.items() if g in set(rows["grid"]))
    if measured < 0.25 and model < 0.25:
        part = "a sliver" if max(measured, model) < 0.1 else "a minor part"
        return (
            f"The model follows the shape of the measurements: communication dominates and "
            f"the add is {part} (at most {measured:.0%} measured, {model:.0%} in the model)."
        )
    return (
        f"Here the add is {measured:.0%} of the measured total at most and {model:.0%} in the "
        "model: on this machine the split between moving and adding differs from the usual "
        "picture."
    )


def speedup_text(rows, predictions) -> str:
    """Measured and model speedup (serial sum over the distributed total) of the P > 1 runs."""
    d = rows[rows["np"] > 1]
    measured = (d["t_serial_add_us"] / d["t_median_us"]).to_numpy(float)
    model = [p.speedup for g, p in predictions.items() if not g.startswith("1x")]
    below_m, below_p = bool((measured < 1).all()), all(s < 1 for s in model)
    if below_m and below_p:
        return "below one at every *P*, in the model and in the measurements."
    model_part = (
        "below one at every *P* in the model"
        if below_p
        else "above one at some *P* in the model (its add rate comes from this run)"
    )
    measured_part = "below one in every measurement here" if below_m else "not below one in every measurement here"
    return f"{model_part}, and {measured_part} (measured {', '.join(f'{s:.2f}' for s in measured)})."


def orfeo_model_text(model_ms: list[float], second_ms: tuple[float, float], add_share: float) -> str:
    """The ORFEO model band against the second student's times (this machine's add rate)."""
    lo, hi = min(model_ms), max(model_ms)

    def outside(x):  # relative distance of a measured time from the model's band
        return 0.0 if lo <= x <= hi else (x / hi - 1 if x > hi else 1 - x / lo)

    worst = max(outside(x) for x in second_ms)
    where = "inside it" if worst == 0 else f"at most {worst:.0%} outside it"
    return (
        f"(The add rate here is this machine's, a stand-in: the add is {add_share:.1%} of the "
        f"model's total.) The model gives {lo:.0f} to {hi:.0f} ms whatever the grid; the "
        f"second student's times are {where}."
    )


def limit_text(limit: float, add_rate: float) -> str:
    """The speedup limit b/(24 r) of this run, and what it means."""
    if limit < 1:
        return (
            f"here b/(24 r) is {limit:.2f}, below one, so in the model no number of processes "
            "makes the distributed addition faster."
        )
    return (
        f"here b/(24 r) came out at {limit:.2f}, above one: in this run the link, at the "
        f"ping-pong's best, moved 24 B faster than the serial sum added a pair of doubles "
        f"(r = {add_rate:,.0f} elements per µs). The limit is only as good as the b and r it is "
        "given: a busy machine slows the serial sums, and a ping-pong's b is the link's best case."
    )
