"""Matrix-addition explorer: the model's phases (scatter, add, gather) for every process grid of P
that fits the matrix, and the speedup of 1-D grids as P grows, recomputed in the browser from
λ, b, the add rate and the scatter algorithm. Per (shape, grid, algorithm) the counts the model
multiplies (messages, bytes moved, largest block) come from commbook.models.matrix."""

from __future__ import annotations

import pandas as pd

from ...explorers.render import Explorer, measured_points, menu, records, slider
from ...models import matrix as M
from ...models.hockney import Hockney

NAME = "matrix"
SHAPES = ("2400x100x100", "100x100x100", "120x100x81")
PROCESSES = (2, 4, 6, 8, 12, 16, 24, 32, 48)
P_SPEEDUP = 48
LAMBDA_US = (0.0, 50.0, 0.01)
BANDWIDTH_MBPS = (100.0, 30000.0, 10.0)
ADD_RATE = (10.0, 5000.0, 10.0)  # elements added per µs by one core
TEST_POINTS = [
    {"shape": "2400x100x100", "P": 24, "lam": 0.4, "bw": 5000.0, "rate": 500.0, "alg": "linear"},
    {"shape": "100x100x100", "P": 12, "lam": 0.0, "bw": 100.0, "rate": 10.0, "alg": "binomial"},
    {"shape": "120x100x81", "P": 48, "lam": 50.0, "bw": 30000.0, "rate": 5000.0, "alg": "linear"},
]


def python_model(row: dict, params: dict) -> float:
    """Bars: total time of the row's grid; speedup rows: serial add / total of (P, 1, 1)."""
    link = Hockney(params["lam"], params["bw"])
    grid = row["grid"] if row["kind"] == "grid" else (int(row["P"]), 1, 1)
    pred = M.predict(params["shape"], grid, link, params["rate"], algorithm=params["alg"])
    return pred.total if row["kind"] == "grid" else pred.speedup


def _coefficients(shape: str, grid, algorithm: str) -> dict:
    """total = 3·(messages·λ + moved/b) + largest block / add rate (the model without copies)."""
    blocks = M.block_sizes(shape, grid)
    P = len(blocks)
    return {
        "messages": M.collective_time(P, 0.0, Hockney(1.0, 1.0), algorithm),
        "moved": float(blocks.sum() - blocks[0]) * M.BYTES_PER_ELEMENT,
        "largest": float(blocks.max()),
        "elements": float(blocks.sum()),
    }


def _rows() -> pd.DataFrame:
    rows = []
    for shape in SHAPES:
        dims = M._dims("shape", shape)
        for alg in M.ALGORITHMS:
            for P in PROCESSES:
                for g in M.grids(P):
                    if all(a <= b for a, b in zip(g, dims)):
                        rows.append(
                            {
                                "kind": "grid",
                                "shape": shape,
                                "alg": alg,
                                "P": P,
                                "grid": M.grid_name(g),
                                **_coefficients(shape, g, alg),
                            }
                        )
            for P in range(1, min(P_SPEEDUP, dims[0]) + 1):
                rows.append(
                    {
                        "kind": "speedup",
                        "shape": shape,
                        "alg": alg,
                        "P": P,
                        "grid": M.grid_name((P, 1, 1)),
                        **_coefficients(shape, (P, 1, 1), alg),
                    }
                )
    return pd.DataFrame(rows)


def _measured(measured) -> pd.DataFrame:
    frames = [
        pd.DataFrame(
            {"series": label, "shape": df["matrix"], "grid": df["grid"], "P": df["np"], "t_ms": df["t_us"] / 1e3}
        )
        for label, df in measured
    ]
    if not frames:
        return pd.DataFrame(columns=["series", "shape", "grid", "P", "t_ms"])
    return pd.concat(frames, ignore_index=True)


def explorer(
    measured=(),
    lambda_us: float = 0.4,
    bandwidth_MBps: float = 5000.0,
    add_rate: float = 500.0,
    shape: str = "2400x100x100",
    P: int = 24,
) -> Explorer:
    """measured: [(label, table with matrix, grid, np, t_us)] (e.g. models.matrix.grid_rows)."""
    import altair as alt

    params = [
        menu("shape", "matrix (elements, AxBxC)", SHAPES, shape),
        menu("P", "processes P", PROCESSES, P),
        slider("lam", "λ (µs)", *LAMBDA_US, round(min(max(lambda_us, 0.0), 50.0), 2)),
        slider("bw", "b (MB/s)", *BANDWIDTH_MBPS, round(min(max(bandwidth_MBps, 100.0), 30000.0), -1)),
        slider("rate", "add rate (elements/µs, one core)", *ADD_RATE, round(min(max(add_rate, 10.0), 5000.0), -1)),
        menu("alg", "scatter/gather algorithm", M.ALGORITHMS, "linear"),
    ]
    one = "(datum.messages * lam + datum.moved / bw)"
    base = (
        alt.Chart(alt.Data(values=records(_rows())))
        .transform_filter("datum.shape == shape && datum.alg == alg")
        .transform_calculate(scatter=f"2 * {one}", gather=one, add="datum.largest / rate")
        .transform_calculate(total="datum.scatter + datum.add + datum.gather")
    )
    bars = (
        base.transform_filter("datum.kind == 'grid' && datum.P == P")
        .transform_fold(["scatter", "add", "gather"], as_=["phase", "us"])
        .transform_calculate(ms="datum.us / 1000", model="datum.total")
        .mark_bar()
        .encode(
            alt.X("grid:N", sort=None, title="process grid"),
            alt.Y("ms:Q", stack="zero", title="time (ms)"),
            alt.Color(
                "phase:N", sort=["scatter", "add", "gather"], title="model phase", legend=alt.Legend(orient="bottom")
            ),
            tooltip=["grid:N", "phase:N", alt.Tooltip("ms:Q", format=".4g")],
        )
    )
    series = alt.Shape("series:N", title="measured total", legend=alt.Legend(orient="bottom"))
    where = "datum.shape == shape && datum.P == P"
    points = measured_points(
        _measured(measured), alt.X("grid:N", sort=None), "t_ms:Q", series, where, filled=True, color="black"
    )
    left = (bars + points).properties(
        width=300,
        height=260,
        title=alt.Title(alt.expr("shape + ' on ' + P + ' processes, ' + alg + ' scatter/gather (model bars)'")),
    )
    speed = base.transform_filter("datum.kind == 'speedup'").transform_calculate(
        model="datum.elements / rate / datum.total", ideal="datum.P"
    )
    right = (
        speed.mark_line(color="#c0392b").encode(
            alt.X("P:Q", title="processes P (1-D grid Px1x1)"),
            alt.Y("model:Q", scale=alt.Scale(type="log"), title="speedup (model)"),
            tooltip=["P:Q", alt.Tooltip("model:Q", format=".3g")],
        )
        + speed.mark_line(color="grey", strokeDash=[3, 3]).encode(alt.X("P:Q"), alt.Y("ideal:Q"))
    ).properties(width=170, height=260, title="speedup (model) and ideal P (dashed)")
    return Explorer(alt.hconcat(left, right).add_params(*params), NAME)
