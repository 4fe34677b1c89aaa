"""Cost models of collective algorithms, built on the Hockney model t = lambda + n/b.

Each algorithm is written once as a *schedule*: a list of synchronous steps, each a list of
messages (src rank, dst rank, size as a fraction of n, whether the receiver combines the data
with its own). A step costs its slowest message, lambda + frac * n * (beta + gamma * combine),
and an algorithm costs the sum of its steps. The textbook closed forms (``CLOSED_FORMS``) are
written separately and the tests check that both agree, so a schedule bug cannot hide.

Units: lambda (``lam``) in us, bandwidth b in MB/s (1e6 B/s, so beta = 1/b is us per byte),
n in bytes, gamma (reduction cost) in us per byte, times in us. Root is rank 0.

The size n is the whole buffer for bcast, reduce and allreduce, and one rank's block for
gather and scatter (as in osu_gather / osu_scatter).

Latency-map models (seeds/002, Loletti report, eqs. 1-3) replace lambda by a measured
core-to-core latency L[i, j]: :func:`latency_map_time` with the same schedules.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

ALGORITHMS = {
    "bcast": {
        "linear": "root sends to every rank in turn: (P-1)(lam + n beta)",
        "chain": "rank i forwards to i+1: (P-1)(lam + n beta)",
        "pipeline": "chain with k segments: (P-2+k)(lam + (n/k) beta); k* when not given",
        "binary_tree": "each rank sends to its 2 children (2i+1, 2i+2) in turn",
        "binomial": "senders double each step: ceil(log2 P)(lam + n beta)",
        "scatter_allgather": "van de Geijn: binomial scatter + ring allgather",
    },
    "gather": {
        "linear": "every rank sends its block to the root in turn: (P-1)(lam + n beta)",
        "binomial": "blocks climb a binomial tree, messages grow: ceil(log2 P) lam + (P-1) n beta",
    },
    "scatter": {
        "linear": "root sends each rank its block in turn: (P-1)(lam + n beta)",
        "binomial": "halves of the blocks go down a binomial tree: ceil(log2 P) lam + (P-1) n beta",
    },
    "reduce": {
        "linear": "root receives and combines every buffer in turn: (P-1)(lam + n beta + n gamma)",
        "binomial": "binomial tree, combining on the way: ceil(log2 P)(lam + n beta + n gamma)",
    },
    "allreduce": {
        "recursive_doubling": "butterfly: log2 P (lam + n beta + n gamma), fold in/out when P is not 2^k",
        "reduce_bcast": "binomial reduce then binomial bcast",
        "ring": "ring reduce-scatter + ring allgather: 2(P-1)(lam + n beta / P) + (P-1) n gamma / P",
        "rabenseifner": "recursive halving reduce-scatter + recursive doubling allgather",
    },
}
OPERATIONS = tuple(ALGORITHMS)


@dataclass(frozen=True)
class Message:
    src: int
    dst: int
    frac: float = 1.0      # size in units of n
    combine: bool = False  # receiver reduces it into its buffer (costs frac * n * gamma)


Schedule = list  # list of steps; a step is a list of Message


# ---------------------------------------------------------------------------------------
# Checks


def check_algorithm(op: str, algorithm: str) -> None:
    if op not in ALGORITHMS:
        raise ValueError(f"unknown collective '{op}'; valid: {', '.join(OPERATIONS)}")
    if algorithm not in ALGORITHMS[op]:
        raise ValueError(f"unknown {op} algorithm '{algorithm}'; valid: {', '.join(ALGORITHMS[op])}")


def _check_P(P) -> int:
    if isinstance(P, bool) or not isinstance(P, (int, np.integer)) or P < 1:
        raise ValueError(f"P (number of processes) must be an integer >= 1, not {P!r}")
    return int(P)


def _check_params(lam, b, gamma=0.0):
    for name, v in (("lambda", lam), ("gamma", gamma)):
        if v is None or not math.isfinite(v) or v < 0:
            raise ValueError(f"{name} must be a finite number >= 0, not {v!r}")
    if b is None or not math.isfinite(b) or b <= 0:
        raise ValueError(f"bandwidth b must be a positive number (MB/s), not {b!r}")


def _ceil_log2(P: int) -> int:
    return (P - 1).bit_length()


# ---------------------------------------------------------------------------------------
# Schedules


def schedule(op: str, algorithm: str, P: int, segments: int | None = None) -> Schedule:
    """The steps of `algorithm` for `op` on P ranks (root 0). `segments` is the pipeline's k."""
    check_algorithm(op, algorithm)
    P = _check_P(P)
    if P == 1:
        return []
    if algorithm == "pipeline":
        if segments is None:
            raise ValueError("the pipeline schedule needs a segment count k")
        segments = _check_segments(segments)
    else:
        segments = None
    return [list(step) for step in _cached_schedule(op, algorithm, P, segments)]


@functools.lru_cache(maxsize=512)
def _cached_schedule(op, algorithm, P, segments):
    steps = _pipeline(P, segments) if algorithm == "pipeline" else _SCHEDULES[op, algorithm](P)
    return tuple(tuple(step) for step in steps)


def _check_segments(k) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"segments must be an integer >= 1, not {k!r}")
    return int(k)


def _linear_from_root(P, frac=1.0):
    return [[Message(0, i, frac)] for i in range(1, P)]


def _chain(P):
    return [[Message(i, i + 1)] for i in range(P - 1)]


def _pipeline(P, k):
    steps = []
    for s in range(P - 2 + k):
        steps.append([Message(i, i + 1, 1.0 / k) for i in range(P - 1) if 0 <= s - i < k])
    return steps


def _binary_tree(P):
    """Each rank, once it has the data, sends to child 2i+1 then to child 2i+2."""
    slots: dict[int, list] = {}
    ready = {0: 0}
    for u in range(P):  # heap order: parents before children
        for j, c in enumerate((2 * u + 1, 2 * u + 2)):
            if c < P:
                slots.setdefault(ready[u] + j, []).append(Message(u, c))
                ready[c] = ready[u] + j + 1
    return [slots[t] for t in sorted(slots)]


def _binomial_bcast(P, frac=1.0, combine=False):
    steps, dist = [], 1
    while dist < P:
        steps.append([Message(r, r + dist, frac, combine) for r in range(dist) if r + dist < P])
        dist *= 2
    return steps


def _binomial_up(P, blocks: bool, combine: bool):
    """Gather/reduce: at distance 1, 2, 4 ... rank r (r % 2d == d) sends to r - d its subtree
    (its blocks for gather: min(d, P - r) of them; one buffer for reduce)."""
    steps, d = [], 1
    while d < P:
        steps.append([Message(r, r - d, float(min(d, P - r)) if blocks else 1.0, combine)
                      for r in range(d, P, 2 * d)])
        d *= 2
    return steps


def _binomial_scatter(P, unit: float):
    """Root halves its blocks down a binomial tree (distance P/2, P/4, ... 1, MPICH order)."""
    steps, d = [], 1 << (_ceil_log2(P) - 1)
    while d >= 1:
        steps.append([Message(r, r + d, unit * min(d, P - r - d)) for r in range(0, P, 2 * d)
                      if r + d < P])
        d //= 2
    return steps


def _ring_allgather(P, frac):
    return [[Message(i, (i + 1) % P, frac) for i in range(P)] for _ in range(P - 1)]


def _ring_reduce_scatter(P, frac):
    return [[Message(i, (i + 1) % P, frac, True) for i in range(P)] for _ in range(P - 1)]


def _fold(P):
    """Largest power of two P' <= P and the fold-in / fold-out steps for the P - P' extra ranks
    (rank P'+i sends its buffer to rank i before, and gets the result back after)."""
    Pp = 1 << (P.bit_length() - 1)
    extra = range(P - Pp)
    fold_in = [[Message(Pp + i, i, 1.0, True) for i in extra]] if P > Pp else []
    fold_out = [[Message(i, Pp + i, 1.0) for i in extra]] if P > Pp else []
    return Pp, fold_in, fold_out


def _recursive_doubling(P):
    Pp, fold_in, fold_out = _fold(P)
    steps, d = [], 1
    while d < Pp:
        steps.append([Message(r, r ^ d, 1.0, True) for r in range(Pp)])
        d *= 2
    return fold_in + steps + fold_out


def _rabenseifner(P):
    Pp, fold_in, fold_out = _fold(P)
    halving, doubling = [], []
    d, frac = Pp // 2, 0.5
    while d >= 1:  # reduce-scatter: exchange half of what is left with the partner at distance d
        halving.append([Message(r, r ^ d, frac, True) for r in range(Pp)])
        d, frac = d // 2, frac / 2
    d, frac = 1, 1.0 / Pp
    while d < Pp:  # allgather: the pieces double back up
        doubling.append([Message(r, r ^ d, frac) for r in range(Pp)])
        d, frac = d * 2, frac * 2
    return fold_in + halving + doubling + fold_out


_SCHEDULES = {
    ("bcast", "linear"): _linear_from_root,
    ("bcast", "chain"): _chain,
    ("bcast", "binary_tree"): _binary_tree,
    ("bcast", "binomial"): _binomial_bcast,
    ("bcast", "scatter_allgather"): lambda P: _binomial_scatter(P, 1.0 / P) + _ring_allgather(P, 1.0 / P),
    ("gather", "linear"): lambda P: [[Message(i, 0)] for i in range(1, P)],
    ("gather", "binomial"): lambda P: _binomial_up(P, blocks=True, combine=False),
    ("scatter", "linear"): _linear_from_root,
    ("scatter", "binomial"): lambda P: _binomial_scatter(P, 1.0),
    ("reduce", "linear"): lambda P: [[Message(i, 0, 1.0, True)] for i in range(1, P)],
    ("reduce", "binomial"): lambda P: _binomial_up(P, blocks=False, combine=True),
    ("allreduce", "recursive_doubling"): _recursive_doubling,
    ("allreduce", "reduce_bcast"): lambda P: (_binomial_up(P, blocks=False, combine=True)
                                              + _binomial_bcast(P)),
    ("allreduce", "ring"): lambda P: _ring_reduce_scatter(P, 1.0 / P) + _ring_allgather(P, 1.0 / P),
    ("allreduce", "rabenseifner"): _rabenseifner,
}


# ---------------------------------------------------------------------------------------
# Costs


def optimal_segments(P: int, n: float, lam: float, b: float) -> int:
    """The k minimising (P-2+k)(lam + (n/k)/b): the integer next to k* = sqrt((P-2) n / (b lam)),
    between 1 and n (a segment holds at least one byte)."""
    P = _check_P(P)
    _check_params(lam, b)
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


def schedule_time(steps: Schedule, n, lam: float, b: float, gamma: float = 0.0,
                  extra_us=None, beta_factor=None):
    """Sum over steps of the slowest message, lam + extra + frac n (beta*factor + gamma*combine).

    extra_us(message) -> us added to that message (e.g. hops beyond a neighbour times t_h);
    beta_factor(step) -> one factor per message of the step (e.g. link sharing). n may be an array.
    """
    _check_params(lam, b, gamma)
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


def predict(op: str, algorithm: str, P: int, n, lam: float, b: float, gamma: float = 0.0,
            segments: int | None = None, segment_bytes: int | None = None,
            topology=None, placement=None, t_h: float = 0.0, contention: bool = False):
    """Predicted time (us) of one collective call; n may be an array of sizes.

    pipeline: k = `segments`, or ceil(n / segment_bytes), or the optimal k* for each n.
    topology (a commbook.topology graph): rank r runs on placement[r] (default processor r);
    each message pays t_h for every link beyond the shortest processor-to-processor path
    (lambda is measured between neighbours), and with contention=True its n beta term is
    multiplied by the number of the step's messages sharing its busiest link.
    """
    check_algorithm(op, algorithm)
    P = _check_P(P)
    _check_params(lam, b, gamma)
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
            out[i] = schedule_time(_cached_schedule(op, algorithm, P, k), size, lam, b, gamma,
                                   extra_us, beta_factor)
        out = out.reshape(n_arr.shape)
        return out if out.ndim else float(out)
    steps = _cached_schedule(op, algorithm, P, None)
    return schedule_time(steps, n_arr, lam, b, gamma, extra_us, beta_factor)


def _pipeline_k(P, n, lam, b, segments, segment_bytes) -> int:
    if segments is not None:
        return _check_segments(segments)
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
# Closed forms (textbook; Thakur, Rabenseifner & Gropp 2005; Chan et al. 2007)


def _pow2(P):
    return P >= 1 and P & (P - 1) == 0


def _cf_rd(P, n, lam, b, g):
    Pp = 1 << (P.bit_length() - 1)
    t = math.log2(Pp) * (lam + n / b + n * g)
    if P > Pp:  # fold in (send + combine) and fold out (send)
        t += (lam + n / b + n * g) + (lam + n / b)
    return t


CLOSED_FORMS = {
    # (op, algorithm): (formula(P, n, lam, b, gamma), for which P it is exact)
    ("bcast", "linear"): (lambda P, n, lam, b, g: (P - 1) * (lam + n / b), lambda P: True),
    ("bcast", "chain"): (lambda P, n, lam, b, g: (P - 1) * (lam + n / b), lambda P: True),
    ("bcast", "binomial"): (lambda P, n, lam, b, g: _ceil_log2(P) * (lam + n / b), lambda P: True),
    # full binary tree of height h (P = 2^(h+1) - 1): the last right child waits 2 sends per level
    ("bcast", "binary_tree"): (lambda P, n, lam, b, g: 2 * (math.log2(P + 1) - 1) * (lam + n / b),
                               lambda P: _pow2(P + 1)),
    ("bcast", "scatter_allgather"): (
        lambda P, n, lam, b, g: (math.log2(P) + P - 1) * lam + 2 * (P - 1) / P * n / b, _pow2),
    ("gather", "linear"): (lambda P, n, lam, b, g: (P - 1) * (lam + n / b), lambda P: True),
    ("gather", "binomial"): (lambda P, n, lam, b, g: math.log2(P) * lam + (P - 1) * n / b, _pow2),
    ("scatter", "linear"): (lambda P, n, lam, b, g: (P - 1) * (lam + n / b), lambda P: True),
    ("scatter", "binomial"): (lambda P, n, lam, b, g: math.log2(P) * lam + (P - 1) * n / b, _pow2),
    ("reduce", "linear"): (lambda P, n, lam, b, g: (P - 1) * (lam + n / b + n * g), lambda P: True),
    ("reduce", "binomial"): (lambda P, n, lam, b, g: _ceil_log2(P) * (lam + n / b + n * g),
                             lambda P: True),
    ("allreduce", "recursive_doubling"): (_cf_rd, lambda P: True),
    ("allreduce", "reduce_bcast"): (
        lambda P, n, lam, b, g: _ceil_log2(P) * (2 * lam + 2 * n / b + n * g), lambda P: True),
    ("allreduce", "ring"): (
        lambda P, n, lam, b, g: 2 * (P - 1) * (lam + n / (P * b)) + (P - 1) * n * g / P,
        lambda P: True),
    ("allreduce", "rabenseifner"): (
        lambda P, n, lam, b, g: 2 * math.log2(P) * lam + 2 * (P - 1) / P * n / b + (P - 1) / P * n * g,
        _pow2),
}


def closed_form(op: str, algorithm: str, P: int, n: float, lam: float, b: float,
                gamma: float = 0.0, segments: int | None = None) -> float:
    """The textbook formula; ValueError when it is not exact for this P (e.g. P not 2^k)."""
    check_algorithm(op, algorithm)
    P = _check_P(P)
    _check_params(lam, b, gamma)
    if P == 1:
        return 0.0
    if algorithm == "pipeline":
        k = segments if segments is not None else optimal_segments(P, n, lam, b)
        return pipeline_time(P, n, lam, b, k)
    formula, valid = CLOSED_FORMS[op, algorithm]
    if not valid(P):
        raise ValueError(f"the closed form of {op}/{algorithm} holds only for special P, not {P}")
    return float(formula(P, n, lam, b, gamma))


# ---------------------------------------------------------------------------------------
# alpha-beta-gamma costs as coefficients: t = A(P) lam + B(P) n beta + C(P) n gamma


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
        env = {"P": P, "log2": math.log2, "ceil_log2": _ceil_log2}
        return tuple(float(eval(e, {"__builtins__": {}}, env))  # noqa: S307 (our own table)
                     for e in (self.latency, self.bytes, self.reduce))

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
}


def coefficients(op: str, algorithm: str, P: int, segments: int | None = None):
    """(A, B, C) with t = A lam + B n beta + C n gamma, read off the schedule for this P: A steps,
    B and C the sums over steps of the largest fraction of n sent / sent and combined."""
    steps = schedule(op, algorithm, P, segments)
    return (float(len(steps)), float(sum(max(m.frac for m in s) for s in steps)),
            float(sum(max(m.frac * m.combine for m in s) for s in steps)))


def coefficient_table(nps, ops=None) -> pd.DataFrame:
    """A(P), B(P), C(P) of every algorithm (pipeline excepted: its k depends on n) for each P in
    `nps`, read off the schedules: op, algorithm, np, latency, bytes, reduce. For explorers that
    evaluate t = A lam + B n / b + C n gamma without the package (e.g. in a browser)."""
    rows = [(op, alg, int(P), *coefficients(op, alg, int(P)))
            for op in ops or OPERATIONS for alg in ALGORITHMS[op] if alg != "pipeline"
            for P in nps]
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
            rows.append((op, alg, _display(c.latency), _display(c.bytes), _display(c.reduce),
                         c.exact_for))
        lb = LOWER_BOUNDS[op]
        rows.append((op, "lower bound", _display(lb.latency), _display(lb.bytes),
                     _display(lb.reduce), "any algorithm"))
    return pd.DataFrame(rows, columns=["operation", "algorithm", "latency × λ", "bytes × nβ",
                                       "reduced × nγ", "exact for"])


def crossover(op: str, fast_small: str, fast_large: str, P: int, lam: float, b: float,
              gamma: float = 0.0) -> float:
    """Size n (bytes) where `fast_large` starts to beat `fast_small` in the model (the sizes
    where their costs A lam + (B/b + C gamma) n are equal); inf if never, 0 if always."""
    a1, b1, c1 = coefficients(op, fast_small, P)
    a2, b2, c2 = coefficients(op, fast_large, P)
    slope = (b1 - b2) / b + (c1 - c2) * gamma  # us per byte saved by fast_large
    extra = (a2 - a1) * lam                   # us of latency it pays more
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
        rows.append(dict(algorithm=alg, t_us=predict(op, alg, P, n, lam, b, gamma, segments=k),
                         segments=k))
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
    test_error: float   # ... on the rows held out (nan when none)
    table: pd.DataFrame = field(repr=False)  # np, size_bytes, t_us, model_us, rel_error, split

    def predict(self, P, n):
        return predict(self.op, self.algorithm, P, n, self.lam_us, self.b_MBps,
                       segment_bytes=self._segment_bytes)

    _segment_bytes: int | None = field(default=None, repr=False)


def _coefficients(op, algorithm, P, n, segment_bytes):
    """t = A lam + B beta for this (P, n): A = number of steps, B = sum of the largest
    message of each step (gamma = 0)."""
    k = _pipeline_k(P, n, 1.0, 1.0, None, segment_bytes) if algorithm == "pipeline" else None
    steps = schedule(op, algorithm, P, k)
    return len(steps), n * sum(max(m.frac for m in s) for s in steps)


def fit_algorithm(table: pd.DataFrame, op: str, algorithm: str, train="np",
                  train_fraction: float = 0.5, segment_bytes: int | None = None) -> CollectiveFit:
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
    coef = np.array([_coefficients(op, algorithm, int(P), float(n), segment_bytes)
                     for P, n in zip(df.np, df.size_bytes)], float)
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
    return CollectiveFit(op, algorithm, lam, 1.0 / beta, err(mask), err(~mask), df,
                         _segment_bytes=segment_bytes)


# ---------------------------------------------------------------------------------------
# Latency maps (seeds/002 eqs. 1-3)

_A = ("core_a", "core_from", "Core 1", "core1", "src", "rank_a")
_B = ("core_b", "core_to", "Core 2", "core2", "dst", "rank_b")
_T = ("t_us", "latency_us", "Latency", "latency")
_S = ("size_bytes", "Message Size", "size")


def _pick(df, names, what):
    for name in names:
        if name in df.columns:
            return name
    raise ValueError(f"latency table has no {what} column (looked for {', '.join(names)})")


def latency_matrix(table: pd.DataFrame, P: int | None = None, size_bytes: int | None = None,
                   fill: float | None = None) -> np.ndarray:
    """P x P symmetric matrix L[i, j] (us) from a table of measured pair latencies.

    The table names each pair by columns (core_a/core_b, core_from/core_to, or the ORFEO map's
    "Core 1"/"Core 2") or, in a tidy table, by params "core_a=..;core_b=..". With several message
    sizes, `size_bytes` chooses one (default: the smallest). Pairs measured twice are averaged.
    Missing pairs take `fill` or raise naming the first one. Diagonal 0.
    """
    df = table.copy()
    if "params" in df.columns and not any(c in df.columns for c in _A):
        from ..data import params_to_dict
        extra = pd.DataFrame([params_to_dict(p) for p in df.params], index=df.index)
        df = pd.concat([df, extra], axis=1)
    a, b, t = _pick(df, _A, "first-core"), _pick(df, _B, "second-core"), _pick(df, _T, "latency")
    s = next((c for c in _S if c in df.columns), None)
    if s is not None and df[s].nunique() > 1:
        size = df[s].astype(float).min() if size_bytes is None else float(size_bytes)
        df = df[df[s].astype(float) == size]
        if df.empty:
            raise ValueError(f"no latencies for message size {size_bytes} B")
    i = pd.to_numeric(df[a], errors="coerce")
    j = pd.to_numeric(df[b], errors="coerce")
    v = pd.to_numeric(df[t], errors="coerce")
    bad = i.isna() | j.isna() | v.isna() | (i < 0) | (j < 0) | (v < 0)
    if bad.any():
        row = df[bad].iloc[0]
        raise ValueError(f"latency table row ({row[a]}, {row[b]}, {row[t]}) is not two core ids and a time")
    P = int(max(i.max(), j.max()) + 1) if P is None else int(P)
    total = np.zeros((P, P))
    count = np.zeros((P, P))
    for x, y, val in zip(i.astype(int), j.astype(int), v):
        if x < P and y < P and x != y:
            total[x, y] += val
            total[y, x] += val
            count[x, y] += 1
            count[y, x] += 1
    L = np.divide(total, count, out=np.zeros_like(total), where=count > 0)
    missing = (count == 0) & ~np.eye(P, dtype=bool)
    if missing.any():
        if fill is None:
            x, y = np.argwhere(missing)[0]
            raise ValueError(f"no latency for the pair ({x}, {y}); pass fill= for unmeasured pairs")
        L[missing] = fill
    return L


def plateau_latency_matrix(P: int, table: pd.DataFrame | None = None) -> np.ndarray:
    """The report's reading of its Table 1 (seeds/002 sec. 2.1): latency from core 0 to core
    c is constant on plateaus ending at the listed cores (1, 4, 8, 16, 24, 48); we assume it
    depends only on the distance |i - j| between core ids, so L[i, j] is the value of the
    first listed core >= |i - j|. Default table: data/orfeo/core_latency_seed.csv."""
    P = _check_P(P)
    if table is None:
        from .. import orfeo
        table = orfeo.summary_table("core_latency_seed")
    a, b, t = _pick(table, _A, "first-core"), _pick(table, _B, "second-core"), _pick(table, _T, "latency")
    rows = table[table[a].astype(int) == 0].sort_values(b)
    ends, values = rows[b].astype(int).to_numpy(), rows[t].astype(float).to_numpy()
    if P - 1 > ends.max():
        raise ValueError(f"the latency table reaches core {ends.max()}, not {P - 1}")
    dist = np.abs(np.subtract.outer(np.arange(P), np.arange(P)))
    L = values[np.searchsorted(ends, dist)]
    np.fill_diagonal(L, 0.0)
    return L


def class_latency_matrix(G, placement, latency_us: dict) -> np.ndarray:
    """L[i, j] from the link class of the path between ranks i and j on a cluster graph, e.g.
    {"core": 0.20, "socket": 0.41, "node": 0.99} (ping-pong latencies by mapping)."""
    from .. import topology as topo

    classes = topo.class_matrix(G, placement)
    missing = sorted({c for c in classes.ravel() if c != "self"} - set(latency_us))
    if missing:
        raise ValueError(f"no latency given for link class(es) {missing}")
    return np.vectorize(lambda c: 0.0 if c == "self" else float(latency_us[c]), otypes=[float])(classes)


def latency_map_time(op: str, algorithm: str, L: np.ndarray, P: int, overlap: float = 1.0,
                     how: str = "sum", segments: int | None = None) -> float:
    """Latency-only time of an algorithm with the measured L[i, j] in place of lambda.

    how="sum": overlap x the sum of L over every message (the report's models: eq. 1 chain
    bcast gamma * sum L[i, i+1] with overlap gamma = 0.6; eq. 2 linear gather sum L[i, 0];
    eq. 3 binomial gather, which we read as the sum over the P-1 tree edges L[j, j + 2^i]).
    how="steps": the sum over steps of the step's largest L (synchronous critical path).
    """
    check_algorithm(op, algorithm)
    P = _check_P(P)
    L = np.asarray(L, float)
    if L.ndim != 2 or L.shape[0] != L.shape[1] or L.shape[0] < P:
        raise ValueError(f"L must be a square matrix of at least {P} x {P}, not {L.shape}")
    if how not in ("sum", "steps"):
        raise ValueError(f"how must be 'sum' or 'steps', not '{how}'")
    if not 0 < overlap <= 1:
        raise ValueError(f"overlap must be in (0, 1], not {overlap}")
    steps = schedule(op, algorithm, P, segments if algorithm == "pipeline" else None)
    if how == "sum":
        return float(overlap * sum(L[m.src, m.dst] for s in steps for m in s))
    return float(overlap * sum(max(L[m.src, m.dst] for m in s) for s in steps))


def chain_latency_model(L, P, overlap=0.6):
    """seeds/002 eq. 1: T(P) = gamma * sum_i L[i, i+1]."""
    return latency_map_time("bcast", "chain", L, P, overlap)


def linear_gather_latency_model(L, P):
    """seeds/002 eq. 2: T(P) = sum_i L[i, 0]."""
    return latency_map_time("gather", "linear", L, P)


def binomial_gather_latency_model(L, P):
    """seeds/002 eq. 3, read as the sum of L over the edges of the binomial tree."""
    return latency_map_time("gather", "binomial", L, P)


def binomial_gather_critical_path(L, P):
    """seeds/002 eq. 3 corrected: the messages of one level of the tree travel at the same
    time, so the gather costs the sum over levels of the level's slowest message
    (log2 P terms), not the sum over all P - 1 edges."""
    return latency_map_time("gather", "binomial", L, P, how="steps")
