"""Broadcast and gather on a simulated ORFEO (book/collectives_algorithms.md): the book's
hand-written algorithms (bcast.c, gather.c) and Open MPI's, each forced in SMPI (the smpi column
of data/collective_algorithms.csv) or chosen by SMPI's copy of Open MPI's rules, on two simulated
THIN nodes at P = 48, 8 B to 4 MiB, against the formulas with ORFEO's InfiniBand link.

As for the allreduce (simulated.py): SMPI's additions and copies are free (γ = 0), and the page
draws the shipped reference (``commbook simulate reference --kernel bcast|gather``) unless every
run is in this machine's SMPI cache. The buffers are real, not SMPI's shared malloc, which would
break the kernels' check of their answer: a gather of 4 MiB blocks holds the root's 2 x 48 blocks
and every binomial subtree's in smpirun's one process (about 1.7 GB resident, measured).
"""

from __future__ import annotations

import pandas as pd

from ... import algorithms, config
from ...models import collective_costs
from ...verdict import Verdict, cases
from . import simulated as allreduce_page
from .common import measured_crossover, model_name, predict_table

OPS = ("bcast", "gather")
P, MAP_BY = allreduce_page.P, allreduce_page.MAP_BY
OPTIONS = allreduce_page.OPTIONS  # 8 B to 4 MiB, 5 calls, one repetition (a simulation is deterministic)
HAND = {  # the book's hand-written algorithms (kernels_c/collectives_algos.c)
    "bcast": ("linear", "chain", "pipeline", "binary", "binomial", "scatter-allgather"),
    "gather": ("linear", "binomial"),
}
SEGMENT = 16384  # bytes: the pipelined chain's segment (bcast.c --segment), simulated and in its formula
DECISION = "library/ompi"  # MPI_Bcast / MPI_Gather under SMPI's copy of Open MPI's rules
PAIRS = {  # (fastest for small messages, the one that overtakes it), as the formulas rank them
    "bcast": (("binomial", "pipeline"), ("binomial", "scatter-allgather")),
    "gather": (("binomial", "linear"),),
}
NEAR = allreduce_page.NEAR
# wall seconds one smpirun of the reference may take: SMPI's segmented trees (NTSB: 8 KiB
# segments) simulate every segment of 4 MiB on 47 links, minutes on this 2-core machine
REFERENCE_TIMEOUT = 1800.0
SAME = 0.01  # Open MPI's pick within 1 % of its fastest algorithm counts as the fastest
link = allreduce_page.link


# Open MPI's algorithms left out of the sweep, and why (the reference's header says it)
LEFT_OUT = {
    # SMPI's NTSB sends 8 KiB segments: smpirun had not finished 8 B to 4 MiB after 14 min of wall
    # time (5 min of CPU) on this 2-core machine
    ("bcast", "binary_tree"): "too slow to simulate",
    # SMPI 3.32's ompi_linear_sync stopped with SimGrid's "Deadlock detected", 0.029 s of simulated
    # time into the sweep
    ("gather", "linear_sync"): "SimGrid: deadlock",
}


def forced(op: str) -> dict[str, str]:
    """{'library:<coll_tuned name>': SMPI's algorithm of the same schedule} for op, but LEFT_OUT."""
    return {
        f"library:{a.ompi_name}": a.smpi
        for a in algorithms.of(op)
        if a.ompi_name and a.smpi and (op, a.ompi_name) not in LEFT_OUT
    }


def runs(op: str) -> dict[str, tuple[str, tuple]]:
    """label -> (the kernel's --algorithm, smpirun's options): one smpirun each."""
    out = {"hand-written": (",".join(HAND[op]), ()), DECISION: ("library", ("--cfg=smpi/coll-selector:ompi",))}
    return out | {label: ("library", (f"--cfg=smpi/{op}:{smpi}",)) for label, smpi in forced(op).items()}


def reference_name(op: str) -> str:
    plat = allreduce_page.REFERENCE.split("-", 1)[1]  # orfeo-thin-2n-core-p48.csv
    return f"{op}-{plat}"


def reference_path(op: str):
    return config.data_dir() / "reference" / "simulated" / reference_name(op)


def _options(op: str, algorithm: str) -> dict:
    return {**OPTIONS, "algorithm": algorithm} | ({"segment": SEGMENT} if op == "bcast" else {})


def simulate(op: str, use_cache: bool = True, timeout: float = REFERENCE_TIMEOUT) -> tuple[pd.DataFrame, dict]:
    """Every run of runs(op) under SMPI (see simulated.sweep)."""
    return allreduce_page.sweep(op, runs(op), lambda alg: _options(op, alg), use_cache, timeout, np=P)


def write_reference(op: str, command: str) -> tuple:
    """Simulate runs(op) and ship them with platform, calibration, options and wall time."""
    from ...data import write_measurements

    table, wall = simulate(op)
    extra = {
        "left_out": "; ".join(f"library:{name}: {why}" for (o, name), why in LEFT_OUT.items() if o == op) or "none",
        "memory": "real buffers",  # not SMPI's shared malloc, which would break the kernel's check
    }
    kernel_args = {k: v for k, v in _options(op, "").items() if k != "algorithm"}
    # the hand-written ones, Open MPI's forced and its rules
    meta = allreduce_page.reference_meta(
        op,
        f"simulated {op} algorithms",
        runs(op),
        wall,
        kernel_args,
        command,
        "commbook.chapters.collectives.simulated_trees.write_reference",
        extra,
    )
    return write_measurements(reference_path(op), table, meta), wall


def read_reference(op: str) -> pd.DataFrame:
    from ...data import read_measurements

    return read_measurements(reference_path(op)).table


def simulated(op: str) -> tuple[pd.DataFrame, str]:
    """(the simulated table of op, its origin), as simulated.cached_sweep says: 'live' from this
    machine's SMPI cache, else ('cold', 'absent') the shipped reference."""
    table, origin = allreduce_page.cached_sweep(op, runs(op), lambda alg: _options(op, alg), np=P)
    return (read_reference(op) if table is None else table), origin


def models(op: str, sizes, lam: float, b: float) -> pd.DataFrame:
    """The formulas' time of each hand-written algorithm of op at P (the pipeline in SEGMENT bytes)."""
    return predict_table(op, HAND[op], P, sizes, lam, b, 0.0, SEGMENT)


def _model_crossover(op: str, small: str, large: str, lam: float, b: float) -> float:
    if large == "pipeline":
        return collective_costs.crossover_size(P, lam, b, SEGMENT)
    return collective_costs.crossover(op, model_name(op, small), model_name(op, large), P, lam, b)


def _times(table: pd.DataFrame) -> pd.DataFrame:
    return table[table.np == P].pivot_table(index="size_bytes", columns="algorithm", values="t_us")


def _pairs(op: str, table: pd.DataFrame, lam: float, b: float) -> list[tuple]:
    """(small, large, simulated crossover, formulas' crossover, sizes below the simulated
    crossover where `large` is already faster) of each pair of PAIRS[op]."""
    t, out = _times(table), []
    for small, large in PAIRS[op]:
        sim = measured_crossover(table, small, large, P)
        early = int(((t[large] < t[small]) & (t.index < sim)).sum())
        out.append((small, large, sim, _model_crossover(op, small, large, lam, b), early))
    return out


def _bytes(x: float):
    return "never" if x == float("inf") else round(x)


def crossovers(op: str, table: pd.DataFrame, lam: float, b: float) -> pd.DataFrame:
    """Each pair: the size from which the second is faster at every larger size simulated, the
    formulas' crossover, and at how many smaller sizes the second is already faster."""
    rows = [
        {
            "small messages": small,
            "large messages": large,
            "simulated from (B)": _bytes(sim),
            "formula from (B)": _bytes(model),
            "also faster below": early,
        }
        for small, large, sim, model, early in _pairs(op, table, lam, b)
    ]
    return pd.DataFrame(rows).set_index(["small messages", "large messages"])


def fastest(op: str, table: pd.DataFrame, lam: float, b: float) -> pd.DataFrame:
    """Per size: the fastest hand-written algorithm simulated and by the formulas, Open MPI's
    fastest forced algorithm, and its rules' pick over that fastest."""
    t = _times(table)
    model = models(op, t.index, lam, b).pivot_table(index="size_bytes", columns="algorithm", values="t_us")
    lib = t[list(forced(op))]
    return pd.DataFrame(
        {
            "simulated": t[list(HAND[op])].idxmin(axis=1),
            "formula": model.idxmin(axis=1),
            "Open MPI's fastest": lib.idxmin(axis=1).str.removeprefix("library:"),
            "its rules / fastest": (t[DECISION] / lib.min(axis=1)).round(2),
        }
    )


def _side(sim: float, model: float) -> str:
    """The simulated crossover over NEAR times below the formulas', near, or over NEAR above
    (or never where the formulas have one)."""
    if sim == float("inf"):
        return "near" if model == float("inf") else "late"
    if model == float("inf"):
        return "below"
    return "below" if sim * NEAR < model else "late" if sim > model * NEAR else "near"


def _finite(x: float) -> float:
    return 0.0 if x == float("inf") else float(x)  # a verdict's numbers are finite: 0 for never


@cases("pipeline_early", "as_formulas", "mixed")
def bcast_crossings(table: pd.DataFrame, lam: float, b: float) -> Verdict:
    """Both pairs of PAIRS['bcast'] (binomial -> pipeline, binomial -> scatter-allgather): each
    simulated crossover below, near or late against the formulas' (factor NEAR; never counts as
    late). "pipeline_early": the pipeline's below or near and scatter-allgather's late but not never
    (its words name the size); "as_formulas":
    both near; else "mixed" with the counts. Also at how many sizes the fastest hand-written
    algorithm differs between simulation and formulas."""
    pairs = _pairs("bcast", table, lam, b)
    (_, _, pipe, pipe_model, pipe_early), (_, _, sag, sag_model, sag_early) = pairs
    sides = [_side(sim, model) for _, _, sim, model, _ in pairs]
    side = fastest("bcast", table, lam, b)
    numbers = {
        "pipe_sim_bytes": _finite(pipe),
        "pipe_model_bytes": _finite(pipe_model),
        "pipe_early": pipe_early,
        "sag_sim_bytes": _finite(sag),
        "sag_model_bytes": _finite(sag_model),
        "sag_early": sag_early,
        "sag_ratio": _finite(sag / sag_model) if sag_model else 0.0,
        "disagree": int((side["simulated"] != side["formula"]).sum()),
        "sizes": len(side),
    }
    numbers |= {f"n_{s}": sides.count(s) for s in ("below", "near", "late")}
    if sides == ["near", "near"]:
        case = "as_formulas"
    elif sides[0] in ("below", "near") and sides[1] == "late" and sag != float("inf"):
        case = "pipeline_early"
    else:
        case = "mixed"
    return Verdict(case, numbers)


@cases("linear_late", "linear_late_and_earlier", "back_and_forth", "binomial_always")
def gather_crossings(table: pd.DataFrame, lam: float, b: float) -> Verdict:
    """Linear against binomial gather at every size: the formulas never let the linear win (the
    same bytes into the root, more latencies). "linear_late": the linear is faster from some size
    to the largest and at no smaller size ("linear_late_and_earlier": at some); "back_and_forth": faster at some sizes but not at the largest; "binomial_always":
    at none. Numbers: where it wins for good, at how many smaller sizes it already wins, the
    smallest size it wins at, and binomial over linear at the largest size."""
    ((_, _, sim, model, early),) = _pairs("gather", table, lam, b)
    t = _times(table)
    wins = t.index[t["linear"] < t["binomial"]]
    numbers = {
        "from_bytes": _finite(sim),
        "model_bytes": _finite(model),
        "early": early,
        "first_bytes": int(wins.min()) if len(wins) else 0,
        "wins": len(wins),
        "sizes": len(t),
        "largest_bytes": int(t.index.max()),
        "largest_ratio": float(t["binomial"].iloc[-1] / t["linear"].iloc[-1]),
    }
    if not len(wins):
        case = "binomial_always"
    elif sim == float("inf"):
        case = "back_and_forth"
    else:
        case = "linear_late_and_earlier" if early else "linear_late"
    return Verdict(case, numbers)


@cases("always", "mixed", "bcast_never", "gather_never", "never")
def library_picks(tables: dict) -> Verdict:
    """Open MPI's rules against its own algorithms, each forced, at every size of both tables
    ({op: table}): at how many it picks the fastest (within SAME), its worst ratio and where; and
    at how many its pick beats the book's fastest hand-written algorithm (library_beats_hand
    words those). The case: every size of both picked right, none, none of one collective's
    (bcast_never, gather_never: the words need no "0 of the 20"), else mixed."""
    numbers = {}
    for op in OPS:
        t = _times(tables[op])
        r = t[DECISION] / t[list(forced(op))].min(axis=1)
        best = r <= 1 + SAME
        numbers |= {
            f"{op}_best": int(best.sum()),
            f"{op}_sizes": len(r),
            f"{op}_worst": float(r.max()),
            f"{op}_worst_at": int(r.idxmax()),
            f"{op}_beats_hand": int((t[DECISION] < t[list(HAND[op])].min(axis=1)).sum()),
        }
    right = sum(numbers[f"{op}_best"] for op in OPS)
    if right == sum(numbers[f"{op}_sizes"] for op in OPS):
        case = "always"
    elif right == 0:
        case = "never"
    else:
        case = next((f"{op}_never" for op in OPS if numbers[f"{op}_best"] == 0), "mixed")
    return Verdict(case, numbers)


@cases("never", "some")
def library_beats_hand(tables: dict) -> Verdict:
    """At how many sizes of both collectives Open MPI's pick beats the book's fastest hand-written
    algorithm (library_picks' counts, summed)."""
    picks = library_picks(tables).numbers
    beats = sum(picks[f"{op}_beats_hand"] for op in OPS)
    sizes = sum(picks[f"{op}_sizes"] for op in OPS)
    return Verdict("some" if beats else "never", {"beats": beats, "sizes": sizes})


@cases("live", "cold", "absent")
def source(origins: dict, tables: dict) -> Verdict:
    """Simulated on this machine (every run from its SMPI cache), or the shipped reference: SMPI
    here but a run not cached ('cold'), or SMPI absent. `reference` names the shipped files the
    page shows: every collective's unless live ('cold' may mix a live one with a shipped one)."""
    values = set(origins.values())
    case = "live" if values == {"live"} else "absent" if "absent" in values else "cold"
    shipped = [op for op in OPS if origins[op] != "live"] or list(OPS)
    refs = ", ".join(f"data/reference/simulated/{reference_name(op)}" for op in shipped)
    return Verdict(case, {"reference": refs, "library": tables[OPS[0]].mpi_library.iloc[0]})


def plot(op: str, table: pd.DataFrame, lam: float, b: float):
    """Two panels: the book's algorithms (simulated) with their formulas (model), and Open MPI's
    algorithms forced in SMPI with its rules' pick (simulated)."""
    import matplotlib.pyplot as plt

    from .common import plot_collective_times

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7.6, 7.4), sharex=True, sharey=True)
    sim = table[table.np == P]
    hand = sim[sim.algorithm.isin(HAND[op])]
    plot_collective_times(
        hand,
        models=models(op, sorted(hand.size_bytes.unique()), lam, b),
        ax=top,
        label_suffix=" (simulated)",
        title=f"{op}, P = {P}: the book's algorithms",
    )
    spare = iter(("C6", "C8", "C5", "C7"))  # Open MPI's algorithms without a book twin (and colour)
    colors = {DECISION: "k"} | {a: next(spare) for a in forced(op) if not algorithms.by_label(op, a).colour}
    plot_collective_times(
        sim[~sim.algorithm.isin(HAND[op])],
        colors=colors,
        ax=bottom,
        label_suffix=" (simulated)",
        title=f"{op}, P = {P}: Open MPI's algorithms",
    )
    return fig
