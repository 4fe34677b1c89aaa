"""Collectives explorer: the predicted time of every algorithm of a collective against the message
size, recomputed in the browser from λ and b, on an ideal network or on a topology where the
messages of a step that share a link divide its bandwidth.

The algorithms are commbook.models.collective_schedules.ALGORITHMS (a new algorithm there appears here).
With t_h = 0 an algorithm's time on a network is A·λ + B·n/b: A (steps) and B (the sum over steps
of the slowest message's share of n, times its link sharing) are computed here with the model's own
`predict` for every offered (network, operation, algorithm, P). The pipelined bcast picks its
segment count from n, λ and b, so the browser evaluates the model's optimal-segments rule instead
(ideal network only)."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from ... import topology as topo
from ...explorers.render import Explorer, bytes_axis, column_wide, measured_points, menu, records, slider
from ...models import collective_costs, collective_schedules

NAME = "collectives"
NETWORKS = {  # label: (topology, placement) ; None: every pair of ranks one link apart
    "ideal (no topology)": None,
    "2x2x4 cluster, by core": ("cluster:2x2x4", "core"),
    "2x2x4 cluster, by socket": ("cluster:2x2x4", "socket"),
    "2x2x4 cluster, by node": ("cluster:2x2x4", "node"),
    "2-D torus 4x4": ("torus:16", "core"),
    "hypercube of 16": ("hypercube:16", "core"),
    "fat tree 2-ary 4-tree (16)": ("fat_tree:2x4", "core"),
    "ring of 16": ("ring:16", "core"),
}
P_RANGE = (2, 16, 1)
SIZES = [2**k for k in range(27)]
LAMBDA_US = (0.0, 50.0, 0.01)
BANDWIDTH_MBPS = (100.0, 30000.0, 10.0)
SEGMENTED = "pipeline"  # its segment count depends on n, λ, b: computed in the browser
# (λ = 0 makes the pipeline's optimal k = n segments: the Python schedule would have 64 M steps,
# so the grid tests it at a small λ; the browser's closed form handles λ = 0.)
TEST_POINTS = [
    {"op": op, "P": P, "lam": lam, "bw": bw, "net": net}
    for op, P, lam, bw, net in [
        ("bcast", 16, 1.0, 5000.0, "ideal (no topology)"),
        ("bcast", 7, 0.05, 100.0, "ideal (no topology)"),
        ("bcast", 2, 50.0, 30000.0, "ideal (no topology)"),
        ("bcast", 13, 3.7, 12000.0, "2x2x4 cluster, by node"),
        ("allreduce", 12, 0.5, 900.0, "2-D torus 4x4"),
        ("allreduce", 16, 2.0, 20000.0, "fat tree 2-ary 4-tree (16)"),
        ("gather", 5, 10.0, 300.0, "hypercube of 16"),
        ("reduce", 16, 0.2, 6000.0, "2x2x4 cluster, by socket"),
        ("scatter", 9, 1.5, 2500.0, "ring of 16"),
    ]
]


def _topology(net: str):
    where = NETWORKS[net]
    if where is None:
        return {}
    G = topo.parse_topology(where[0])
    return {"topology": G, "placement": topo.place(G, P_RANGE[1], where[1]), "contention": True}


def python_model(row: dict, params: dict) -> float:
    return _curve(params["op"], row["alg"], int(params["P"]), params["lam"], params["bw"], params["net"])[int(row["n"])]


@functools.lru_cache(maxsize=256)
def _curve(op, alg, P, lam, bw, net) -> dict:
    """{n: predicted µs} over SIZES, in one call of the model (routing is the slow part)."""
    t = collective_costs.predict(op, alg, P, np.asarray(SIZES, float), lam, bw, **_topology(net))
    return dict(zip(SIZES, (float(x) for x in t)))


def _coefficients() -> pd.DataFrame:
    rows = []
    for net in NETWORKS:
        where = _topology(net)
        for op, algorithms in collective_schedules.ALGORITHMS.items():
            for alg in algorithms:
                if alg == SEGMENTED and where:
                    continue
                for P in range(P_RANGE[0], P_RANGE[1] + 1):
                    if alg == SEGMENTED:
                        rows.append({"net": net, "op": op, "alg": alg, "P": P, "A": None, "B": None})
                        continue
                    # λ = b = 1 at n = 0 and 1: A latencies, then A + B (no hop term: t_h = 0)
                    A, AB = collective_costs.predict(op, alg, P, np.array([0.0, 1.0]), 1.0, 1.0, **where)
                    rows.append({"net": net, "op": op, "alg": alg, "P": P, "A": float(A), "B": float(AB - A)})
    return pd.DataFrame(rows)


# collective_costs.optimal_segments and collective_costs.pipeline_time, as Vega expressions on datum.n, P, lam, bw
_PIPELINE = [
    ("kmax", "max(1, floor(datum.n))"),
    ("kstar", "lam > 0 ? sqrt((P - 2) * datum.n / (bw * lam)) : 0"),
    ("k1", "min(datum.kmax, max(1, floor(datum.kstar)))"),
    ("k2", "min(datum.kmax, max(1, ceil(datum.kstar)))"),
    ("t1", "(P - 2 + datum.k1) * (lam + (datum.n / datum.k1) / bw)"),
    ("t2", "(P - 2 + datum.k2) * (lam + (datum.n / datum.k2) / bw)"),
    ("k", "P <= 2 || datum.n <= 1 ? 1 : lam == 0 ? datum.kmax : datum.t2 < datum.t1 ? datum.k2 : datum.k1"),
]


def _measured(measured) -> pd.DataFrame:
    frames = [
        pd.DataFrame(
            {
                "op": op,
                "series": df["algorithm"].astype(str) + " (measured)",
                "P": df["np"],
                "n": df["size_bytes"],
                "t": df["t_us"],
            }
        )
        for op, df in dict(measured).items()
    ]
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["op", "series", "P", "n", "t"])
    return out[out["n"] > 0]


def explorer(
    measured=None, lambda_us: float = 1.0, bandwidth_MBps: float = 5000.0, P: int = 16, op: str = "bcast"
) -> Explorer:
    """measured: {operation: table with algorithm, np, size_bytes, t_us} (drawn when P matches)."""
    import altair as alt

    params = [
        menu("op", "operation", collective_schedules.OPERATIONS, op),
        slider("P", "processes P (count)", *P_RANGE, P),
        slider("lam", "λ (µs)", *LAMBDA_US, round(min(max(lambda_us, 0.0), 50.0), 2)),
        slider("bw", "b (MB/s)", *BANDWIDTH_MBPS, round(min(max(bandwidth_MBps, 100.0), 30000.0), -1)),
        menu("net", "network (shared links)", list(NETWORKS), "ideal (no topology)"),
    ]
    lines = (
        alt.Chart(alt.Data(values=records(_coefficients())))
        .transform_filter("datum.net == net && datum.op == op && datum.P == P")
        .transform_calculate(n="sequence(0, 27)")
        .transform_flatten(["n"])
        .transform_calculate(n="pow(2, datum.n)")
    )
    for name, expr in _PIPELINE:
        lines = lines.transform_calculate(**{name: f"datum.alg == '{SEGMENTED}' ? {expr} : null"})
    lines = lines.transform_calculate(
        model=f"datum.alg == '{SEGMENTED}' ? (P - 2 + datum.k) * (lam + (datum.n / datum.k) / bw) "
        ": datum.A * lam + datum.B * datum.n / bw"
    )
    x = alt.X("n:Q", scale=alt.Scale(type="log", base=2), axis=bytes_axis())
    model = lines.mark_line().encode(
        x,
        alt.Y("model:Q", scale=alt.Scale(type="log"), title="time per call (µs)"),
        alt.Color("alg:N", title="algorithm (model)", legend=alt.Legend(orient="bottom", columns=3)),
        tooltip=["alg:N", "n:Q", alt.Tooltip("model:Q", format=".4g", title="model (µs)")],
    )
    series = alt.Shape("series:N", title="this machine", legend=alt.Legend(orient="bottom", columns=3))
    points = measured_points(
        _measured(measured or {}), x, "t:Q", series, "datum.op == op && datum.P == P", color="black"
    )
    title = "op + ', P = ' + P + ', λ = ' + format(lam, '.2f') + ' µs, b = ' + format(bw, ',') + ' MB/s: ' + net"
    return Explorer(
        column_wide(model + points, params, 320, title),
        NAME,
        # the pipeline's segment count follows n, λ and b: the browser computes it for the ideal network only
        notes=["pipeline: ideal network only"],
    )
