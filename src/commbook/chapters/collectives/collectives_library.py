"""Collectives II (book/collectives_library.md): what the library runs. Measuring the
algorithms on two engines (and saving the measurements), the library's message patterns, the
linear broadcast in LogP terms, and every verdict the page's prose takes from its runs."""

from __future__ import annotations

import math

import pandas as pd

from ... import data, kernels, machine
from ...units import format_bytes
from . import common as chapter
from .collectives_algorithms import SAME_BAND, ratio_words

PAGE = "book/collectives_library.md"
SEGMENT_BYTES = 16384  # the pipeline's segment in this chapter's runs
ADD_SIZE_MEMORY = "1M"  # stream add arrays for gamma, as STREAM would (bytes per array)
ADD_SIZE_CACHE = "16K"  # the same add with arrays that stay in the core's caches
PATTERN_SIZE = "64K"  # the broadcast whose message pattern the counters show
SEGMENT_FAR = 3  # a pipeline segment dearer than this many λ is "far more" than the model's one λ

LOCAL_ALGORITHMS = [
    ("bcast", "linear,chain,pipeline,binary,binomial,scatter-allgather,library"),
    ("gather", "linear,binomial,library"),
    ("allreduce", "butterfly-lh,butterfly-hl,library"),
]


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


def _span(lo: float, hi: float) -> str:
    """'0.10-0.12', or one value when both print the same."""
    return f"{lo:.2f}" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}-{hi:.2f}"


def p2_bcast_facts(by: pd.DataFrame, lam: float, segment_bytes: int = SEGMENT_BYTES) -> dict:
    """Numbers and verdicts of the P = 2 broadcasts (`by`: median time per size and algorithm).
    one_send: the algorithms that are one MPI_Send at P = 2."""
    one = by.loc[8].drop(["library", "pipeline", "scatter-allgather"])
    n_max = int(by.index.max())
    k = n_max // segment_bytes
    per_segment = (by.pipeline[n_max] - by.chain[n_max]) / (k - 1)
    lib8 = by.library[8]
    r_lib = lib8 / one.median()
    if abs(r_lib - 1) <= SAME_BAND:
        lib_words = (
            f"they cost what the library's costs (library {lib8:.2f} µs, the one-send "
            f"algorithms {_span(one.min(), one.max())} µs at 8 B): the library has no "
            "magic for one message"
        )
    else:
        lib_words = (
            f"the library's broadcast was {ratio_words(r_lib)} than their median at "
            f"8 B ({lib8:.2f} µs against {_span(one.min(), one.max())} µs), a "
            "difference in the implementations' overheads, not in the messages"
        )
    zero_lib, zero_hand = by.library[0], by.loc[0].drop(["library"]).min()
    zero_words = (
        "At size 0 the library was faster: it need not send anything, while our loops still send an empty message"
        if zero_lib < zero_hand
        else "At size 0 the library was not faster than our loops, which still send an empty message"
    )
    sa = by["scatter-allgather"]
    r_sa = sa[n_max] / by.chain[n_max]
    sa_words = (
        "pays for it and gains nothing at P = 2"
        if r_sa > 1 + SAME_BAND
        else "costs about what one message costs at the largest size"
        if r_sa >= 1 - SAME_BAND
        else "was faster at the largest size"
    )
    r_pipe8 = by.pipeline[8] / one.median()
    pipe8_words = (
        "a little dearer"
        if r_pipe8 > 1 + SAME_BAND
        else "no dearer here, within the spread"
        if r_pipe8 >= 1 - SAME_BAND
        else "cheaper here"
    )
    seg_words = (
        f"each extra segment costs {per_segment / lam:.0f} λ, far more than the one λ the model charges: "
        "here the model is wrong about it"
        if per_segment > SEGMENT_FAR * lam
        else f"each extra segment costs {per_segment / lam:.1f} λ, close to the one λ the model charges"
    )
    return dict(
        n_max=n_max,
        segments=k,
        per_segment_us=per_segment,
        lib_words=lib_words,
        takeaway_words=(
            "the library's is no faster: the library wins by choosing the schedule, not by sending a message better"
            if r_lib >= 1 - SAME_BAND
            else f"the library's was {ratio_words(r_lib)} at 8 B in this build, by the overheads "
            "of its implementation: with more processes it wins mainly by choosing the schedule"
        ),
        zero_words=zero_words,
        sa_ratio=r_sa,
        sa_words=sa_words,
        pipe8_words=pipe8_words,
        seg_words=seg_words,
    )


def crossover_discussion(model_bytes: float, measured: dict) -> str:
    """The sentence comparing the model's crossover (bytes) with the measured ones
    ({algorithm: bytes, inf when it never won})."""
    finite = {a: v for a, v in measured.items() if math.isfinite(v)}
    if not finite:
        return (
            f"Neither bandwidth-optimal algorithm stayed faster than the butterfly up to the largest "
            f"size measured (being faster at one size and slower at a larger one is no crossover), "
            f"while the model puts the crossover at {format_bytes(model_bytes)}: it misses by more "
            "than the whole range"
        )
    lo, hi = min(finite.values()) / model_bytes, max(finite.values()) / model_bytes
    span = f"{lo:.0f}" if round(lo) == round(hi) else f"{lo:.0f} to {hi:.0f}"
    if lo >= 10:
        return (
            f"The measured crossovers lie {span} times above the model's "
            f"{format_bytes(model_bytes)}: the model is not a little off, it is wrong "
            "about what the extra messages cost"
        )
    if hi <= 0.1:
        return f"The measured crossovers lie far below the model's ({span} times its value)"
    return (
        f"The measured crossovers lie within a factor {max(hi, 1 / lo):.1f} of the model's {format_bytes(model_bytes)}"
    )


def eager_words(eager: int | None, segment_bytes: int = SEGMENT_BYTES) -> str:
    """Where a pipeline segment sits against the library's shared-memory eager limit (`eager`:
    Open MPI's btl_sm_eager_limit as ompi_info reports it, None when the MPI does not say)."""
    if eager is None:
        return (
            "perhaps above the library's shared-memory *eager limit* (this MPI does not report it "
            "through `ompi_info`); every segment above that limit goes through the rendezvous protocol"
        )
    where = f"Open MPI's shared-memory *eager limit* (`btl_sm_eager_limit`, {eager} B as `ompi_info --param btl sm --level 9` reports it here)"
    if segment_bytes > eager:
        return f"above {where}, so every segment goes through the rendezvous protocol"
    return f"within {where}, so the segments are sent eagerly, with no rendezvous handshake"


def segment_lambda_words(seg_lambda: float) -> str:
    """The extra message's cost as the pipeline measured it (one extra segment, in fitted λ)."""
    if seg_lambda > SEGMENT_FAR:
        return f"the pipeline above paid {seg_lambda:.0f} times the fitted λ per extra segment: the extra message is not one λ"
    return f"the pipeline above paid {seg_lambda:.1f} times the fitted λ per extra segment, close to the model's one λ"


def cache_add_words(gamma_ratio: float, cache_size: str, band: float = SAME_BAND) -> str:
    """The add from the cache against the add from memory (gamma_ratio: memory γ / cache γ)."""
    if gamma_ratio > 1 + band:
        return (
            f"the same add ran {gamma_ratio:.1f} times faster on this page (arrays of {cache_size}): the "
            "reduction term the ring saves is that much smaller"
        )
    if gamma_ratio >= 1 - band:
        return (
            f"the same add ran at the same speed within {band * 100:.0f} % on this page (arrays of "
            f"{cache_size}, ratio {gamma_ratio:.2f}): here the cache leaves the reduction term as it was"
        )
    return (
        f"the same add ran {1 / gamma_ratio:.1f} times slower on this page (arrays of {cache_size}): "
        "here the cache makes the reduction term no smaller"
    )


def ingredients_words(
    model_bytes: float, measured: dict, seg_lambda: float | None = None, gamma_ratio: float | None = None
) -> str:
    """Leads into the two ingredients the model may get wrong (the extra message's cost,
    seg_lambda in fitted λ; the addition's, gamma_ratio = memory γ / cache γ). Each that fails
    pushes the crossover up, which explains a measured crossover above the model's and makes an
    agreement a coincidence. An ingredient not measured (None) counts as failing."""
    failed = sum([seg_lambda is None or seg_lambda > SEGMENT_FAR, gamma_ratio is None or gamma_ratio > 1 + SAME_BAND])
    finite = [v for v in measured.values() if math.isfinite(v)]
    agreement = bool(finite) and min(finite) <= 1.5 * model_bytes
    if failed == 0:
        if agreement:
            return "Both of the model's ingredients held here, within this page's tolerances"
        return "Both of the model's ingredients held here, so the miss comes from something else, not in the model"
    some = "two of {} ingredients do" if failed == 2 else "one of {} two ingredients does"
    push = "both push" if failed == 2 else "it pushes"
    if not agreement:
        lead = some.format("the model's")
        return f"{lead[0].upper()}{lead[1:]} not hold for these sizes, and {push} the crossover up"
    return (
        f"The agreement is no proof of the model: {some.format('its')} not hold for these sizes, and "
        f"{push} the crossover up, so something else, not in the model, pulled it down here"
    )


def p4_setting_words(cores: int, P: int = 4) -> str:
    """What the P = 4 allreduce timing is on this machine: oversubscribed or a core per process."""
    if P > cores:
        return (
            "With more processes than cores the picture is an **oversubscribed** one (processes share "
            "cores and take turns), shown only as such: the latency terms grow with every context "
            "switch, which should push the crossovers up"
        )
    return (
        f"With {P} processes on this machine's {cores} cores every process has a core of its own; the "
        "model keeps the λ and b fitted at P = 2"
    )


def oversubscribed_words(measured_bytes: float, model_bytes: float, oversubscribed: bool = True) -> str:
    """The P = 4 crossover (oversubscribed or not) against the model with the P = 2 λ and b."""
    # the P = 2 costs the model leaves out (above) count here too: a run cannot tell them from
    # the context switches, so neither is named as the cause
    up = (
        "the costs of an extra message that the model leaves out and the context switches both push it up, "
        "and this run cannot tell them apart"
        if oversubscribed
        else "the P = 2 costs do not carry over to P = 4"
    )
    if not math.isfinite(measured_bytes):
        return (
            f"Here the butterfly was not overtaken up to the largest size, far above the model's "
            f"{format_bytes(model_bytes)}: {up.replace('push it up', 'push the crossover up')}"
        )
    r = measured_bytes / model_bytes
    if r > 1.5:
        return f"Here the measured crossover lies {r:.0f} times above the model's: {up}"
    if r >= 1 / 1.5:
        still = "the context switches did not move it" if oversubscribed else "the P = 2 costs carry over"
        return f"Here the measured crossover lies within a factor 1.5 of the model's: {still}"
    down = "the context switches did not push it up" if oversubscribed else "the P = 2 costs do not carry over to P = 4"
    return f"Here the measured crossover lies {1 / r:.0f} times below the model's: {down}"


def one_mib_words(big: pd.Series) -> str:
    """The 1 MiB allreduce at P = 2, fastest repetitions, against MPI_Allreduce's."""
    parts = [f"{a} {ratio_words(big[a] / big['library'])}" for a in ["butterfly-lh", "ring", "rabenseifner"]]
    return "; ".join(parts)


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


def logp_words(gaps: pd.DataFrame, ratio_small: float, ratio_large: float) -> str:
    """The verdict on the linear broadcast's data in LogP terms (gaps: logp_gaps)."""
    below = [cls for cls, r in gaps["g / λ"].items() if r < 1 - SAME_BAND]
    if below:
        first = (
            f"the root injected a message every g, less than one λ of the link class "
            f"({' and '.join(below)}): the latencies overlapped"
        )
    else:
        first = "the slopes do not show a gap below λ here: these data give LogP nothing that Hockney lacks"
    closer = (
        "closer to the data for long messages than for short ones"
        if abs(math.log(ratio_large)) < abs(math.log(ratio_small))
        else "no closer to the data for long messages than for short ones"
    )
    return f"In these data {first}; and the Hockney model is {closer}"


def linear_model_ratio(measured: pd.DataFrame, model: pd.DataFrame, P: int) -> float:
    """measured / model time of one algorithm at P (tables with np and t_us)."""
    m = measured.set_index("np").t_us
    d = model.set_index("np").t_us
    return float(m[P] / d[P])


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
    (messages table, {label: what the library reported for the selection})."""
    from ...collective_runs import check_selection, parse_algorithms, parse_messages

    patterns, said = [], {}
    for label in labels:
        out = chapter.measure("bcast", label, np=np, sizes=size, monitor=True, repetitions=1, iterations=1)
        said[label] = check_selection(out, "bcast", parse_algorithms("bcast", label)[1])
        patterns.append(parse_messages(out))
    return pd.concat(patterns, ignore_index=True), said
