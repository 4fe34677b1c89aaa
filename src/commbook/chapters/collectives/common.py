"""Collectives chapters (book/collectives_*.md): measuring algorithms on a cluster, their figures,
the models' predictions and crossovers, the lecture's and ORFEO's data against the models."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ... import algorithms, kernels, mpi_env, orfeo
from ...algorithms import model_name as library_model_name
from ...collective_runs import (
    MODEL_NAMES,
    check_op,
    check_selection,
    message_matrix,
    parse_algorithms,
    prepare_for,
)
from ...models import collective_costs, collective_schedules
from ...models.collective_schedules import ompi_chain_schedule
from ...models.link_classes import (
    link_class_time,
    rank_finish_times,
)
from ...plotting import measured, model_line, size_axis


def collective_color(algorithm: str, i: int = 0, op: str | None = None) -> str:
    """One colour per algorithm across its kernel, model and library names (commbook.algorithms)."""
    return algorithms.colour(str(algorithm), op, i)


def _along(table, x: str):
    """`table` sorted by its column x, and that column as floats: a curve's points in order."""
    table = table.sort_values(x)
    return table, table[x].to_numpy(float)


def plot_collective_times(
    table, x="size_bytes", models=None, title="", ax=None, label_suffix="", logy=True, colors=None
):
    """Measured time per call (median, bars from min to max over repetitions) of every
    algorithm in a tidy table, against message size (x="size_bytes") or processes (x="np").
    `models`: a table algorithm, np, size_bytes, t_us (commbook.collective_runs.predict_table)
    drawn as lines labelled "model". `colors`: {algorithm: colour} for labels without their own."""
    if ax is None:
        _, ax = plt.subplots(figsize=(7.2, 4.2))
    ops = set(table["benchmark"]) if "benchmark" in table.columns else set()
    op = ops.pop() if len(ops) == 1 else None  # library:ID names an algorithm of one operation
    for i, (alg, g) in enumerate(table.groupby("algorithm", sort=False)):
        g, xs = _along(g, x)
        color = (colors or {}).get(alg) or collective_color(alg, i, op)
        measured(ax, xs, g["t_us"], g["t_min_us"], g["t_max_us"], color=color, label=f"{alg}{label_suffix}")
    if models is not None and len(models):
        for i, (alg, g) in enumerate(models.groupby("algorithm", sort=False)):
            g, xs = _along(g, x)
            model_line(ax, xs, g["t_us"], label=f"{alg} (model)", color=collective_color(alg, i, op), ls="--")
    if x == "size_bytes":
        size_axis(ax)
    else:
        ax.set_xlabel("processes P")
    if logy:
        ax.set_yscale("log")
    ax.set_ylabel("time per call (µs)")
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    ax.figure.tight_layout()
    return ax


def plot_message_matrices(messages, P: int, algorithms=None, titles=None, ncols=4):
    """Who sent to whom in one call: a P x P grid per algorithm, from the library's own
    message counters (commbook.collective_runs.parse_messages). Row = sender, column = receiver."""
    from ...collective_runs import message_matrix

    algorithms = list(algorithms or dict.fromkeys(messages.algorithm))
    n = len(algorithms)
    ncols = min(ncols, n)
    nrows = -(-n // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(2.6 * ncols + 0.4, 2.6 * nrows + 0.3), squeeze=False)
    for k, ax in enumerate(axes.flat):
        if k >= n:
            ax.axis("off")
            continue
        alg = algorithms[k]
        M = message_matrix(messages, alg, P)
        ax.imshow(M > 0, cmap="Blues", vmin=0, vmax=1.6, interpolation="nearest")
        for i, j in zip(*np.nonzero(M)):
            ax.text(j, i, str(M[i, j]) if M[i, j] > 1 else "•", ha="center", va="center", fontsize=8, color="k")
        ax.set_xticks(range(P))
        ax.set_yticks(range(P))
        ax.tick_params(labelsize=7)
        ax.set_xlabel("to rank", fontsize=8)
        if k % ncols == 0:
            ax.set_ylabel("from rank", fontsize=8)
        ax.set_title((titles or {}).get(alg, alg), fontsize=9)
    fig.tight_layout()
    return fig


def plot_communication_diagram(trace, algorithm: str, P: int, ax=None, title=None):
    """Rappl's homework's drawing of a butterfly: ranks across, time down; each step
    is a row of arrows from sender to receiver (both directions of an exchange show)."""
    t = trace[trace.algorithm == algorithm]
    if t.empty:
        raise ValueError(f"no trace for '{algorithm}'")
    steps = sorted(t.step.unique())
    if ax is None:
        _, ax = plt.subplots(figsize=(0.55 * P + 2.2, 0.75 * len(steps) + 1.0))
    from matplotlib.patches import FancyArrowPatch

    for k, step in enumerate(steps):
        y0, y1 = -k, -(k + 1)
        for r in t[t.step == step].itertuples():
            bend = 0.15 if r.src < r.dst else -0.15
            ax.add_patch(
                FancyArrowPatch(
                    (r.src, y0),
                    (r.dst, y1),
                    arrowstyle="-|>",
                    mutation_scale=10,
                    color=f"C{k % 10}",
                    lw=1.3,
                    connectionstyle=f"arc3,rad={bend}",
                    shrinkA=5,
                    shrinkB=5,
                )
            )
        phase = ", ".join(sorted(set(t[t.step == step].phase)))
        ax.text(P - 0.4, (y0 + y1) / 2, f"step {step}: {phase}", fontsize=7, va="center")
    for y in range(len(steps) + 1):
        ax.scatter(range(P), [-y] * P, s=60, c="white", edgecolors="0.3", zorder=3)
    ax.set_xticks(range(P))
    ax.set_xticklabels([str(r) for r in range(P)], fontsize=8)
    ax.set_xlabel("rank")
    ax.set_yticks([])
    ax.set_xlim(-0.6, P + 1.8)
    ax.set_ylim(-len(steps) - 0.4, 0.4)
    for side in ("left", "right", "top"):
        ax.spines[side].set_visible(False)
    ax.set_title(title or f"{algorithm}, P = {P}", fontsize=10)
    ax.figure.tight_layout()
    return ax


def plot_ratio(ratios, x="size_bytes", label="ratio", title="", ax=None, color="C5"):
    """A ratio of two algorithms' times (commbook.collective_runs.ratio_table) with its range;
    1 (no difference) drawn as a line."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 3.6))
    r, xs = _along(ratios, x)
    measured(
        ax,
        xs,
        r["ratio"],
        r["ratio_low"],
        r["ratio_high"],
        color=color,
        label=f"{label}: median, range",
    )
    ax.plot(xs, r["ratio_of_minima"], "x", color=color, label=f"{label}: fastest repetitions")
    ax.axhline(1.0, color="0.3", lw=1)
    if x == "size_bytes":
        size_axis(ax)
    else:
        ax.set_xlabel("processes P")
    ax.set_yscale("log")
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_ylabel("time ratio")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title(title, fontsize=10)
    ax.figure.tight_layout()
    return ax


def measure(
    op: str,
    algorithms="library",
    np: int = 2,
    sizes="0:1M",
    cluster=None,
    repetitions: int = 5,
    iterations: int = 200,
    trace: bool = False,
    monitor: bool = False,
    timeout: float = 300.0,
    **options,
) -> kernels.KernelOutput:
    """Run the `op` kernel with the given algorithms and return its output.

    Runs on `cluster` (a commbook.cluster.MPICluster with np engines) when one is given and
    nothing needs the environment; a forced library algorithm or the monitor need variables
    set before MPI starts, so those runs go through mpiexec. A forced selection is checked
    against what the library reports (check_selection) before the output is returned.
    """
    check_op(op)
    if isinstance(algorithms, (list, tuple)):
        algorithms = ",".join(algorithms)
    opts = {
        "sizes": sizes,
        "algorithm": algorithms,
        "repetitions": repetitions,
        "iterations": iterations,
        "trace": int(bool(trace)),
        "monitor": int(bool(monitor)),
        **options,
    }
    opts, env = prepare_for(op)(opts)
    _, choice = parse_algorithms(op, opts["algorithm"])
    if cluster is not None and not env and cluster.n == np:
        out = cluster.run(op, opts, timeout=timeout)
    else:
        out = kernels.run_mpiexec(op, np, opts, timeout=timeout, env=env)
    check_selection(out, op, choice)
    return out


def tidy(outputs, **labels) -> pd.DataFrame:
    """Kernel outputs as one tidy table (commbook.data schema)."""
    if isinstance(outputs, kernels.KernelOutput):
        outputs = [outputs]
    return kernels.tidy_all(outputs, **labels)


def ratio_table(table: pd.DataFrame, numerator: str, denominator: str) -> pd.DataFrame:
    """Per (np, size): median time of `numerator` over `denominator`, the ratio of the fastest
    repetitions (least disturbed by other load), and the ratio's worst-case range from the
    spreads (min/max and max/min)."""
    keys = ["np", "size_bytes"]
    a = table[table.algorithm == numerator].set_index(keys)
    b = table[table.algorithm == denominator].set_index(keys)
    both = a.index.intersection(b.index)
    if both.empty:
        raise ValueError(f"no (np, size) measured for both {numerator} and {denominator}")
    a, b = a.loc[both], b.loc[both]
    return pd.DataFrame(
        {
            f"{numerator}_us": a.t_us,
            f"{denominator}_us": b.t_us,
            "ratio": a.t_us / b.t_us,
            "ratio_of_minima": a.t_min_us / b.t_min_us,
            "ratio_low": a.t_min_us / b.t_max_us,
            "ratio_high": a.t_max_us / b.t_min_us,
        }
    ).reset_index()


def measured_crossover(table: pd.DataFrame, small: str, large: str, P: int | None = None) -> float:
    """The smallest measured size from which `large` is faster than `small` at every larger size
    measured, comparing the fastest repetitions (the least disturbed by other jobs on a shared
    machine); inf if it is not faster at the largest size."""
    r = ratio_table(table, large, small)
    if P is not None:
        r = r[r.np == P]
    r = r[r.size_bytes > 0].sort_values("size_bytes")
    faster = (r.ratio_of_minima < 1).to_numpy()
    if len(faster) == 0 or not faster[-1]:
        return float("inf")
    first = len(faster) - int(np.argmin(faster[::-1])) if not faster.all() else 0
    return float(r.size_bytes.iloc[first])


# Malakar's lecture, "Timing - effect of data size": mpirun -np 20 over a hostfile, an
# int buffer of `count` elements, MPI_Bcast against the root's loop of MPI_Send; seconds of the
# slowest rank, three runs each (the lecture's printout).
LECTURE_BCAST = {
    "np": 20,
    "count": [10_000, 100_000, 1_000_000, 10_000_000],
    "bcast_s": [
        [0.006201, 0.010286, 0.007437],
        [0.013635, 0.012790, 0.016407],
        [0.096231, 0.100443, 0.095187],
        [0.652760, 0.679472, 0.656884],
    ],
    "sends_s": [
        [0.012150, 0.012115, 0.013936],
        [0.079088, 0.079539, 0.077956],
        [0.577314, 0.566440, 0.567355],
        [5.504277, 5.505701, 5.521421],
    ],
}


MPICH_BCAST_SHORT = 12288  # MPICH's MPIR_CVAR_BCAST_SHORT_MSG_SIZE: binomial below it


def lecture_bcast_comparison() -> tuple[pd.DataFrame, float, float]:
    """The lecture's broadcast-vs-repeated-sends trend explained by the model.

    lambda and b come from a Hockney fit to the repeated sends alone (P - 1 messages of n bytes
    each); the broadcast is then predicted, not fitted, as the algorithm MPICH picks (binomial
    below MPICH_BCAST_SHORT bytes, else scatter + ring allgather, as P = 20 is not a power of
    two). Returns (table, lambda_us, b_MBps)."""
    from ... import fit

    P = LECTURE_BCAST["np"]
    n = np.array(LECTURE_BCAST["count"], float) * 4
    sends = np.median(LECTURE_BCAST["sends_s"], axis=1) * 1e6
    bcast = np.median(LECTURE_BCAST["bcast_s"], axis=1) * 1e6
    h = fit.fit_hockney(n, sends / (P - 1), n_boot=0)
    lam, b = h.lambda_us, h.bandwidth_MBps
    model_bcast = [
        collective_costs.predict("bcast", "binomial" if x < MPICH_BCAST_SHORT else "scatter_allgather", P, x, lam, b)
        for x in n
    ]
    model_sends = collective_costs.predict("bcast", "linear", P, n, lam, b)
    table = pd.DataFrame(
        {
            "ints": LECTURE_BCAST["count"],
            "bytes": n.astype(int),
            "sends measured (ms)": sends / 1e3,
            "sends model (ms)": np.asarray(model_sends) / 1e3,
            "bcast measured (ms)": bcast / 1e3,
            "bcast model (ms)": np.asarray(model_bcast) / 1e3,
            "ratio measured": sends / bcast,
            "ratio model": np.asarray(model_sends) / model_bcast,
        }
    )
    return table, lam, b


def model_name(op: str, algorithm: str) -> str:
    """The commbook.models.collective_schedules name of a kernel algorithm (or a library label)."""
    if (op, algorithm) in MODEL_NAMES:
        return MODEL_NAMES[op, algorithm]
    if algorithm.startswith("library:"):
        ident = algorithm.split(":")[1]
        for family in mpi_env.FAMILIES.values():
            if (name := library_model_name(family, op, ident)) is not None:
                return name
    raise ValueError(f"no model for {op} algorithm '{algorithm}'")


def predict_table(
    op: str, algorithms, P, sizes, lam: float, b: float, gamma: float = 0.0, segment_bytes: int | None = None
) -> pd.DataFrame:
    """Model times (us) for kernel algorithm names at every (P, size): algorithm, np,
    size_bytes, t_us. Library labels with a known coll_tuned number use its model."""
    rows = []
    for alg in algorithms:
        name = model_name(op, alg)
        for p in np.atleast_1d(P):
            for n in np.atleast_1d(sizes):
                t = collective_costs.model_time(op, name, int(p), float(n), lam, b, gamma, segment_bytes)
                rows.append((alg, int(p), int(n), float(t)))
    return pd.DataFrame(rows, columns=["algorithm", "np", "size_bytes", "t_us"])


# The report's two THIN nodes (commbook.topology.cluster's arguments).
ORFEO_THIN = orfeo.node("orfeo-thin").cluster(nodes=2)


def orfeo_predictions(
    op: str,
    algorithms,
    nps,
    n: float,
    mapping: str = "core",
    params: dict | None = None,
    cluster: dict = ORFEO_THIN,
    statistic: str = "max",
) -> pd.DataFrame:
    """Link-class model times (us) on the ORFEO THIN pair of nodes for algorithm names as the
    ORFEO tables spell them (basic_linear, chain, binary_tree, binomial; "chain" is Open MPI's
    four chains, "one chain" the single chain of the seed report's model). Ranks placed like
    `mpirun --map-by mapping`. statistic "max": the slowest rank (the collective's time);
    "mean": the mean over ranks of rank_finish_times, which is what OSU prints as its average
    latency. Columns: algorithm, np, size_bytes, t_us."""
    if statistic not in ("max", "mean"):
        raise ValueError(f"statistic must be 'max' or 'mean', not '{statistic}'")
    from ... import topology as topo

    params = params or orfeo.link_parameters()
    G = topo.cluster(**cluster)
    names = {
        "basic_linear": "linear",
        "linear": "linear",
        "binary_tree": "binary_tree",
        "binomial": "binomial",
        "one chain": "chain",
    }
    rows = []
    for alg in algorithms:
        for P in nps:
            if alg == "chain" and op == "bcast":
                steps = ompi_chain_schedule(int(P))
            elif alg in names:
                steps = collective_schedules.schedule(op, names[alg], int(P))
            else:
                raise ValueError(f"no model for the ORFEO {op} algorithm '{alg}'")
            place = topo.place(G, int(P), mapping)
            if statistic == "max":
                t = link_class_time(steps, n, G, place, params)
            else:
                t = rank_finish_times(steps, n, G, place, params).mean()
            rows.append((alg, int(P), int(n), float(t)))
    return pd.DataFrame(rows, columns=["algorithm", "np", "size_bytes", "t_us"])


def validation_table(runs: dict) -> pd.DataFrame:
    """{(kernel, P): KernelOutput} -> one row per run: kernel, P, algorithms, sizes, verdict."""
    rows = []
    for (op, P), out in runs.items():
        rows.append(
            dict(
                kernel=op,
                P=P,
                algorithms=", ".join(dict.fromkeys(out.table.algorithm)),
                sizes=", ".join(str(s) for s in dict.fromkeys(out.table.size_bytes)),
                result=out.result,
            )
        )
    return pd.DataFrame(rows)


def matching_patterns(messages: pd.DataFrame, algorithm: str, P: int) -> list[str]:
    """The other algorithms in `messages` whose message matrix equals `algorithm`'s."""
    M = message_matrix(messages, algorithm, P)
    return [
        a for a in dict.fromkeys(messages.algorithm) if a != algorithm and (message_matrix(messages, a, P) == M).all()
    ]


def orfeo_or_empty(key: str) -> tuple[pd.DataFrame, str]:
    """commbook.orfeo.load(key), or an empty tidy table and a caption saying why: the ORFEO
    collective timings exist only as raw student files (no seed report quotes them), so a
    machine without them (`commbook data fetch orfeo`) draws the models alone."""
    from ...data import empty_table

    try:
        return orfeo.load(key)
    except orfeo.DataUnavailable as e:
        return empty_table(), f"no ORFEO data ({e})"
