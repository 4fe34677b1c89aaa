"""Allreduce on a simulated ORFEO (book/collectives_library.md): the book's allreduce.c --
recursive doubling (the butterfly), the ring, Rabenseifner -- and the library's MPI_Allreduce under
SMPI's copies of Open MPI's and MPICH's selection rules, on two simulated THIN nodes at P = 48,
swept over message sizes, against the cost formulas with ORFEO's InfiniBand link.

SMPI is run with ``smpi/simulate-computation:no``: the additions are free, so the formulas' γ is 0.
The page draws the shipped reference (``data/reference/simulated/``, written by
``commbook simulate reference``) unless every run is already in this machine's SMPI cache: a live
sweep takes about a minute of wall time, too slow for the book's build.
"""

from __future__ import annotations

import time

import pandas as pd

from ... import config, orfeo
from ...models import collective_costs
from ...verdict import Verdict, cases
from .common import measured_crossover, model_name, predict_table, ratio_table

KERNEL = "allreduce"
PLATFORM, NODES, MAP_BY, P = "orfeo-thin", 2, "core", 48
OPTIONS = {"sizes": "8:4M", "iterations": 5, "repetitions": 1}
HAND = ("butterfly-lh", "ring", "rabenseifner")  # the book's hand-written algorithms
RUNS = {  # label -> (allreduce.c's --algorithm, smpirun's options)
    "hand-written": (",".join(HAND), ()),
    "library/ompi": ("library", ("--cfg=smpi/coll-selector:ompi",)),
    "library/mpich": ("library", ("--cfg=smpi/coll-selector:mpich",)),
}
LINK = "node"  # at P = 48 on two nodes every algorithm has steps across the nodes
NEAR = 2.0  # a simulated crossover within this factor of the formulas' is "near" it
REFERENCE = "-".join([KERNEL, PLATFORM, f"{NODES}n", MAP_BY, f"p{P}"]) + ".csv"


def reference_path():
    return config.data_dir() / "reference" / "simulated" / REFERENCE


def link() -> tuple[float, float]:
    """(λ µs, b MB/s) of ORFEO's node link over InfiniBand (UCX), from the ping-pong seed."""
    return orfeo.link_parameters("ucx")[LINK]


def _platform():
    from ...simulate import platforms

    return platforms.platform(PLATFORM, NODES)


def _options(algorithm: str) -> dict:
    return {**OPTIONS, "algorithm": algorithm}


def tidy_runs(runs: dict) -> pd.DataFrame:
    """The runs' rows labelled simulated; every run but the hand-written one named after its
    label (e.g. library/ompi, SMPI's selector)."""
    parts = []
    for label, run in runs.items():
        df = run.tidy()
        if label != "hand-written":
            df["algorithm"] = label
        parts.append(df)
    return pd.concat(parts, ignore_index=True)


def sweep(
    kernel: str, runs: dict, options_of, use_cache: bool = True, timeout: float | None = None, np: int | None = None
):
    """Every run of `runs` (label -> (the kernel's --algorithm, smpirun's options)) under SMPI with
    np ranks on PLATFORM (cached by kernel, platform, calibration), with options_of(algorithm): the tidy
    table and smpirun's wall seconds of each run (0 for one read from the cache)."""
    from ...simulate import runner

    plat, done, wall, np = _platform(), {}, {}, np or P
    extra = {} if timeout is None else {"timeout": timeout}
    for label, (algorithm, smpi_options) in runs.items():
        started = time.monotonic()
        done[label] = runner.run(
            kernel, plat, np, MAP_BY, options_of(algorithm), smpi_options=smpi_options, use_cache=use_cache, **extra
        )
        wall[label] = 0.0 if done[label].cached else round(time.monotonic() - started, 1)
    return tidy_runs(done), wall


def cached_sweep(kernel: str, runs: dict, options_of, np: int | None = None) -> tuple[pd.DataFrame | None, str]:
    """(the table, 'live') when every run is in this machine's SMPI cache; (None, 'cold') when
    SMPI is here but a run is not cached; (None, 'absent') without SMPI."""
    from ...simulate import runner

    if not runner.status().ok:
        return None, "absent"
    plat, np = _platform(), np or P
    done = {
        label: runner.cached_run(kernel, plat, np, MAP_BY, options_of(alg), smpi_options)
        for label, (alg, smpi_options) in runs.items()
    }
    return (tidy_runs(done), "live") if all(done.values()) else (None, "cold")


def reference_meta(
    kernel: str,
    what: str,
    runs: dict,
    wall: dict,
    kernel_args: dict,
    command: str,
    source: str,
    extra: dict | None = None,
) -> dict:
    """The header of a shipped simulation: platform, calibration, runs (then `extra`), options,
    smpirun's wall time per run, and the command that wrote it."""
    from ...simulate import runner

    plat = _platform()
    return {
        "what": what,
        "np": P,  # the shipped sweeps are all at P
        "nodes": plat.description,
        "simulator": runner.status().library,
        "platform": f"{PLATFORM}:{NODES}",
        "generated_by": "commbook.simulate.platforms",
        "hardware": "data/orfeo/hardware_seed.csv",
        "transport": plat.transport,
        "calibration": runner.calibration_id(),
        "map_by": MAP_BY,
        "kernel": kernel,
        "runs": "; ".join(f"{k}: --algorithm {a} {' '.join(o)}".strip() for k, (a, o) in runs.items()),
        **(extra or {}),
        "kernel_args": " ".join(f"--{k} {v}" for k, v in kernel_args.items()),
        "wall": "; ".join(f"{k} {f'{v:g} s' if v else 'cached'}" for k, v in wall.items()),  # smpirun's
        "command": command,
        "source": source,
    }


def simulate(use_cache: bool = True) -> tuple[pd.DataFrame, dict]:
    """Every run of RUNS under SMPI (see sweep)."""
    return sweep(KERNEL, RUNS, _options, use_cache)


def write_reference(command: str = "commbook simulate reference") -> tuple:
    """Simulate RUNS and ship them with platform, calibration, options and wall time in the header."""
    from ...data import write_measurements

    table, wall = simulate()
    # the hand-written ones and the library's under SMPI's selectors
    meta = reference_meta(
        KERNEL,
        "simulated allreduce algorithms",
        RUNS,
        wall,
        OPTIONS,
        command,
        "commbook.chapters.collectives.simulated.write_reference",
    )
    return write_measurements(reference_path(), table, meta), wall


def read_reference() -> pd.DataFrame:
    from ...data import read_measurements

    return read_measurements(reference_path()).table


def simulated_allreduce() -> tuple[pd.DataFrame, str]:
    """(the simulated table, its origin): 'live' when every run is in this machine's SMPI cache
    (simulated here, costs nothing now), 'cold' when SMPI is here but a run is not cached,
    'absent' without SMPI; the last two draw the shipped reference."""
    table, origin = cached_sweep(KERNEL, RUNS, _options)
    return (read_reference() if table is None else table), origin


def models(sizes, lam: float, b: float) -> pd.DataFrame:
    """The formulas' time of each hand-written algorithm at P (γ = 0: SMPI's additions are free)."""
    return predict_table(KERNEL, HAND, P, sizes, lam, b, 0.0)


def _model_crossover(small: str, large: str, lam: float, b: float) -> float:
    return collective_costs.crossover(KERNEL, model_name(KERNEL, small), model_name(KERNEL, large), P, lam, b)


PAIRS = (("butterfly-lh", "ring"), ("butterfly-lh", "rabenseifner"), ("rabenseifner", "ring"))
PAIR_KEYS = ("ring", "rab", "rab_ring")  # the verdict's number prefix of each pair


def _pairs(table: pd.DataFrame, lam: float, b: float) -> list[tuple[str, str, float, float]]:
    """(small, large, simulated crossover, formulas' crossover) of each pair of PAIRS."""
    return [
        (small, large, measured_crossover(table, small, large, P), _model_crossover(small, large, lam, b))
        for small, large in PAIRS
    ]


def _wins(table: pd.DataFrame, small: str, large: str, from_bytes: float) -> tuple[int, int]:
    """(sizes at which `large` is faster than `small`, of them those below `from_bytes`, the
    simulated crossover), comparing the fastest repetitions as measured_crossover does."""
    r = ratio_table(table, large, small)
    r = r[(r.np == P) & (r.size_bytes > 0)]
    faster = r[r.ratio_of_minima < 1].size_bytes
    return int(len(faster)), int((faster < from_bytes).sum())


def crossovers(table: pd.DataFrame, lam: float, b: float) -> pd.DataFrame:
    """Each pair of hand-written algorithms: the size from which the second is faster at every
    larger size simulated, the formulas' crossover, and their ratio (inf: never in the sizes shown)."""
    rows = [
        {
            "small messages": small,
            "large messages": large,
            "simulated from (B)": int(sim) if sim != float("inf") else "never",
            "formula from (B)": round(model),
            "simulated / formula": float(f"{sim / model:.2g}") if model else float("inf"),
        }
        for small, large, sim, model in _pairs(table, lam, b)
    ]
    return pd.DataFrame(rows).set_index(["small messages", "large messages"])


def fastest(table: pd.DataFrame, lam: float, b: float) -> pd.DataFrame:
    """Per size: the fastest hand-written algorithm simulated and by the formulas, and each
    library selector's time over the fastest hand-written one."""
    sim = table[table.np == P].pivot_table(index="size_bytes", columns="algorithm", values="t_us")
    model = models(sim.index, lam, b).pivot_table(index="size_bytes", columns="algorithm", values="t_us")
    out = pd.DataFrame({"simulated fastest": sim[list(HAND)].idxmin(axis=1), "formula fastest": model.idxmin(axis=1)})
    best = sim[list(HAND)].min(axis=1)
    for lib in (k for k in RUNS if k.startswith("library")):
        out[f"{lib} / fastest"] = (sim[lib] / best).round(2)
    return out


def _side(sim: float, model: float) -> str:
    if sim == float("inf"):
        return "never"
    return "below" if sim * NEAR < model else "above" if sim > model * NEAR else "near"


@cases("below", "ring_early", "mixed")
def crossover_side(table: pd.DataFrame, lam: float, b: float) -> Verdict:
    """Every row of crossovers(), each simulated crossover below, near or above the formulas' by
    a factor NEAR, or never: "below" for all three, "ring_early" when only butterfly ->
    Rabenseifner is above and, where the ring overtakes, the butterfly takes more than its formula
    and the ring less, else "mixed" with the counts. Each pair also counts the sizes at which
    its second algorithm wins (`<pair>_wins`; `<pair>_early` of them below its crossover): a
    crossover is where it wins for good, not its first win. Also at how many sizes the fastest
    hand-written algorithm differs, and butterfly and ring over their formulas where the ring
    overtakes the butterfly (the largest size if it never does)."""
    pairs = _pairs(table, lam, b)
    sides = dict(zip(PAIR_KEYS, (_side(sim, model) for _, _, sim, model in pairs)))
    side = fastest(table, lam, b)
    t = table[table.np == P].pivot_table(index="size_bytes", columns="algorithm", values="t_us")
    ring_sim = pairs[0][2]
    at = int(t.index.max() if ring_sim == float("inf") else ring_sim)  # where both meet their formulas
    formula = models([at], lam, b).set_index("algorithm").t_us
    numbers = {
        "disagree": int((side["simulated fastest"] != side["formula fastest"]).sum()),
        "sizes": len(side),
        "at_bytes": at,
        "small_over_model": float(t.loc[at, "butterfly-lh"] / formula["butterfly-lh"]),
        "large_over_model": float(t.loc[at, "ring"] / formula["ring"]),
    }
    for key, (small, large, sim, model) in zip(PAIR_KEYS, pairs):
        never = sim == float("inf")  # a verdict's numbers are finite: 0 for a crossover never reached
        wins, early = _wins(table, small, large, sim)
        numbers |= {
            f"{key}_sim_bytes": 0.0 if never else sim,
            f"{key}_model_bytes": model,
            f"{key}_ratio": 0.0 if never else sim / model,
            f"{key}_factor": 0.0 if never else model / sim,
            f"{key}_wins": wins,  # sizes at which the second of the pair is faster
            f"{key}_early": early,  # of them below the size it stays faster from
        }
    for s in ("below", "near"):
        numbers[f"n_{s}"] = sum(v == s for v in sides.values())
    numbers["n_late"] = sum(v in ("above", "never") for v in sides.values())
    if numbers["n_below"] == len(PAIRS):
        case = "below"
    elif (
        sides["ring"] == sides["rab_ring"] == "below"
        and sides["rab"] == "above"
        and numbers["small_over_model"] > 1 > numbers["large_over_model"]
    ):  # its words explain the early ring by a butterfly dearer than its formula, a ring cheaper
        case = "ring_early"
    else:
        case = "mixed"
    return Verdict(case, numbers)


@cases("mixed", "never", "always")
def library_side(table: pd.DataFrame) -> Verdict:
    """Each library selector against the fastest hand-written algorithm at every size shown: at how
    many sizes it is faster, from which size to which, its worst ratio and where; the case is Open
    MPI's (ORFEO's library)."""
    t = table[table.np == P].pivot_table(index="size_bytes", columns="algorithm", values="t_us")
    best = t[list(HAND)].min(axis=1)
    numbers, case = {"sizes": len(t)}, None
    for lib in (k for k in RUNS if k.startswith("library")):
        r = t[lib] / best
        faster = r[r < 1].index
        key = lib.split("/")[1]
        numbers |= {
            f"{key}_faster": len(faster),
            f"{key}_from": int(faster.min()) if len(faster) else 0,
            f"{key}_to": int(faster.max()) if len(faster) else 0,
            f"{key}_worst": float(r.max()),
            f"{key}_worst_at": int(r.idxmax()),
        }
        if case is None:
            case = "never" if not len(faster) else "always" if len(faster) == len(r) else "mixed"
    return Verdict(case, numbers)


@cases("live", "cold", "absent")
def source(table: pd.DataFrame, origin: str) -> Verdict:
    """Simulated on this machine (from its SMPI cache), or the shipped reference: SMPI here but
    the sweep not cached, or SMPI absent."""
    return Verdict(origin, {"reference": f"data/reference/simulated/{REFERENCE}", "library": table.mpi_library.iloc[0]})
