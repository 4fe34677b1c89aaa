"""Jacobi on simulated THIN nodes (book/jacobi.md): the book's jacobi3d.c under SimGrid's SMPI on
1 to 8 nodes, its compute charged at one THIN process's measured rate, beside the model."""

from __future__ import annotations

import pandas as pd

from ...models import jacobi as jm
from ...plotting import measured, model_line, new_axes
from ...verdict import Verdict, cases

CORES_PER_NODE = 24  # THIN: 2 sockets x 12 cores; the runs fill nodes by core
BAND = 0.02  # model and simulation "agree" within 2 %


def simulated_scaling():
    """The shipped (or, with SMPI and a warm cache, this machine's) simulated strong scaling:
    (SimulatedRun list, options). Never starts a simulation: 192 ranks take minutes."""
    from ...simulate.cluster import SimulatedCluster, jacobi_strong_scaling

    kernel, platform, nodes, map_by, nps, options = jacobi_strong_scaling()
    sim = SimulatedCluster(platform, nodes)
    return sim.sweep_if_cached(kernel, nps, options, map_by), options


def scaling_table(runs, options, T_l_us: float, B_MBps: float) -> pd.DataFrame:
    """One row per simulated run: processes, nodes, grid, simulated MLUP/s and halo share, and the
    chapter's model for the same grid and the same compute rate (T_s = L^3 / rate)."""
    L, rate = int(options["L"]), float(options["sim-lups"])
    T_s = L**3 / rate
    rows = []
    for r in runs:
        t = r.output.table.iloc[0]
        grid = str(t["grid"])
        model = jm.strong_mlups(L, grid, T_s, B_MBps, T_l_us, periodic=False)
        rows.append(
            {
                "processes": int(r.np),
                "nodes": -(-int(r.np) // CORES_PER_NODE),
                "grid": grid,
                "simulated MLUP/s": float(L**3 / float(t["t_median_us"])),
                "model MLUP/s": model,
                "simulated halo share": float(t["halo_us"]) / float(t["t_median_us"]),
            }
        )
    table = pd.DataFrame(rows)
    table["model / simulated"] = table["model MLUP/s"] / table["simulated MLUP/s"]
    return table


@cases("live", "reference")
def simulation_source(runs) -> Verdict:
    """Simulated on this machine (SMPI, cached) or the shipped reference simulation."""
    reference = next((r.reference for r in runs if r.reference), "")
    numbers = {"library": runs[0].library, "reference": reference or "none"}
    return Verdict("reference" if reference else "live", numbers)


@cases("agree", "part_across_nodes", "part_within_node", "simulation_faster", "both_ways")
def model_vs_simulation(table, band: float = BAND) -> Verdict:
    """The model against the simulation over every row of the table: within `band` everywhere
    (agree); above the simulation by more than `band` only once the run spans nodes, or
    already on one node; the simulation faster than the model by more than `band` at some row
    and the model never by more (simulation_faster: `gap_min` at `gap_min_np`, the most
    negative); or each faster by more than `band` at some row (both_ways)."""
    gap = table["model / simulated"] - 1
    one_node = table.nodes == 1
    worst = gap.abs().idxmax()
    last = table.processes.idxmax()
    numbers = {
        "band": band,
        "rows": len(table),
        "gap_one_node": float(gap[one_node].abs().max()) if one_node.any() else 0.0,
        "gap_max": float(gap[worst]),
        "gap_np": int(table.processes[worst]),
        "gap_nodes": int(table.nodes[worst]),
        "halo_at_gap": float(table["simulated halo share"][worst]),  # the row the sentence names
        "np_last": int(table.processes[last]),
        "gap_min": float(gap.min()),
        "gap_min_np": int(table.processes[gap.idxmin()]),
        "gap_top": float(gap.max()),  # both_ways: the model's largest lead (gap_max may be the other side)
        "gap_top_np": int(table.processes[gap.idxmax()]),
    }
    if gap.abs().max() <= band:
        return Verdict("agree", numbers)
    if gap.min() < -band:
        return Verdict("both_ways" if gap.max() > band else "simulation_faster", numbers)
    if numbers["gap_one_node"] <= band:
        return Verdict("part_across_nodes", numbers)
    return Verdict("part_within_node", numbers)


def plot_simulated_scaling(table, orfeo_runs, rate_mlups: float, L: int, title="Jacobi, simulated THIN"):
    """Parallel efficiency (MLUP/s over N times one process's rate) against N: the simulation
    and the model for L^3, ORFEO's measured 1200^3 runs (one machine) beside them."""
    fig, ax = new_axes(title, "processes N", "parallel efficiency", logx=True)
    N = table.processes.to_numpy(float)
    ideal = N * rate_mlups
    model_line(ax, N, table["model MLUP/s"] / ideal, label=f"model, {L}³", color="k")
    measured(ax, N, table["simulated MLUP/s"] / ideal, label=f"simulated (SMPI), {L}³", color="C3", marker="s", ms=6)
    for i, (mapping, g) in enumerate(orfeo_runs.groupby("mapping")):
        label = f"ORFEO by {mapping}, 1200³ (measured)"
        measured(ax, g.np, g.measured_mlups / (g.np * rate_mlups), label=label, color=f"C{i}", ms=5)
    ax.axhline(1.0, color="0.5", lw=0.8)
    for n in (24, 48, 96):
        ax.axvline(n + 0.5, color="0.8", ls=":", lw=1)
    ax.set_ylim(0.8, 1.05)
    ax.set_xticks(N, [str(int(n)) for n in N])
    ax.legend(fontsize=8, loc="lower left")
    return fig
