"""Latency-map models of collectives: a measured core-to-core latency L[i, j] in place of
lambda (the ORFEO collectives report, Loletti, eqs. 1-3), on the schedules of
commbook.models.collective_schedules."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .collective_schedules import check_algorithm, check_P, schedule

# ---------------------------------------------------------------------------------------
# Latency maps (Loletti's report, eqs. 1-3)

_A = ("core_a", "core_from", "Core 1", "core1", "src", "rank_a")
_B = ("core_b", "core_to", "Core 2", "core2", "dst", "rank_b")
_T = ("t_us", "latency_us", "Latency", "latency")
_S = ("size_bytes", "Message Size", "size")


def _pick(df, names, what):
    for name in names:
        if name in df.columns:
            return name
    raise ValueError(f"latency table has no {what} column (looked for {', '.join(names)})")


def latency_matrix(
    table: pd.DataFrame, P: int | None = None, size_bytes: int | None = None, fill: float | None = None
) -> np.ndarray:
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


def plateau_latency_matrix(P: int, table: pd.DataFrame) -> np.ndarray:
    """The report's reading of its Table 1 (Loletti, sec. 2.1): latency from core 0 to core
    c is constant on plateaus ending at the listed cores (1, 4, 8, 16, 24, 48); we assume it
    depends only on the distance |i - j| between core ids, so L[i, j] is the value of the
    first listed core >= |i - j|. The report's table: orfeo.summary_table("core_latency_seed")."""
    P = check_P(P)
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


def latency_map_time(
    op: str, algorithm: str, L: np.ndarray, P: int, overlap: float = 1.0, how: str = "sum", segments: int | None = None
) -> float:
    """Latency-only time of an algorithm with the measured L[i, j] in place of lambda.

    how="sum": overlap x the sum of L over every message (the report's models: eq. 1 chain
    bcast gamma * sum L[i, i+1] with overlap gamma = 0.6; eq. 2 linear gather sum L[i, 0];
    eq. 3 binomial gather, which we read as the sum over the P-1 tree edges L[j, j + 2^i]).
    how="steps": the sum over steps of the step's largest L (synchronous critical path).
    """
    check_algorithm(op, algorithm)
    P = check_P(P)
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
    """Loletti's eq. 1: T(P) = gamma * sum_i L[i, i+1]."""
    return latency_map_time("bcast", "chain", L, P, overlap)


def linear_gather_latency_model(L, P):
    """Loletti's eq. 2: T(P) = sum_i L[i, 0]."""
    return latency_map_time("gather", "linear", L, P)


def binomial_gather_latency_model(L, P):
    """Loletti's eq. 3, read as the sum of L over the edges of the binomial tree."""
    return latency_map_time("gather", "binomial", L, P)


def binomial_gather_critical_path(L, P):
    """Loletti's eq. 3 corrected: the messages of one level of the tree travel at the same
    time, so the gather costs the sum over levels of the level's slowest message
    (log2 P terms), not the sum over all P - 1 edges."""
    return latency_map_time("gather", "binomial", L, P, how="steps")
