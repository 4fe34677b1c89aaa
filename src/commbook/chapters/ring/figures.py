"""Ring chapter (book/ring.md): time of one ring against P and against the message size."""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from ...plotting import CLASS_COLORS, SERIES_COLORS, measured, model_line, new_axes
from ...verdict import Verdict, cases, model_side
from ..lab import engines_placed_by  # noqa: F401 (the lab page's scope verdict)


def as_placed(placement, dataset: str):
    """`placement` (a commbook.models.ring.Placement) with the ranks mapped as `dataset`'s job
    mapped them (commbook.simulate.validation.PAIRS: the second student named --map-by core, the
    first named none, so Open MPI 4.1's default placed them)."""
    import dataclasses

    from ...simulate import validation

    return dataclasses.replace(placement, map_by=validation.map_by(dataset))


def plot_ring(
    series,
    models=(),
    boundaries=(),
    title="Ring: time of one ring vs processes",
    ax=None,
    logy=False,
    per_step=False,
    legend="best",
):
    """Ring time against P: measured series as points with their spread, models as lines.

    series: [(label, table with np, t_us, t_min_us, t_max_us)], models: [(label, P, t_us)],
    boundaries: [(P, class)] where the ring first uses a dearer link (drawn as dotted lines).
    per_step divides every time by P (µs per step). legend: a matplotlib loc, or "below" the axes.
    """
    if ax is None:
        fig, ax = new_axes(title, "processes P", "µs per step" if per_step else "time of one ring (µs)", logy=logy)
    else:
        fig = ax.figure
    for i, (label, df) in enumerate(series):
        df = df.sort_values("np")
        P = df["np"].to_numpy(float)
        k = P if per_step else 1.0
        measured(
            ax,
            P,
            df["t_us"] / k,
            df["t_min_us"] / k,
            df["t_max_us"] / k,
            label=label,
            color=SERIES_COLORS[i % len(SERIES_COLORS)],
            elinewidth=1,
        )
    styles = ["-", "--", "-.", ":"]
    for i, (label, P, t) in enumerate(models):
        P = np.asarray(P, float)
        model_line(
            ax, P, np.asarray(t, float) / (P if per_step else 1.0), label=label, color="k", ls=styles[i % len(styles)]
        )
    for P, cls in boundaries:
        if P > 1:
            ax.axvline(P - 0.5, color=CLASS_COLORS.get(cls, "0.5"), ls=":", lw=1.2)
            ax.annotate(
                f"{cls} from P={P}",
                (P - 0.5, 1.0),
                xycoords=("data", "axes fraction"),
                xytext=(3, -12),
                textcoords="offset points",
                fontsize=8,
                rotation=90,
                va="top",
                color=CLASS_COLORS.get(cls, "0.5"),
            )
    ax.set_xlim(left=0)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if legend == "below":  # under the axes: inside, it would cover the boundaries' labels
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, frameon=False)
    else:
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
    measured(
        ax,
        df["size_bytes"],
        df["t_us"] / P,
        df["t_min_us"] / P,
        df["t_max_us"] / P,
        label=f"measured, P = {int(P[0])} (min-max bars)",
        color=SERIES_COLORS[0],
        elinewidth=1,
    )
    for i, (label, n, t) in enumerate(models):
        model_line(ax, n, t, label=label, color="k", ls=["-", "--", ":"][i % 3])
    ax.legend(fontsize=8)
    return fig


# ---------------------------------------------------------------------------------------
# The lab (book/ring_lab.md): the live sweep, and verdicts whose words are in the page


def run_sweep(P_values, options: dict, timeout: float = 120):
    """The ring for every P of P_values, blocking (0) and non-blocking (1), through mpiexec;
    saved as this page's measurements. Returns {nonblocking: tidy table}."""
    from ... import data, kernels, machine

    runs = {
        (nb, P): kernels.run_mpiexec("ring", P, {"nonblocking": nb, **options}, timeout=timeout)
        for nb in (0, 1)
        for P in P_values
    }
    local = {
        nb: kernels.tidy_all(
            [runs[nb, P] for P in P_values], machine=machine.name(), source="live run while building this page"
        )
        for nb in (0, 1)
    }
    data.write_measurements(
        data.measurement_path("ring"),
        data.concat([local[0], local[1]]),
        kernels.measurement_meta(runs[0, P_values[0]], "book/ring_lab.md"),
    )
    return local


def model_table(local: dict, model_us) -> "object":
    """Measured µs per ring against the model, per P and variant: one row per P, the columns the
    lab's table quotes. model_us(P, messages_per_step) -> µs."""
    import pandas as pd

    rows = []
    for nb, m in ((0, 2), (1, 1)):
        t = local[nb].set_index("np")["t_us"].sort_index()
        for P, measured_us in t.items():
            model = float(model_us(int(P), m))
            rows.append(
                {
                    "variant": "nonblocking" if nb else "blocking",
                    "P": int(P),
                    "m": m,
                    "measured_us": float(measured_us),
                    "model_us": model,
                    "ratio": float(measured_us) / model,
                }
            )
    return pd.DataFrame(rows)


def glue_model_table(table) -> None:
    """Glue every cell of the lab's table as ring_<variant>_<what>_<P> (what: measured, model, ratio)."""
    from ... import glued

    for r in table.itertuples():
        for what, value in (("measured", r.measured_us), ("model", r.model_us), ("ratio", r.ratio)):
            glued.number(f"ring_{r.variant}_{what}_{r.P}", value)


@cases("within", "below", "above", "mixed")
def table_side(table, cores: int) -> Verdict:
    """model_side over every column of the lab's table, both variants, for its rows with a core
    per rank (P <= cores: the model prices no scheduler); the extremes name their variant."""
    rows = table[table.P <= cores].reset_index(drop=True)
    v = model_side(rows.P, rows.measured_us, rows.model_us)
    r = (rows.measured_us / rows.model_us).to_numpy()
    variant = rows.variant.map({"blocking": "blocking", "nonblocking": "non-blocking"})
    return Verdict(
        v.case, v.numbers | {"variant_of_min": variant[int(np.argmin(r))], "variant_of_max": variant[int(np.argmax(r))]}
    )


def _steps(table, cores: int):
    """µs per step with a core per rank (2 <= P <= cores; P = 1 sends to itself) and
    oversubscribed (P > cores), indexed by P."""
    per_step = (table.set_index("np")["t_us"] / table.set_index("np").index).sort_index()
    return per_step[(per_step.index >= 2) & (per_step.index <= cores)], per_step[per_step.index > cores]


@cases("none", "one", "several")
def own_core_step(table, cores: int) -> Verdict:
    """µs per step of the rings with a core per rank: one ring (2 cores: P = 2) or the median
    over several (P = 2 to P_last)."""
    own, _ = _steps(table, cores)
    if own.empty:
        return Verdict("none", {"us": 0.0, "P_last": 0})
    case = "one" if len(own) == 1 else "several"
    return Verdict(case, {"us": float(own.median()), "P_last": int(own.index.max())})


@cases("no_pair", "never", "flat", "grew", "jump")
def oversubscription(table, cores: int) -> Verdict:
    """The oversubscribed rings (P > cores) against those with a core per rank (own_core_step),
    medians over P: every row of the sweep but P = 1. Every case carries every number (the
    page's roles are resolved for all cases); 0 where the case quotes nothing."""
    own, over = _steps(table, cores)
    numbers = {"cores": cores, "own_us": 0.0, "over_us": 0.0, "factor": 0.0}
    if own.empty:
        return Verdict("no_pair", numbers)
    numbers["own_us"] = float(own.median())
    if over.empty:
        return Verdict("never", numbers)
    factor = float(over.median() / own.median())
    numbers |= {"over_us": float(over.median()), "factor": factor}
    return Verdict("jump" if factor >= 3 else "flat" if factor < 1.2 else "grew", numbers)


@cases("within", "below", "above", "mixed")
def size_side(n, measured_t, model_t) -> Verdict:
    """The ring of 2 ranks against 2(λ + n/b) at every size measured (model_side over sizes)."""
    v = model_side(np.asarray(n, float).round().astype(int), measured_t, model_t)
    names = {"P_of_min": "n_of_min", "P_of_max": "n_of_max", "P_first": "n_first", "P_last": "n_last"}
    return Verdict(v.case, {names.get(k, k): x for k, x in v.numbers.items()})


@cases("seen", "lost", "model_flat")
def node_step(boundary_P: int, measured_jump_us: float, model_jump_us: float) -> Verdict:
    """The jump of the µs per step where the ring on emulated nodes first crosses a node: seen
    when it is more than half the model's jump, lost when at most half of it; model_flat when
    the model (the links just fitted) predicts no rise there (a jump of 0 or less)."""
    numbers = {
        "P": boundary_P,
        "measured_us": measured_jump_us,
        "model_us": model_jump_us,
        "ratio": measured_jump_us / model_jump_us if model_jump_us > 0 else 0.0,
    }
    if model_jump_us <= 0:
        return Verdict("model_flat", numbers)
    return Verdict("seen" if measured_jump_us > 0.5 * model_jump_us else "lost", numbers)


@cases("one_core", "no_node", "emulated", "emulated_shared", "elsewhere")
def what_this_machine_shows(cores: int, nodes_live: bool, node_ranks: int, placed_by: str = "") -> Verdict:
    """What a live ring here can show: with one core no ring of two ranks with a core each; with
    more, rings up to `cores` ranks inside one node, and a node boundary only on emulated nodes,
    whose rings of up to `node_ranks` ranks share this machine's cores when it has fewer;
    `elsewhere` when a setting (`placed_by`, chapters.lab.engines_placed_by) sends the ranks to
    other nodes, which this machine's core count does not describe."""
    numbers = {"cores": cores, "node_ranks": node_ranks, "setting": f"`{placed_by}`" if placed_by else "-"}
    if placed_by:
        return Verdict("elsewhere", numbers)
    if cores < 2:
        return Verdict("one_core", numbers)
    if not nodes_live:
        return Verdict("no_node", numbers)
    return Verdict("emulated_shared" if cores < node_ranks else "emulated", numbers)


# --- the same kernel on a simulated ORFEO (SimGrid SMPI; commbook.simulate) ----------------------
SIMULATED_P = (2, 6, 12, 13, 18, 24, 25, 36, 48)  # both sides of each step, few runs (fast builds)


def simulated_steps(P_values=SIMULATED_P, options=None):
    """The book's ring.c on two simulated THIN nodes placed by core: a tidy table (µs per ring)
    and the SimulatedRun of each P (live with smpirun, else the shipped reference run)."""
    from ...simulate.cluster import SimulatedCluster

    sim = SimulatedCluster(platform="orfeo-thin", nodes=2)
    runs = sim.sweep("ring", P_values, options or {"iterations": 10, "repetitions": 1})
    return sim.tidy(runs), runs


@cases("live", "reference")
def simulated_source(runs) -> Verdict:
    """Simulated here by SMPI, or drawn from the shipped reference simulation; the step's levels
    (µs per step) below the second socket, on it, and across the node, from every P shown."""
    reference = next((r.reference for r in runs if getattr(r, "reference", None)), None)
    per_step = {r.np: float(r.output.table.t_median_us.iloc[0]) / r.np for r in runs}
    level = {
        name: float(np.median([t for P, t in per_step.items() if lo <= P <= hi]))
        for name, (lo, hi) in {"core": (2, 12), "socket": (13, 24), "node": (25, 48)}.items()
    }
    numbers = {f"{k}_us": v for k, v in level.items()} | {
        "library": runs[0].library,
        "reference": reference or "none (simulated live)",
    }
    return Verdict("reference" if reference else "live", numbers)
