"""Cost models of collective algorithms on the Hockney model t = lambda + n/b: a schedule's
time (commbook.models.collective_schedules), the textbook closed forms, lower bounds, cost
tables, crossovers, and fitting lambda and b per algorithm.

A step costs its slowest message, lambda + frac * n * (beta + gamma * combine), and an
algorithm costs the sum of its steps. The closed forms (``COSTS``, also the cost table's
coefficients) are written separately and the tests check that both agree, so a schedule bug
cannot hide.

Units: lambda (``lam``) in us, bandwidth b in MB/s (1e6 B/s, so beta = 1/b is us per byte),
n in bytes, gamma (reduction cost) in us per byte, times in us. Root is rank 0.

The size n is the whole buffer for bcast, reduce, allreduce and reduce_scatter, one rank's
block for gather, scatter and allgather, and one block per pair of ranks for alltoall (as in the
OSU benchmarks).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .collective_schedules import (
    ALGORITHMS,
    OPERATIONS,
    Schedule,
    cached_schedule,
    ceil_log2,
    check_algorithm,
    check_P,
    check_params,
    check_segments,
    schedule,
)

# ---------------------------------------------------------------------------------------
# Costs


def optimal_segments(P: int, n: float, lam: float, b: float) -> int:
    """The k minimising (P-2+k)(lam + (n/k)/b): the integer next to k* = sqrt((P-2) n / (b lam)),
    between 1 and n (a segment holds at least one byte)."""
    P = check_P(P)
    check_params(lam, b)
    if P <= 2 or n <= 1:
        return 1
    kmax = max(1, int(n))
    if lam == 0:
        return kmax
    kstar = math.sqrt((P - 2) * n / (b * lam))
    cands = {min(kmax, max(1, math.floor(kstar))), min(kmax, max(1, math.ceil(kstar)))}
    return min(sorted(cands), key=lambda k: pipeline_time(P, n, lam, b, k))


def pipeline_time(P, n, lam, b, k):
    return (P - 2 + k) * (lam + (n / k) / b)


def schedule_time(steps: Schedule, n, lam: float, b: float, gamma: float = 0.0, extra_us=None, beta_factor=None):
    """Sum over steps of the slowest message, lam + extra + frac n (beta*factor + gamma*combine).

    extra_us(message) -> us added to that message (e.g. hops beyond a neighbour times t_h);
    beta_factor(step) -> one factor per message of the step (e.g. link sharing). n may be an array.
    """
    check_params(lam, b, gamma)
    n = np.asarray(n, float)
    if (n < 0).any():
        raise ValueError("message size n must be >= 0")
    beta = 1.0 / b
    total = np.zeros_like(n)
    for step in steps:
        factors = np.asarray(beta_factor(step) if beta_factor else 1.0, float)
        frac = np.array([m.frac for m in step], float)
        comb = np.array([m.combine for m in step], float)
        slope = frac * (beta * factors + gamma * comb)  # us per byte of n, per message
        if extra_us is None:
            total += lam + slope.max() * n  # n >= 0: the steepest message is the slowest
        else:
            start = lam + np.array([extra_us(m) for m in step], float)
            total += np.max(start[:, None] + slope[:, None] * n.reshape(1, -1), axis=0).reshape(n.shape)
    return total if total.ndim else float(total)


def predict(
    op: str,
    algorithm: str,
    P: int,
    n,
    lam: float,
    b: float,
    gamma: float = 0.0,
    segments: int | None = None,
    segment_bytes: int | None = None,
    topology=None,
    placement=None,
    t_h: float = 0.0,
    contention: bool = False,
):
    """Predicted time (us) of one collective call; n may be an array of sizes.

    pipeline: k = `segments`, or ceil(n / segment_bytes), or the optimal k* for each n.
    topology (a commbook.topology graph): rank r runs on placement[r] (default processor r);
    each message pays t_h for every link beyond the shortest processor-to-processor path
    (lambda is measured between neighbours), and with contention=True its n beta term is
    multiplied by the number of the step's messages sharing its busiest link.
    """
    check_algorithm(op, algorithm)
    P = check_P(P)
    check_params(lam, b, gamma)
    n_arr = np.asarray(n, float)
    if P == 1:  # nothing to send
        return np.zeros_like(n_arr) if n_arr.ndim else 0.0
    extra_us = beta_factor = None
    if topology is not None:
        extra_us, beta_factor = _topology_terms(topology, P, placement, t_h, contention)
    elif contention or t_h:
        raise ValueError("t_h and contention need a topology")
    if algorithm == "pipeline":
        flat = n_arr.reshape(-1)
        out = np.empty_like(flat)
        for i, size in enumerate(flat):
            k = _pipeline_k(P, size, lam, b, segments, segment_bytes)
            out[i] = schedule_time(cached_schedule(op, algorithm, P, k), size, lam, b, gamma, extra_us, beta_factor)
        out = out.reshape(n_arr.shape)
        return out if out.ndim else float(out)
    steps = cached_schedule(op, algorithm, P, None)
    return schedule_time(steps, n_arr, lam, b, gamma, extra_us, beta_factor)


def _pipeline_k(P, n, lam, b, segments, segment_bytes) -> int:
    if segments is not None:
        return check_segments(segments)
    if segment_bytes is not None:
        if segment_bytes <= 0:
            raise ValueError(f"segment_bytes must be > 0, not {segment_bytes}")
        return max(1, math.ceil(n / segment_bytes))
    return optimal_segments(P, n, lam, b)


def _topology_terms(G, P, placement, t_h, contention):
    from .. import topology as topo  # models stay importable without networkx users

    if t_h < 0 or not math.isfinite(t_h):
        raise ValueError(f"t_h must be a finite number >= 0, not {t_h!r}")
    placement = list(placement) if placement is not None else topo.place(G, P)
    if len(placement) < P:
        raise ValueError(f"the placement has {len(placement)} processors for P = {P} ranks")
    base = topo.min_hops(G)
    dist: dict = {}

    def hop(a, b):
        if (a, b) not in dist:
            dist[a, b] = topo.hops(G, placement[a], placement[b])
        return dist[a, b]

    def extra_us(m):
        return t_h * max(0, hop(m.src, m.dst) - base)

    def beta_factor(step):
        if not contention:
            return [1.0] * len(step)
        pairs = [(placement[m.src], placement[m.dst]) for m in step]
        loads = topo.link_loads(G, pairs)
        out = []
        for a, b in pairs:
            path = topo.route(G, a, b)
            out.append(float(max((loads[e] for e in zip(path, path[1:])), default=1)))
        return out

    return extra_us, beta_factor


# ---------------------------------------------------------------------------------------
# Closed forms (textbook; Thakur, Rabenseifner & Gropp 2005; Chan et al. 2007) as alpha-beta-gamma
# coefficients: t = A(P) lam + B(P) n beta + C(P) n gamma


def _pow2(P):
    return P >= 1 and P & (P - 1) == 0


@dataclass(frozen=True)
class Cost:
    """An algorithm's cost as three functions of P, written as Python expressions in P
    (``log2``, ``ceil_log2``): A latencies, B times n bytes on the critical path, C times n
    bytes combined on it.  `exact_for` says for which P the expressions are the schedule's."""

    latency: str
    bytes: str
    reduce: str = "0"
    exact_for: str = "all P"

    def coefficients(self, P: int) -> tuple[float, float, float]:
        env = {"P": P, "log2": math.log2, "ceil_log2": ceil_log2}
        return tuple(
            float(eval(e, {"__builtins__": {}}, env))  # noqa: S307 (our own table)
            for e in (self.latency, self.bytes, self.reduce)
        )

    def holds(self, P: int) -> bool:
        return {"all P": True, "P = 2^k": _pow2(P), "P = 2^k - 1": _pow2(P + 1)}[self.exact_for]


COSTS = {
    ("bcast", "linear"): Cost("P - 1", "P - 1"),
    ("bcast", "chain"): Cost("P - 1", "P - 1"),
    ("bcast", "binary_tree"): Cost("2*(log2(P + 1) - 1)", "2*(log2(P + 1) - 1)", "0", "P = 2^k - 1"),
    ("bcast", "binomial"): Cost("ceil_log2(P)", "ceil_log2(P)"),
    ("bcast", "scatter_allgather"): Cost("log2(P) + P - 1", "2*(P - 1)/P", "0", "P = 2^k"),
    ("gather", "linear"): Cost("P - 1", "P - 1"),
    ("gather", "binomial"): Cost("log2(P)", "P - 1", "0", "P = 2^k"),
    ("scatter", "linear"): Cost("P - 1", "P - 1"),
    ("scatter", "binomial"): Cost("log2(P)", "P - 1", "0", "P = 2^k"),
    ("reduce", "linear"): Cost("P - 1", "P - 1", "P - 1"),
    ("reduce", "binomial"): Cost("ceil_log2(P)", "ceil_log2(P)", "ceil_log2(P)"),
    ("allreduce", "recursive_doubling"): Cost("log2(P)", "log2(P)", "log2(P)", "P = 2^k"),
    ("allreduce", "reduce_bcast"): Cost("2*ceil_log2(P)", "2*ceil_log2(P)", "ceil_log2(P)"),
    ("allreduce", "ring"): Cost("2*(P - 1)", "2*(P - 1)/P", "(P - 1)/P"),
    ("allreduce", "rabenseifner"): Cost("2*log2(P)", "2*(P - 1)/P", "(P - 1)/P", "P = 2^k"),
    ("allgather", "ring"): Cost("P - 1", "P - 1"),
    ("allgather", "recursive_doubling"): Cost("log2(P)", "P - 1", "0", "P = 2^k"),
    ("allgather", "bruck"): Cost("ceil_log2(P)", "P - 1"),
    ("alltoall", "pairwise"): Cost("P - 1", "P - 1"),
    ("alltoall", "bruck"): Cost("log2(P)", "P/2*log2(P)", "0", "P = 2^k"),
    ("reduce_scatter", "ring"): Cost("P - 1", "(P - 1)/P", "(P - 1)/P"),
    ("reduce_scatter", "recursive_halving"): Cost("log2(P)", "(P - 1)/P", "(P - 1)/P", "P = 2^k"),
}

# Lower bounds on any algorithm (Chan, Heimlich, Purkayastha & van de Geijn 2007, table 1):
# the data must reach ceil(log2 P) levels of ranks, every rank must receive (or, for gather,
# the root must take in) so many bytes, and the combining must be spread over all P ranks.
LOWER_BOUNDS = {
    "bcast": Cost("ceil_log2(P)", "1"),
    "gather": Cost("ceil_log2(P)", "P - 1"),
    "scatter": Cost("ceil_log2(P)", "P - 1"),
    "reduce": Cost("ceil_log2(P)", "1", "(P - 1)/P"),
    "allreduce": Cost("ceil_log2(P)", "2*(P - 1)/P", "(P - 1)/P"),
    # n is one rank's block: every rank must receive the P - 1 others (Chan et al. 2007)
    "allgather": Cost("ceil_log2(P)", "P - 1"),
    # every rank must receive P - 1 blocks, and information needs ceil(log2 P) rounds to
    # spread (Bruck, Ho, Kipnis, Upfal & Weathersby 1997)
    "alltoall": Cost("ceil_log2(P)", "P - 1"),
    "reduce_scatter": Cost("ceil_log2(P)", "(P - 1)/P", "(P - 1)/P"),
}


def closed_form(
    op: str, algorithm: str, P: int, n: float, lam: float, b: float, gamma: float = 0.0, segments: int | None = None
) -> float:
    """The textbook formula (:data:`COSTS`, the pipeline's own); ValueError when it is not exact
    for this P (e.g. P not 2^k)."""
    check_algorithm(op, algorithm)
    P = check_P(P)
    check_params(lam, b, gamma)
    if P == 1:
        return 0.0
    if algorithm == "pipeline":
        k = segments if segments is not None else optimal_segments(P, n, lam, b)
        return pipeline_time(P, n, lam, b, k)
    cost = COSTS[op, algorithm]
    if not cost.holds(P):
        raise ValueError(f"the closed form of {op}/{algorithm} holds only for {cost.exact_for}, not {P}")
    A, B, C = cost.coefficients(P)
    return float(A * lam + B * n / b + C * n * gamma)


def coefficients(op: str, algorithm: str, P: int, segments: int | None = None):
    """(A, B, C) with t = A lam + B n beta + C n gamma, read off the schedule for this P: A steps,
    B and C the sums over steps of the largest fraction of n sent / sent and combined."""
    steps = schedule(op, algorithm, P, segments)
    return (
        float(len(steps)),
        float(sum(max(m.frac for m in s) for s in steps)),
        float(sum(max(m.frac * m.combine for m in s) for s in steps)),
    )


def coefficient_table(nps, ops=None) -> pd.DataFrame:
    """A(P), B(P), C(P) of every algorithm (pipeline excepted: its k depends on n) for each P in
    `nps`, read off the schedules: op, algorithm, np, latency, bytes, reduce. For explorers that
    evaluate t = A lam + B n / b + C n gamma without the package (e.g. in a browser)."""
    rows = [
        (op, alg, int(P), *coefficients(op, alg, int(P)))
        for op in ops or OPERATIONS
        for alg in ALGORITHMS[op]
        if alg != "pipeline"
        for P in nps
    ]
    return pd.DataFrame(rows, columns=["op", "algorithm", "np", "latency", "bytes", "reduce"])


def _display(expr: str) -> str:
    out = expr.replace("ceil_log2(P)", "⌈log₂P⌉").replace("log2(P + 1)", "log₂(P+1)")
    out = out.replace("log2(P)", "log₂P").replace("*", "").replace(" - ", "−").replace(" + ", "+")
    return "0" if out == "0" else out


def cost_table(ops=None) -> pd.DataFrame:
    """Every modelled algorithm's alpha-beta-gamma cost and each operation's lower bound, as
    printed on the collectives page: op, algorithm, latency (times lam), bandwidth (times
    n beta), reduction (times n gamma), exact for."""
    rows = []
    for op in ops or OPERATIONS:
        for alg in ALGORITHMS[op]:
            if alg == "pipeline":
                rows.append((op, alg, "P−2+k", "(P−2+k)/k", "0", "k segments"))
                continue
            c = COSTS[op, alg]
            rows.append((op, alg, _display(c.latency), _display(c.bytes), _display(c.reduce), c.exact_for))
        lb = LOWER_BOUNDS[op]
        rows.append((op, "lower bound", _display(lb.latency), _display(lb.bytes), _display(lb.reduce), "any algorithm"))
    return pd.DataFrame(
        rows, columns=["operation", "algorithm", "latency × λ", "bytes × nβ", "reduced × nγ", "exact for"]
    )


def crossover(op: str, fast_small: str, fast_large: str, P: int, lam: float, b: float, gamma: float = 0.0) -> float:
    """Size n (bytes) where `fast_large` starts to beat `fast_small` in the model (the sizes
    where their costs A lam + (B/b + C gamma) n are equal); inf if never, 0 if always."""
    a1, b1, c1 = coefficients(op, fast_small, P)
    a2, b2, c2 = coefficients(op, fast_large, P)
    slope = (b1 - b2) / b + (c1 - c2) * gamma  # us per byte saved by fast_large
    extra = (a2 - a1) * lam  # us of latency it pays more
    if extra <= 0:
        return 0.0 if slope >= 0 else float("inf")
    return extra / slope if slope > 0 else float("inf")


def fastest_algorithm(op: str, P: int, n: float, lam: float, b: float, gamma: float = 0.0):
    """(name of the predicted fastest algorithm, ranking table algorithm/t_us/segments sorted
    fastest first; ties keep the order of ALGORITHMS[op]). Pipeline uses its optimal k*."""
    if op not in ALGORITHMS:
        raise ValueError(f"unknown collective '{op}'; valid: {', '.join(OPERATIONS)}")
    rows = []
    for alg in ALGORITHMS[op]:
        k = optimal_segments(P, n, lam, b) if alg == "pipeline" else None
        rows.append(dict(algorithm=alg, t_us=predict(op, alg, P, n, lam, b, gamma, segments=k), segments=k))
    ranking = pd.DataFrame(rows).sort_values("t_us", kind="stable").reset_index(drop=True)
    return ranking.algorithm.iloc[0], ranking


# ---------------------------------------------------------------------------------------
# Fitting lambda and b per algorithm


@dataclass
class CollectiveFit:
    op: str
    algorithm: str
    lam_us: float
    b_MBps: float
    train_error: float  # median |relative error| on the rows used for the fit
    test_error: float  # ... on the rows held out (nan when none)
    table: pd.DataFrame = field(repr=False)  # np, size_bytes, t_us, model_us, rel_error, split

    def predict(self, P, n):
        return predict(self.op, self.algorithm, P, n, self.lam_us, self.b_MBps, segment_bytes=self._segment_bytes)

    _segment_bytes: int | None = field(default=None, repr=False)


def _coefficients(op, algorithm, P, n, segment_bytes):
    """t = A lam + B beta for this (P, n): A = number of steps, B = sum of the largest
    message of each step (gamma = 0)."""
    k = _pipeline_k(P, n, 1.0, 1.0, None, segment_bytes) if algorithm == "pipeline" else None
    steps = schedule(op, algorithm, P, k)
    return len(steps), n * sum(max(m.frac for m in s) for s in steps)


def fit_algorithm(
    table: pd.DataFrame,
    op: str,
    algorithm: str,
    train="np",
    train_fraction: float = 0.5,
    segment_bytes: int | None = None,
) -> CollectiveFit:
    """Fit lambda and b of one algorithm's model on part of its measurements, predict the rest.

    table: columns np, size_bytes, t_us (a tidy table, already restricted to this algorithm).
    train: "np" (the smallest train_fraction of the process counts), "size" (the smallest
    sizes), "all", or a boolean mask. The fit minimises the relative error (scipy lsq_linear
    with lambda, beta >= 0), so small and large messages weigh alike. Pipeline needs
    segment_bytes (the library's segment size) to stay a linear model.
    """
    from scipy.optimize import lsq_linear

    check_algorithm(op, algorithm)
    if algorithm == "pipeline" and segment_bytes is None:
        raise ValueError("fitting the pipeline model needs segment_bytes (the library's segment size)")
    missing = {"np", "size_bytes", "t_us"} - set(table.columns)
    if missing:
        raise ValueError(f"the table lacks column(s) {sorted(missing)}")
    df = table[["np", "size_bytes", "t_us"]].copy().reset_index(drop=True)
    df = df[(df.np >= 2) & (df.t_us > 0)].reset_index(drop=True)
    if len(df) < 2:
        raise ValueError("need at least two rows with np >= 2 and t_us > 0 to fit")
    if isinstance(train, str):
        if train == "all":
            mask = np.ones(len(df), bool)
        elif train in ("np", "size_bytes", "size"):
            col = "np" if train == "np" else "size_bytes"
            values = np.sort(df[col].unique())
            cut = values[max(0, math.ceil(len(values) * train_fraction) - 1)]
            mask = (df[col] <= cut).to_numpy()
        else:
            raise ValueError(f"train must be 'np', 'size', 'all' or a mask, not '{train}'")
    else:
        mask = np.asarray(train, bool)
        if len(mask) != len(df):
            raise ValueError("the train mask must have one entry per usable row")
    coef = np.array(
        [_coefficients(op, algorithm, int(P), float(n), segment_bytes) for P, n in zip(df.np, df.size_bytes)], float
    )
    t = df.t_us.to_numpy(float)
    A = coef[mask] / t[mask, None]
    if np.linalg.matrix_rank(A) < 2:
        raise ValueError("the training rows cannot separate lambda from b (need several sizes or P)")
    sol = lsq_linear(A, np.ones(mask.sum()), bounds=([0, 0], [np.inf, np.inf]))
    lam, beta = (float(x) for x in sol.x)
    if beta <= 0:
        raise ValueError("the fit found no bandwidth term (beta = 0): add larger messages")
    df["model_us"] = coef @ np.array([lam, beta])
    df["rel_error"] = (df.model_us - df.t_us) / df.t_us
    df["split"] = np.where(mask, "train", "test")
    err = lambda m: float(np.median(np.abs(df.rel_error[m]))) if m.any() else float("nan")  # noqa: E731
    return CollectiveFit(op, algorithm, lam, 1.0 / beta, err(mask), err(~mask), df, _segment_bytes=segment_bytes)


def model_time(op, name, P, n, lam, b, gamma=0.0, segment_bytes=None):
    """One collective call's time (us) for one size: predict(), except that the pipeline takes the
    closed form with ceil(n / segment_bytes) segments (a schedule of that many steps would be slow)."""
    if name == "pipeline":
        # the pipeline's closed form: a schedule of ceil(n / segment) steps would be slow
        if segment_bytes is None:
            return closed_form(op, name, P, n, lam, b, gamma)
        k = max(1, math.ceil(n / segment_bytes))
        return 0.0 if P == 1 else pipeline_time(P, n, lam, b, k)
    return predict(op, name, P, n, lam, b, gamma)


def crossover_size(P: int, lam: float, b: float, segment_bytes: int, hi: float = 2.0**34) -> float:
    """Message size (bytes) above which the pipelined chain (segments of segment_bytes) beats
    the binomial tree for a broadcast to P ranks, in the Hockney model; inf if it never does
    below `hi`. Found by bracketing the models' difference on a grid, then scipy brentq."""
    from scipy.optimize import brentq

    def diff(n):
        return model_time("bcast", "pipeline", P, n, lam, b, 0.0, segment_bytes) - model_time(
            "bcast", "binomial", P, n, lam, b, 0.0, None
        )

    grid = np.geomspace(1, hi, 400)
    d = np.array([diff(n) for n in grid])
    change = np.nonzero((d[:-1] > 0) & (d[1:] <= 0))[0]
    if len(change) == 0:
        return float("inf")
    i = change[-1]  # the last crossing: from there on the pipeline stays ahead
    # the pipeline's time jumps where the segment count steps; brentq needs a sign change only
    return float(brentq(diff, grid[i], grid[i + 1], xtol=1.0))
