"""Jacobi chapter (book/jacobi.md): convergence, roofline, time split, scaling, the report check."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ...plotting import SERIES_COLORS, measured, model_line, new_axes
from ...verdict import Verdict, cases
from ..lab import engines_placed_by  # noqa: F401 (the lab page's verdict)
from ..lab import machine_scope as what_this_machine_shows  # noqa: F401


# --- jacobi --------------------------------------------------------------------------------
def plot_jacobi_convergence(runs, title="Jacobi, sweep by sweep"):
    """runs: [(label, error_rms_history, residual_rms_history)]; both on a log axis."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    for i, (label, err, res) in enumerate(runs):
        style = dict(
            marker="o", ms=3, lw=1, color=SERIES_COLORS[i % len(SERIES_COLORS)], ls=["-", "--", ":", "-."][i % 4]
        )
        axes[0].plot(np.arange(len(err)), err, label=label, **style)
        axes[1].plot(np.arange(len(res)), res, label=label, **style)
    for ax, what in zip(axes, ["RMS error", "RMS residual"]):
        ax.set_yscale("log")
        ax.set_xlabel("sweep")
        ax.set_title(what, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


JACOBI_BALANCES = [
    (16, "16 B/LUP, no write-allocate"),
    (24, "24 B/LUP, layer condition"),
    (40, "40 B/LUP, planes reloaded"),
]


def plot_jacobi_roofline(
    L,
    mlups,
    bandwidth_MBps,
    mlups_min=None,
    mlups_max=None,
    caches=(),
    title="One process, roofline",
):
    """MLUP/s of single-process sweeps against the grid edge L, with the memory roofline
    bandwidth / code balance for each balance, and where two grids outgrow each cache.

    caches: [(name, bytes)] e.g. [("L2", 512 KiB), ("L3", 32 MiB)].
    """
    fig, ax = new_axes(title, "grid edge L", "MLUP/s", logx=True)
    L = np.asarray(L, float)
    measured(
        ax, L, mlups, mlups_min, mlups_max, label="measured, 1 process (median sweep)", color="C0", ms=6, elinewidth=1
    )
    for (balance, label), ls in zip(JACOBI_BALANCES, ["--", "-", ":"]):
        model_line(
            ax,
            [L.min() / 1.3, L.max() * 1.3],
            [bandwidth_MBps / balance] * 2,
            label=f"roofline model, {label}",
            color="k",
            ls=ls,
            lw=1.2,
        )
    for name, size in caches:
        edge = (size / 16) ** (1 / 3)  # two arrays of L^3 doubles
        if L.min() / 1.3 < edge < L.max() * 1.3:
            ax.axvline(edge, color="0.5", ls=":", lw=1)
            ax.annotate(
                f"2 grids > {name}",
                (edge, 0.0),
                xycoords=("data", "axes fraction"),
                xytext=(3, 6),
                textcoords="offset points",
                fontsize=8,
                rotation=90,
                va="bottom",
                color="0.4",
            )
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
    fig.set_size_inches(7.0, 5.0)
    fig.tight_layout()
    return fig


def plot_jacobi_time_split(labels, compute_us, halo_us, title="A sweep's time"):
    """Stacked bars per run: compute and halo exchange (µs per sweep, slowest rank)."""
    fig, ax = new_axes(title, "", "µs per sweep", figsize=(6.4, 3.6))
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


def plot_jacobi_scaling(
    series=(),
    models=(),
    title="Jacobi: MLUP/s",
    ax=None,
    logy=False,
    legend_loc="upper left",
):
    """MLUP/s against N: series [(label, N, mlups)] as points, models [(label, N, mlups)] as
    lines (labelled model)."""
    if ax is None:
        fig, ax = new_axes(title, "processes N", "MLUP/s", logy=logy)
    else:
        fig = ax.figure
    markers = ["o", "s", "^", "D", "v", "P"]
    for i, (label, N, p) in enumerate(series):
        measured(
            ax, N, p, label=label, color=SERIES_COLORS[i % len(SERIES_COLORS)], marker=markers[i % len(markers)], ms=6
        )
    styles = ["-", "--", "-.", ":"]
    for i, (label, N, p) in enumerate(models):
        model_line(ax, N, p, label=label, color=["k", "C3", "C7", "C4"][i % 4], ls=styles[i % len(styles)])
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8, loc=legend_loc)
    return fig


def plot_jacobi_report_check(
    labels,
    measured_mlups,
    report_mlups,
    consistent_mlups,
    title="Model / measured, L = 1200",
):
    """For each run, prediction / measurement of the report's arithmetic and of the same
    formula in consistent units (1 = perfect; below 1 the model underestimates)."""
    fig, ax = new_axes(title, "", "model / measured", figsize=(9, 3.8))
    x = np.arange(len(labels))
    m = np.asarray(measured_mlups, float)
    ax.bar(x - 0.2, np.asarray(report_mlups, float) / m, 0.4, color="C7", label="the report's numbers (model)")
    ax.bar(
        x + 0.2,
        np.asarray(consistent_mlups, float) / m,
        0.4,
        color="C0",
        label="consistent units (model)",
    )
    ax.axhline(1.0, color="k", lw=1)
    ax.set_xticks(x, labels, fontsize=8, rotation=30, ha="right")
    ax.set_ylim(0.6, 1.45)
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(True, axis="x", alpha=0)
    fig.tight_layout()
    return fig


def plot_jacobi_noncompute(labels, noncompute_s, imbalance_s, model_tc_s, title="Outside the stencil"):
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
    ax.bar(x + 0.27, model_tc_s, 0.27, color="0.6", label="T_c (model)")
    ax.set_xticks(x, labels, fontsize=8, rotation=30, ha="right")
    ax.legend(fontsize=8, loc="upper right")
    ax.grid(True, axis="x", alpha=0)
    fig.tight_layout()
    return fig


# --- what the page's prose takes from its runs and from the ORFEO runs ----------------------------
def percent_range(values) -> tuple[float, float]:
    """(lowest, highest) of fractions, in per cent."""
    v = 100 * np.asarray(values, float)
    return float(v.min()), float(v.max())


def report_check_facts(report_runs) -> dict:
    """The Scorcia runs against the report's numbers and the consistent-unit formula: the
    worst point (largest model / measured) set apart, the ranges of the others in per cent."""
    over = report_runs.model_mlups / report_runs.measured_mlups
    worst = over.idxmax()
    rest = report_runs.drop(index=worst)
    under = 1 - rest.report_mlups / rest.measured_mlups
    return dict(
        worst_np=int(report_runs.np[worst]),
        worst_machine=report_runs.machine[worst],
        report_under=percent_range(under),
        consistent_over=percent_range(rest.model_mlups / rest.measured_mlups - 1),
    )


def noncompute_facts(split_runs) -> dict:
    """Time outside the stencil per sweep (ms), with several processes and with one, its ratio
    to the model's T_c, and the largest imbalance."""
    many = split_runs[split_runs.np > 1]
    one = split_runs[split_runs.np == 1]
    worst = split_runs.imbalance_s.idxmax()
    share = many.noncompute_s / (1200**3 / (many.measured_mlups * 1e6))  # of a sweep of 1200^3
    return dict(
        many_ms=(1e3 * many.noncompute_s.min(), 1e3 * many.noncompute_s.max()),
        share=percent_range(share),
        imbalance_over_tc=((many.imbalance_s / many.model_Tc_s).min(), (many.imbalance_s / many.model_Tc_s).max()),
        over_tc=((many.noncompute_s / many.model_Tc_s).min(), (many.noncompute_s / many.model_Tc_s).max()),
        one_ms=(1e3 * one.noncompute_s.min(), 1e3 * one.noncompute_s.max()),
        imbalance_s=float(split_runs.imbalance_s[worst]),
        imbalance_np=int(split_runs.np[worst]),
        imbalance_machine=str(split_runs.machine[worst]),
    )


def optimism(cmp, machine: str, nps, scaling: str = "strong") -> tuple[float, float]:
    """How optimistic the consistent model is (model / measured - 1, per cent) over the runs
    of `machine` with np in `nps`."""
    rows = cmp[(cmp.machine == machine) & (cmp.scaling == scaling) & cmp.np.isin(list(nps))]
    return percent_range(rows.model_mlups / rows.measured_mlups - 1)


PLAIN_LOOP_FLAGS = ("-fno-tree-loop-distribute-patterns",)  # keep `c = a` a loop, not memcpy


def stream_variants(size: str = "96M", repetitions: int = 6, rounds: int = 2):
    """STREAM copy and triad on one process, built as usual (GCC turns the copy loop into a
    memcpy call) and with PLAIN_LOOP_FLAGS, alternating `rounds` times; the best of each:
    a table variant, kernel, bandwidth_MBps (bytes counted by STREAM), bandwidth_wa_MBps
    (with the write-allocate read of the target)."""
    import pandas as pd

    from ... import kernels

    rows = []
    for _ in range(rounds):
        for variant, flags in (("memcpy (default build)", ()), ("plain loop", PLAIN_LOOP_FLAGS)):
            out = kernels.run_mpiexec(
                "stream",
                1,
                {"size": size, "repetitions": repetitions, "kernels": "copy,triad"},
                timeout=300,
                extra_flags=flags,
            )
            for r in out.table.itertuples():
                rows.append((variant, r.algorithm, r.bandwidth_MBps, r.bandwidth_wa_MBps))
    t = pd.DataFrame(rows, columns=["variant", "kernel", "bandwidth_MBps", "bandwidth_wa_MBps"])
    return t.groupby(["variant", "kernel"], sort=False).max()


@cases("skipped", "paid", "unclear")
def write_allocate(variants, band: float = 0.15) -> Verdict:
    """What the two copies say about memcpy's stores: does memcpy's bandwidth counted at 16 B
    per element (case skipped), or at 24 B (case paid), match the plain loop's (which does
    write-allocate) within `band`? Reads both copies of the table (the triad rows are shown
    as a second opinion only)."""
    loop = variants.loc[("plain loop", "copy"), "bandwidth_wa_MBps"]
    mc_counted = variants.loc[("memcpy (default build)", "copy"), "bandwidth_MBps"]
    mc_wa = variants.loc[("memcpy (default build)", "copy"), "bandwidth_wa_MBps"]
    r16, r24 = mc_counted / loop, mc_wa / loop
    numbers = {"r16": r16, "r24": r24, "band": band}
    if abs(r16 - 1) <= band and abs(r16 - 1) < abs(r24 - 1):
        return Verdict("skipped", numbers)
    if abs(r24 - 1) <= band:
        return Verdict("paid", numbers)
    return Verdict("unclear", numbers)


def cache_bytes(level: int) -> int:
    """This machine's data cache size at a level, from sysfs (0 when unknown)."""
    from pathlib import Path

    for index in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"):
        try:
            if (index / "level").read_text().strip() == str(level) and (
                index / "type"
            ).read_text().strip() != "Instruction":
                size = (index / "size").read_text().strip()
                return int(size.rstrip("KMG")) * {"K": 1024, "M": 1 << 20, "G": 1 << 30}.get(size[-1], 1)
        except (OSError, ValueError):
            return 0
    return 0


@cases("unknown", "far", "beyond", "inside")
def grids_vs_cache(grids_bytes: float, llc_bytes: int) -> Verdict:
    """How the sweep's two grids compare with this machine's last-level cache (0: unknown)."""
    numbers = {"grids_MB": grids_bytes / 1e6, "llc_MB": llc_bytes / 1e6}
    if not llc_bytes:
        return Verdict("unknown", numbers)
    if grids_bytes > 4 * llc_bytes:
        return Verdict("far", numbers)
    return Verdict("beyond" if grids_bytes > llc_bytes else "inside", numbers)


@cases("close", "above_in_cache", "above", "below")
def sweep_roof(at_roof: float, grids_bytes: float, llc_bytes: int) -> Verdict:
    """The largest sweep against the copy's roofline (at_roof = sweep / roofline): close (0.7 to
    1.1), above with the grids in the last-level cache, above without, or below."""
    numbers = {"ratio": at_roof}
    if 0.7 <= at_roof <= 1.1:
        return Verdict("close", numbers)
    if at_roof > 1.1:
        return Verdict("above_in_cache" if llc_bytes and grids_bytes <= llc_bytes else "above", numbers)
    return Verdict("below", numbers)


def _z_over_x(ratio: float) -> str:
    return "slower" if ratio > 1.1 else "same" if ratio >= 0.9 else "faster"


@cases("slower", "same", "faster", "differ")
def direction(strong: tuple[float, float], weak: tuple[float, float]) -> Verdict:
    """The z split's halo time against the x split's, in both pairs of two-process runs the
    figure shows ((x µs, z µs) each, strong and weak scaling): the case both pairs agree on, or
    `differ` when they fall on different sides (slower, within 10 %, faster)."""
    r_strong, r_weak = strong[1] / strong[0], weak[1] / weak[0]
    numbers = {
        "strong": r_strong,
        "weak": r_weak,
        "ratio_min": min(r_strong, r_weak),
        "ratio_max": max(r_strong, r_weak),
    }
    case = _z_over_x(r_strong)
    return Verdict(case if case == _z_over_x(r_weak) else "differ", numbers)


@cases("unknown", "fits", "half", "exceeds")
def planes_in_cache(planes_bytes: float, llc_bytes: int) -> Verdict:
    """Does the layer condition (three planes in about half the last-level cache) hold here?"""
    numbers = {"planes_MB": planes_bytes / 1e6, "llc_MB": llc_bytes / 1e6}
    if not llc_bytes:
        return Verdict("unknown", numbers)
    if planes_bytes <= llc_bytes / 2:
        return Verdict("fits", numbers)
    return Verdict("half" if planes_bytes <= llc_bytes else "exceeds", numbers)


@cases("same", "differ")
def same_field(checksums) -> Verdict:
    """Every decomposition's checksum of the field, as the page's table shows them (all rows)."""
    distinct = len(set(checksums))
    return Verdict("same" if distinct == 1 else "differ", {"runs": len(checksums), "distinct": distinct})


@cases("none_above", "some_above", "all_above")
def halo_vs_model(rows) -> Verdict:
    """Measured halo share of a sweep against the model's communication share, over every row of
    the page's table (each grid with B = b and with B = 2b)."""
    above = sum(r["measured halo share"] > r["model comm share"] for r in rows)
    numbers = {"above": above, "rows": len(rows), "max_model_share": max(r["model comm share"] for r in rows)}
    return Verdict("none_above" if not above else "all_above" if above == len(rows) else "some_above", numbers)


@cases("flat", "spread_faster", "packed_faster", "mixed")
def placement12(cmp, band: float = 0.02) -> Verdict:
    """Twelve processes on THIN (strong scaling), median MLUP/s per mapping, every mapping the
    data hold (core: one socket; socket: two sockets; node: two nodes): within `band` of each
    other (flat), or the spread ones (socket, node) all above / all below the packed one (core),
    or on both sides of it (mixed)."""
    rows = cmp[(cmp.machine == "orfeo-thin") & (cmp.scaling == "strong") & (cmp.np == 12)]
    by = rows.groupby("mapping").measured_mlups.median()
    spread = by.drop("core")
    numbers = {"core": by["core"], "spread_min": spread.min(), "spread_max": spread.max()}
    numbers["spread_gain"] = 100 * (spread.max() / by["core"] - 1)
    numbers["range"] = 100 * (by.max() / by.min() - 1)
    if by.max() / by.min() - 1 <= band:
        return Verdict("flat", numbers)
    if spread.min() > by["core"]:
        return Verdict("spread_faster", numbers)
    return Verdict("packed_faster" if spread.max() < by["core"] else "mixed", numbers)
