"""Collectives II (book/collectives_library.md and its lab): what the library runs. Measuring the
algorithms on two engines (and saving the measurements), the library's message patterns, the
linear broadcast in LogP terms, and the verdicts the lab words from its runs (case keys and
numbers; the sentences are in the pages)."""

from __future__ import annotations

import math

import pandas as pd

from ... import data, kernels, machine
from ...verdict import Verdict, cases
from ..lab import engines_placed_by  # noqa: F401 (the lab page's scope verdict)
from . import common as chapter
from .collectives_algorithms import SAME_BAND

PAGE = "book/collectives_library_lab.md"
SEGMENT_BYTES = 16384  # the pipeline's segment in this chapter's runs
# stream add arrays for gamma from memory (bytes per array per rank): STREAM wants the three
# arrays far beyond the last-level cache; 3 x 1 MiB per rank stayed in this machine's 32 MiB L3
ADD_SIZE_MEMORY = "64M"
ADD_SIZE_CACHE = "16K"  # the same add with arrays that stay in the core's caches
PATTERN_SIZE = "64K"  # the broadcast whose message pattern the counters show
SEGMENT_FAR = 3  # a pipeline segment dearer than this many λ is "far more" than the model's one λ
NEAR = 1.5  # a measured crossover within this factor of the model's is "near" it

LOCAL_ALGORITHMS = [
    ("bcast", "linear,chain,pipeline,binary,binomial,scatter-allgather,library"),
    ("gather", "linear,binomial,library"),
    ("allreduce", "butterfly-lh,butterfly-hl,library"),
]
ONE_SEND = ["linear", "chain", "binary", "binomial"]  # the broadcasts that are one MPI_Send at P = 2


def measure_local(cluster, sizes: str = "0:4M", repetitions: int = 5, iterations: int = 100) -> dict:
    """Every algorithm of every kernel at P = 2 on the cluster's engines: {op: tidy table},
    each also saved with its metadata under $COMMBOOK_MEASUREMENTS (collectives_<op>.csv)."""
    labels = dict(machine=machine.name(), mapping=machine.local_mapping(cluster.n), source=PAGE)
    local = {}
    for op, algs in LOCAL_ALGORITHMS:
        out = chapter.measure(
            op, algs, np=cluster.n, sizes=sizes, cluster=cluster, repetitions=repetitions, iterations=iterations
        )
        local[op] = chapter.tidy(out, **labels)
        data.write_measurements(
            data.measurement_path(f"collectives_{op}"), local[op], kernels.measurement_meta(out, PAGE)
        )
    return local


def p2_bcast_table(by: pd.DataFrame, lam: float, bw: float, segment_bytes: int = SEGMENT_BYTES) -> pd.DataFrame:
    """The P = 2 broadcasts at 8 B and at the largest size, measured (median µs, `by`: size x
    algorithm) beside the Hockney model with the fitted λ (µs) and b (MB/s): one message
    λ + n/b; the pipeline k λ + n/b (k segments); scatter + allgather 2 λ + n/b (two halves)."""
    rows = []
    for n in (8, int(by.index.max())):
        k = max(1, math.ceil(n / segment_bytes))
        one = by.loc[n, ONE_SEND]
        for name, measured, model in [
            ("library", by.library[n], lam + n / bw),
            ("one MPI_Send (median of 4)", one.median(), lam + n / bw),
            ("pipeline", by.pipeline[n], k * lam + n / bw),
            ("scatter-allgather", by["scatter-allgather"][n], 2 * lam + n / bw),
        ]:
            rows.append((n, name, measured, model, measured / model))
    return pd.DataFrame(rows, columns=["bytes", "broadcast", "measured (µs)", "model (µs)", "measured/model"])


def per_segment_us(by: pd.DataFrame, segment_bytes: int = SEGMENT_BYTES) -> float:
    """What one extra pipeline segment cost at the largest size: (pipeline - chain) / (k - 1)."""
    n_max = int(by.index.max())
    k = n_max // segment_bytes
    return float((by.pipeline[n_max] - by.chain[n_max]) / (k - 1))


@cases("same", "dearer", "cheaper")
def p2_library(by: pd.DataFrame) -> Verdict:
    """The library's broadcast at 8 B against the four one-send broadcasts (their median)."""
    one = by.loc[8, ONE_SEND]
    r = float(by.library[8] / one.median())
    key = "same" if abs(r - 1) <= SAME_BAND else "dearer" if r > 1 else "cheaper"
    numbers = {"library_us": by.library[8], "one_min_us": one.min(), "one_max_us": one.max(), "ratio": r}
    return Verdict(key, numbers | {"band_pct": 100 * SAME_BAND})


@cases("faster", "not_faster")
def p2_zero(by: pd.DataFrame) -> Verdict:
    """Size 0: the library against the fastest of our broadcasts, which still send an empty message."""
    lib0, hand0 = float(by.library[0]), float(by.loc[0].drop(["library"]).min())
    return Verdict("faster" if lib0 < hand0 else "not_faster", {"library_us": lib0, "hand_us": hand0})


@cases("far", "close", "free")
def p2_segment(per_segment: float, lam: float) -> Verdict:
    """One extra pipeline segment's cost against the model's one λ: far above it (more than
    SEGMENT_FAR λ), not (above 0, at most SEGMENT_FAR λ), or "free" (the pipeline no slower than
    the chain: a cost of 0 or less, which no sentence can call a cost)."""
    r = per_segment / lam
    key = "free" if per_segment <= 0 else "far" if r > SEGMENT_FAR else "close"
    return Verdict(key, {"us": per_segment, "lambdas": r, "far": SEGMENT_FAR})


@cases("above", "within", "unknown")
def segment_eager(eager: int | None, segment_bytes: int = SEGMENT_BYTES) -> Verdict:
    """A pipeline segment against the shared-memory eager limit (None: this MPI does not report it)."""
    if eager is None:  # every case glues the same numbers (0: not known), as the page words all of them
        return Verdict("unknown", {"segment_bytes": segment_bytes, "eager_bytes": 0})
    key = "above" if segment_bytes > eager else "within"
    return Verdict(key, {"segment_bytes": segment_bytes, "eager_bytes": eager})


@cases("never", "one_never", "above", "near", "below", "mixed")
def crossover(model_bytes: float, measured: dict) -> Verdict:
    """The measured crossovers ({algorithm: bytes, inf when it never overtook}) against the
    model's: none came (never), some never came (one_never: `crossed` and `not_crossed` name
    them), else every one within NEAR of it (near), every one above it, every one below it, or
    some above and some below (mixed)."""
    r = {a: v / model_bytes for a, v in measured.items()}
    finite = [x for x in r.values() if math.isfinite(x)]
    names = {"crossed": "none", "not_crossed": "none"}  # every case glues the same numbers
    numbers = {"model_bytes": float(model_bytes), "algorithms": len(r), "near": NEAR} | names
    if not finite:  # 0: no ratio (every case glues the same numbers)
        return Verdict("never", numbers | {"ratio_min": 0.0, "ratio_max": 0.0})
    numbers |= {"ratio_min": min(finite), "ratio_max": max(finite)}
    if len(finite) < len(r):  # "both crossovers" would count one that never came
        crossed = ", ".join(a for a, x in r.items() if math.isfinite(x))
        not_crossed = ", ".join(a for a, x in r.items() if not math.isfinite(x))
        return Verdict("one_never", numbers | {"crossed": crossed, "not_crossed": not_crossed})
    values = list(r.values())
    if all(1 / NEAR <= x <= NEAR for x in values):
        return Verdict("near", numbers)
    if all(x > 1 for x in values):
        return Verdict("above", numbers)
    if all(x < 1 for x in values):
        return Verdict("below", numbers)
    return Verdict("mixed", numbers)


@cases("corrected", "free")
def corrected_crossover(per_segment: float, gamma_cache: float) -> Verdict:
    """The crossover n* = (an extra message's cost) / (γ/2) with both costs measured: an extra
    pipeline segment's µs and the add's γ from the cache (µs per byte). "free": the extra
    segment cost nothing (p2_segment's "free"), so n* is no size."""
    # both cases glue the same numbers: the page parses every case's words, rendered or not
    numbers = {"us": per_segment, "bytes": per_segment / (gamma_cache / 2)}
    return Verdict("free" if per_segment <= 0 else "corrected", numbers)


@cases("faster", "same", "slower")
def cache_add(gamma_ratio: float, band: float = SAME_BAND) -> Verdict:
    """The add from the cache against the add from memory (gamma_ratio: memory γ / cache γ)."""
    key = "faster" if gamma_ratio > 1 + band else "same" if gamma_ratio >= 1 - band else "slower"
    return Verdict(key, {"ratio": gamma_ratio, "inverse": 1 / gamma_ratio, "band_pct": 100 * band})


@cases("oversubscribed", "own_cores", "elsewhere")
def p4_setting(cores: int, P: int = 4, placed_by: str = "") -> Verdict:
    """The lab's timings on this machine: runs of more than `cores` processes (P = 4 among them)
    oversubscribed, or a core per process up to P; `elsewhere` when a setting (`placed_by`, see
    chapters.lab.engines_placed_by) sends the processes to other nodes."""
    numbers = {"cores": cores, "P": P, "setting": f"`{placed_by}`" if placed_by else "-"}
    if placed_by:
        return Verdict("elsewhere", numbers)
    return Verdict("oversubscribed" if P > cores else "own_cores", numbers)


@cases("never", "above", "near", "below")
def p4_crossover(measured_bytes: float, model_bytes: float) -> Verdict:
    """The P = 4 crossover butterfly -> Rabenseifner against the model with the P = 2 λ and b."""
    numbers = {"model_bytes": float(model_bytes), "near": NEAR}
    if not math.isfinite(measured_bytes):  # 0: no ratio (every case glues the same numbers)
        return Verdict("never", numbers | {"ratio": 0.0, "inverse": 0.0})
    r = measured_bytes / model_bytes
    numbers |= {"ratio": r, "inverse": 1 / r}
    key = "above" if r > NEAR else "near" if r >= 1 / NEAR else "below"
    return Verdict(key, numbers)


def allreduce_ratios(allred: pd.DataFrame, size: int = 1 << 20) -> pd.Series:
    """Fastest repetition of each allreduce at `size` over MPI_Allreduce's."""
    big = allred[allred.size_bytes == size].set_index("algorithm").t_min_us
    return (big / big["library"]).drop("library")


def linear_slopes(table: pd.DataFrame, ranges: dict) -> dict:
    """Robust slope (Theil-Sen, µs per added process) of t_us against np, per named range of
    P: {name: slope}."""
    from scipy.stats import theilslopes

    out = {}
    for name, (lo, hi) in ranges.items():
        g = table[(table.np >= lo) & (table.np <= hi)].sort_values("np")
        if len(g) < 3:
            raise ValueError(f"need at least 3 process counts in {lo}-{hi}, have {len(g)}")
        out[name] = float(theilslopes(g.t_us.to_numpy(float), g.np.to_numpy(float))[0])
    return out


def logp_gaps(measured: pd.DataFrame, params: dict) -> pd.DataFrame:
    """The root's injection gap g per link class from the slope of OSU's mean-over-ranks time
    of the linear broadcast (basic_linear, 1 B, map by core): with all P - 1 sends posted at
    once, the i-th receiver is done at about 2o + L + (i - 1) g, so the mean over ranks grows by
    g/2 per process, where Hockney's back-to-back messages grow it by lambda/2.
    Core: P <= 12 (one socket); node: P >= 26 (every added rank on the other node)."""
    slopes = linear_slopes(measured, {"core": (2, 12), "node": (26, 48)})
    rows = [(cls, 2 * s, params[cls][0], 2 * s / params[cls][0]) for cls, s in slopes.items()]
    return pd.DataFrame(
        rows, columns=["link class", "g from the slope (µs)", "λ of the class (µs)", "g / λ"]
    ).set_index("link class")


def linear_model_ratio(measured: pd.DataFrame, model: pd.DataFrame, P: int) -> float:
    """measured / model time of one algorithm at P (tables with np and t_us)."""
    m = measured.set_index("np").t_us
    d = model.set_index("np").t_us
    return float(m[P] / d[P])


def orfeo_linear_bcast():
    """ORFEO's linear broadcast (basic_linear, map by core) and the link classes calibrated on
    the same benchmark at P = 2: (linear table, params, caption); empty without the data."""
    from ... import fit

    bcast_all, caption = chapter.orfeo_or_empty("giuliofantuzzi/bcast")
    if not len(bcast_all):
        return bcast_all, {}, caption
    params = fit.calibrate_link_classes(bcast_all)
    linear = bcast_all[(bcast_all.mapping == "core") & (bcast_all.algorithm == "basic_linear")]
    return linear, params, caption


def orfeo_linear_facts() -> dict:
    """The numbers the lesson states of ORFEO's linear broadcast (its claims): measured/model
    at P = 48 for 1 B and 1 MiB, and the gap g and λ per link class."""
    linear, params, _ = orfeo_linear_bcast()
    if not len(linear):
        raise LookupError("the ORFEO broadcast data are not available")
    nps = sorted(linear.np.unique())
    out = {}
    for n in (1, 1 << 20):
        model = chapter.orfeo_predictions("bcast", ["basic_linear"], nps, n, params=params, statistic="mean")
        out[f"ratio_{n}"] = linear_model_ratio(linear[linear.size_bytes == n], model, 48)
    gaps = logp_gaps(linear[linear.size_bytes == 1], params)
    for cls in gaps.index:
        out[f"g_{cls}"] = float(gaps.loc[cls].iloc[0])
        out[f"lambda_{cls}"] = float(gaps.loc[cls].iloc[1])
    return out


BCAST_LABELS = {
    "library": "default choice",
    "library:1": "1: basic linear",
    "library:5": "5: binary tree",
    "library:6": "6: binomial",
    "library:2": "2: chain (default fanout)",
    "library:2:chain_fanout=1": "2: chain, chain_fanout=1",
}


def message_patterns(labels=tuple(BCAST_LABELS), np: int = 6, size: str = PATTERN_SIZE):
    """Run the broadcast once per library label with Open MPI's message counters on; returns
    (messages table, {label: what the library's variable reads back})."""
    from ...collective_runs import check_selection, parse_algorithms, parse_messages

    patterns, said = [], {}
    for label in labels:
        out = chapter.measure("bcast", label, np=np, sizes=size, monitor=True, repetitions=1, iterations=1)
        said[label] = check_selection(out, "bcast", parse_algorithms("bcast", label)[1])
        patterns.append(parse_messages(out))
    return pd.concat(patterns, ignore_index=True), said


@cases("counted", "one", "uncounted")
def chain_heads(messages: pd.DataFrame | None, P: int = 6) -> Verdict:
    """How many ranks the root of Open MPI's `library:2` sent to ('one': a single chain; None:
    no counters)."""
    from ...collective_runs import message_matrix

    if messages is None:
        return Verdict("uncounted", {"heads": 0})
    heads = int((message_matrix(messages, "library:2", P)[0] > 0).sum())
    return Verdict("one" if heads == 1 else "counted", {"heads": heads})
