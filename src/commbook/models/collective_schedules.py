"""Collective algorithms as schedules: which rank sends what to whom, step by step.

Each algorithm is written once as a *schedule*: a list of synchronous steps, each a list of
messages (src rank, dst rank, size as a fraction of n, whether the receiver combines the data
with its own). Root is rank 0; n is the whole buffer for bcast, reduce, allreduce and
reduce_scatter, one rank's block for gather, scatter and allgather, and the block one rank sends
to one other for alltoall (as in the OSU benchmarks osu_gather, osu_allgather, osu_alltoall,
osu_reduce_scatter).

Their cost is commbook.models.collective_costs' job; latency maps are commbook.models.latency_maps'.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from .. import algorithms

# {operation: {algorithm: description}}: the modelled records of commbook.algorithms.
ALGORITHMS = algorithms.model_descriptions()
OPERATIONS = tuple(ALGORITHMS)


@dataclass(frozen=True)
class Message:
    src: int
    dst: int
    frac: float = 1.0  # size in units of n
    combine: bool = False  # receiver reduces it into its buffer (costs frac * n * gamma)


Schedule = list  # list of steps; a step is a list of Message


# ---------------------------------------------------------------------------------------
# Checks


def check_algorithm(op: str, algorithm: str) -> None:
    if op not in ALGORITHMS:
        raise ValueError(f"unknown collective '{op}'; valid: {', '.join(OPERATIONS)}")
    if algorithm not in ALGORITHMS[op]:
        raise ValueError(f"unknown {op} algorithm '{algorithm}'; valid: {', '.join(ALGORITHMS[op])}")


def check_P(P) -> int:
    if isinstance(P, bool) or not isinstance(P, (int, np.integer)) or P < 1:
        raise ValueError(f"P (number of processes) must be an integer >= 1, not {P!r}")
    return int(P)


def check_params(lam, b, gamma=0.0):
    for name, v in (("lambda", lam), ("gamma", gamma)):
        if v is None or not math.isfinite(v) or v < 0:
            raise ValueError(f"{name} must be a finite number >= 0, not {v!r}")
    if b is None or not math.isfinite(b) or b <= 0:
        raise ValueError(f"bandwidth b must be a positive number (MB/s), not {b!r}")


def ceil_log2(P: int) -> int:
    return (P - 1).bit_length()


# ---------------------------------------------------------------------------------------
# Schedules


def schedule(op: str, algorithm: str, P: int, segments: int | None = None) -> Schedule:
    """The steps of `algorithm` for `op` on P ranks (root 0). `segments` is the pipeline's k."""
    check_algorithm(op, algorithm)
    P = check_P(P)
    if P == 1:
        return []
    if algorithm == "pipeline":
        if segments is None:
            raise ValueError("the pipeline schedule needs a segment count k")
        segments = check_segments(segments)
    else:
        segments = None
    return [list(step) for step in cached_schedule(op, algorithm, P, segments)]


@functools.lru_cache(maxsize=512)
def cached_schedule(op, algorithm, P, segments):
    steps = _pipeline(P, segments) if algorithm == "pipeline" else _SCHEDULES[op, algorithm](P)
    return tuple(tuple(step) for step in steps)


def check_segments(k) -> int:
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
        steps.append([Message(r, r - d, float(min(d, P - r)) if blocks else 1.0, combine) for r in range(d, P, 2 * d)])
        d *= 2
    return steps


def _binomial_scatter(P, unit: float):
    """Root halves its blocks down a binomial tree (distance P/2, P/4, ... 1, MPICH order)."""
    steps, d = [], 1 << (ceil_log2(P) - 1)
    while d >= 1:
        steps.append([Message(r, r + d, unit * min(d, P - r - d)) for r in range(0, P, 2 * d) if r + d < P])
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


def _allgather_bruck(P):
    """At distance 1, 2, 4, ... every rank sends the blocks it holds (at most P - d) to r - d."""
    steps, d = [], 1
    while d < P:
        steps.append([Message(r, (r - d) % P, float(min(d, P - d))) for r in range(P)])
        d *= 2
    return steps


def _allgather_recursive_doubling(P):
    """Partners r and r xor d swap all they hold (d blocks). Open MPI runs Bruck's algorithm
    instead when P is not a power of two, and so does this schedule."""
    if not _pow2_P(P):
        return _allgather_bruck(P)
    steps, d = [], 1
    while d < P:
        steps.append([Message(r, r ^ d, float(d)) for r in range(P)])
        d *= 2
    return steps


def _alltoall_bruck(P):
    """After a local rotation, at distance d = 1, 2, 4, ... each rank sends to r + d the blocks
    whose index has bit d set (about P/2 of them), then a local inverse rotation."""
    steps, d = [], 1
    while d < P:
        blocks = float(sum(1 for i in range(P) if i & d))
        steps.append([Message(r, (r + d) % P, blocks) for r in range(P)])
        d *= 2
    return steps


def _reduce_scatter_halving(P):
    """Partners at distance P'/2, P'/4, ... 1 swap and combine half of what is left; with
    P not 2^k the extra ranks fold in first and get their block back last."""
    Pp, fold_in, _ = _fold(P)
    steps, d = [], Pp // 2
    while d >= 1:
        steps.append([Message(r, r ^ d, d / Pp, True) for r in range(Pp)])
        d //= 2
    fold_out = [[Message(i, Pp + i, 1.0 / P) for i in range(P - Pp)]] if P > Pp else []
    return fold_in + steps + fold_out


def _pow2_P(P):
    return P >= 1 and P & (P - 1) == 0


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
    ("allreduce", "reduce_bcast"): lambda P: _binomial_up(P, blocks=False, combine=True) + _binomial_bcast(P),
    ("allreduce", "ring"): lambda P: _ring_reduce_scatter(P, 1.0 / P) + _ring_allgather(P, 1.0 / P),
    ("allreduce", "rabenseifner"): _rabenseifner,
    ("allgather", "ring"): lambda P: _ring_allgather(P, 1.0),
    ("allgather", "recursive_doubling"): _allgather_recursive_doubling,
    ("allgather", "bruck"): _allgather_bruck,
    ("alltoall", "pairwise"): lambda P: [[Message(r, (r + k) % P) for r in range(P)] for k in range(1, P)],
    ("alltoall", "bruck"): _alltoall_bruck,
    ("reduce_scatter", "ring"): lambda P: _ring_reduce_scatter(P, 1.0 / P),
    ("reduce_scatter", "recursive_halving"): _reduce_scatter_halving,
}


def ompi_chain_schedule(P: int, fanout: int = 4):
    """Open MPI's coll_tuned "chain" broadcast (algorithm 2) as a schedule of
    Message steps: `fanout` chains hang from the root (the
    default coll_tuned_bcast_algorithm_chain_fanout is 4), ranks 1..P-1 cut into consecutive
    runs, the first ones one longer (P = 10: 1-2-3, 4-5, 6-7, 8-9). Checked against the
    library's own message counts in tests/test_collectives.py. The root sends to the chain heads
    one per step; every rank forwards in the step after it received."""
    if isinstance(P, bool) or int(P) != P or P < 1:
        raise ValueError(f"P must be a whole number >= 1, not {P!r}")
    if isinstance(fanout, bool) or int(fanout) != fanout or fanout < 1:
        raise ValueError(f"fanout must be a whole number >= 1, not {fanout!r}")
    if P == 1:
        return []
    f = min(int(fanout), P - 1)
    q, r = divmod(P - 1, f)
    steps: dict[int, list] = {}
    start = 1
    for i in range(f):
        chain = list(range(start, start + q + (1 if i < r else 0)))
        start += len(chain)
        steps.setdefault(i, []).append(Message(0, chain[0]))
        for k in range(len(chain) - 1):
            steps.setdefault(i + 1 + k, []).append(Message(chain[k], chain[k + 1]))
    return [steps[s] for s in sorted(steps)]


def tree_depth(steps) -> int:
    """Hops from the root (rank 0) to the farthest rank of a broadcast schedule."""
    depth = {0: 0}
    for step in steps:
        for m in step:
            if m.src not in depth:
                raise ValueError(f"rank {m.src} sends before it has received (step {step})")
            depth[m.dst] = depth[m.src] + 1
    return max(depth.values())
