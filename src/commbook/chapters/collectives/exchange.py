"""Allgather, alltoall and reduce-scatter on this machine (book/collectives_library.md): the
library's collectives timed OSU-style next to their models, and each modelled library algorithm
forced, read back through MPI_T and its messages counted (Open MPI), against its schedule."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import algorithms, machine, mpi_env
from ...models import collective_costs, collective_schedules
from ...verdict import Verdict, cases
from . import common as chapter

EXCHANGE_OPS = ("allgather", "alltoall", "reduce_scatter")
TIMING_SIZES = "8,1K,64K"  # n: one rank's block (allgather), one block per pair (alltoall), the vector (reduce_scatter)
PATTERN_NP = 4  # processes of the message-pattern runs (oversubscribed: messages, not times)
PATTERN_SIZE = "4K"
PAGE = "book/collectives_library_lab.md"


def measure_times(cluster, sizes: str = TIMING_SIZES, repetitions: int = 5, iterations: int = 100) -> pd.DataFrame:
    """The library's own allgather, alltoall and reduce-scatter on the cluster's engines: one
    tidy table with an `op` column."""
    labels = dict(machine=machine.name(), mapping=machine.local_mapping(cluster.n), source=PAGE)
    frames = []
    for op in EXCHANGE_OPS:
        out = chapter.measure(
            op, "library", np=cluster.n, sizes=sizes, cluster=cluster, repetitions=repetitions, iterations=iterations
        )
        frames.append(chapter.tidy(out, **labels).assign(op=op))
    return pd.concat(frames, ignore_index=True)


def model_table(times: pd.DataFrame, lam: float, b: float) -> pd.DataFrame:
    """Measured medians next to the cheapest modelled algorithm's Hockney time at the same P
    and n (gamma = 0: the additions are left out, a lower estimate for reduce-scatter)."""
    rows = []
    for r in times[times.size_bytes > 0].itertuples():
        model = min(
            collective_costs.predict(r.op, alg, int(r.np), float(r.size_bytes), lam, b)
            for alg in collective_schedules.ALGORITHMS[r.op]
        )
        rows.append((r.op, int(r.np), int(r.size_bytes), r.t_us, model, r.t_us / model))
    return pd.DataFrame(rows, columns=["op", "np", "size_bytes", "measured_us", "model_us", "measured/model"])


@cases("within", "above", "below", "both")
def model_side(table: pd.DataFrame, factor: float = 2.0) -> Verdict:
    """Every row of the table (measured/model) within `factor` of the model, or some rows beyond
    it above, below, or both; the numbers: the extreme ratios and the row with the largest."""
    ratio = table["measured/model"]
    lo, hi = float(ratio.min()), float(ratio.max())
    worst = table.loc[ratio.idxmax()]
    key = (
        "within"
        if lo >= 1 / factor and hi <= factor
        else "above"
        if lo >= 1 / factor
        else "below"
        if hi <= factor
        else "both"
    )
    numbers = {"min": lo, "max": hi, "worst_op": worst.op.replace("_", "-"), "worst_bytes": float(worst.size_bytes)}
    return Verdict(key, numbers | {"rows": len(table)})


def model_messages(op: str, model: str, P: int) -> int:
    """The most messages one rank sends in the model's schedule."""
    sent = np.zeros(P, dtype=int)
    for step in collective_schedules.schedule(op, model, P):
        for m in step:
            sent[m.src] += 1
    return int(sent.max())


def forced_records(family) -> list[algorithms.Algorithm]:
    """The library algorithms of the three operations that commbook models and `family` (an
    mpi_env.MPIFamily or its name) can force."""
    return [a for op in EXCHANGE_OPS for a in algorithms.of(op) if a.model and algorithms.library_ident(family, a)]


def forced_patterns(np: int = PATTERN_NP, size: str = PATTERN_SIZE) -> pd.DataFrame:
    """Each modelled library algorithm forced, its variable read back (MPI_T: what was asked) and,
    on Open MPI, its messages counted for one call (what ran): op, forced, library reports, model, messages per rank
    (counted, the most any rank sent; NaN without counters) and in the model."""
    from ...collective_runs import check_selection, parse_algorithms, parse_messages

    family = mpi_env.detect().family
    rows = []
    for a in forced_records(family):
        label = f"library:{algorithms.library_ident(family, a)}"
        out = chapter.measure(
            a.operation, label, np=np, sizes=size, repetitions=1, iterations=1, monitor=family.counts_messages
        )
        said = check_selection(out, a.operation, parse_algorithms(a.operation, label)[1])
        counted = float("nan")
        if family.counts_messages:
            msgs = parse_messages(out)
            per_rank = msgs[msgs["count"] > 0].groupby("src")["count"].sum()
            counted = float(per_rank.max()) if len(per_rank) else 0.0
        rows.append(
            (
                a.operation,
                label,
                said.split(" = ", 1)[-1],  # the value the library holds, e.g. 2 (bruck)
                a.model,
                counted,
                model_messages(a.operation, a.model, np),
            )
        )
    return pd.DataFrame(rows, columns=["op", "forced", "library reports", "model", "messages per rank", "in the model"])


@cases("all", "some", "uncounted")
def pattern_match(table: pd.DataFrame) -> Verdict:
    """Whether the busiest rank's counted messages equal the model's schedule in every counted
    run; `uncounted` when the MPI counts no messages per peer (MPICH)."""
    counted = table.dropna(subset=["messages per rank"])
    if counted.empty:  # every case glues the same numbers, as the page words all of them
        return Verdict("uncounted", {"counted": 0, "matched": 0, "differ": "none"})
    same = counted["messages per rank"] == counted["in the model"]
    numbers = {"counted": len(counted), "matched": int(same.sum())}
    if same.all():
        return Verdict("all", numbers | {"differ": "none"})
    off = counted[~same]
    return Verdict("some", numbers | {"differ": ", ".join(f"{r.forced} ({r.op})" for r in off.itertuples())})
