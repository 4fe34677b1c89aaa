"""Jacobi explorer: predicted MLUP/s against the number of processes N, weak scaling (each process
an L^3 block, the report's P(L, N)) or strong scaling (one L^3 grid split over N), recomputed in
the browser from T_l, B and T_s. The decomposition's counts (faces k, largest block, halo bytes)
come from commbook.models.jacobi for every offered (L, N, decomposition, boundaries)."""

from __future__ import annotations

import pandas as pd

from ...explorers.render import Explorer, measured_points, menu, records, slider
from ...models import jacobi as jm

NAME = "jacobi"
L_VALUES = (300, 600, 1200, 2400)
N_MAX = 48
T_S_REFERENCE_L = 1200
LAMBDA_US = (0.0, 50.0, 0.01)
BANDWIDTH_MBPS = (100.0, 50000.0, 10.0)
T_S = (0.1, 60.0, 0.01)  # seconds per sweep of 1200^3 points on one process
TEST_POINTS = [
    {"L": 1200, "dec": 3, "periodic": 1, "scaling": "weak", "Tl": 0.99, "B": 24120.0, "Ts": 15.24},
    {"L": 300, "dec": 1, "periodic": 0, "scaling": "strong", "Tl": 0.0, "B": 100.0, "Ts": 0.1},
    {"L": 2400, "dec": 2, "periodic": 1, "scaling": "strong", "Tl": 50.0, "B": 50000.0, "Ts": 60.0},
    {"L": 600, "dec": 2, "periodic": 0, "scaling": "weak", "Tl": 3.3, "B": 777.0, "Ts": 2.5},
]


def t_s(params: dict) -> float:
    """T_s of the chosen L: the reference T_s scaled by the number of points."""
    return params["Ts"] * (params["L"] / T_S_REFERENCE_L) ** 3


def python_model(row: dict, params: dict) -> float:
    L, N, dec, periodic = int(params["L"]), int(row["N"]), int(params["dec"]), bool(params["periodic"])
    if params["scaling"] == "weak":
        return jm.JacobiModel(L, N, t_s(params), params["B"], params["Tl"], dec, periodic).mlups
    return jm.strong_mlups(L, jm.dims_create(N, dec), t_s(params), params["B"], params["Tl"], periodic)


def _rows() -> pd.DataFrame:
    rows = []
    for L in L_VALUES:
        for dec in (1, 2, 3):
            for periodic in (0, 1):
                for N in range(1, N_MAX + 1):
                    grid = jm.dims_create(N, dec)
                    block = 1
                    for p in grid:
                        block *= jm.local_extent(L, p)
                    rows.append(
                        {
                            "L": L,
                            "dec": dec,
                            "periodic": periodic,
                            "N": N,
                            "grid": "x".join(map(str, grid)),
                            "k": jm.faces(grid, bool(periodic)),
                            "block": block,
                            "halo": jm.strong_halo_bytes(L, grid, bool(periodic)),
                        }
                    )
    return pd.DataFrame(rows)


def _measured(measured) -> pd.DataFrame:
    frames = [pd.DataFrame({"series": label, "N": list(N), "mlups": list(p)}) for label, N, p in measured]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["series", "N", "mlups"])


def explorer(
    measured=(),
    latency_us: float = 0.99,
    bandwidth_MBps: float = 24120.0,
    T_s: float = 15.24,
    L: int = 1200,
    periodic: bool = True,
    scaling: str = "strong",
) -> Explorer:
    """measured: [(label, N values, MLUP/s values)], measured on L^3 = 1200^3 (strong scaling)."""
    import altair as alt

    params = [
        menu("scaling", "scaling", ("weak", "strong"), scaling, labels=("weak: L³ each", "strong: one L³")),
        menu("L", "L (points per side)", L_VALUES, L),
        menu("dec", "decomposed dimensions", (1, 2, 3), 3, labels=("1-D slabs", "2-D pencils", "3-D cubes")),
        menu("periodic", "boundaries", (1, 0), int(periodic), labels=("periodic (course code)", "fixed")),
        slider("Tl", "T_l latency (µs)", *LAMBDA_US, round(min(max(latency_us, 0.0), 50.0), 2)),
        slider(
            "B",
            "B duplex (MB/s)",
            *BANDWIDTH_MBPS,
            round(min(max(bandwidth_MBps, 100.0), 50000.0), -1),
        ),
        slider("Ts", f"T_s of {T_S_REFERENCE_L}³ (s)", *T_S, round(min(max(T_s, 0.1), 60.0), 2)),
    ]
    ts = f"(Ts * pow(L / {T_S_REFERENCE_L}, 3))"
    weak_tc = "(datum.N > 1 ? L * L * datum.k * 2 * 8 / (B * 1e6) + datum.k * Tl * 1e-6 : 0)"
    strong_tc = "(2 * datum.halo / (B * 1e6) + datum.k * Tl * 1e-6)"
    base = (
        alt.Chart(alt.Data(values=records(_rows())))
        .transform_filter("datum.L == L && datum.dec == dec && datum.periodic == periodic")
        .transform_calculate(
            model=f"scaling == 'weak' ? 1e-6 * L * L * L * datum.N / ({ts} + {weak_tc}) "
            f": 1e-6 * L * L * L / ({ts} * datum.block / (L * L * L) + {strong_tc})",
            ideal=f"1e-6 * L * L * L * datum.N / {ts}",
        )
        .transform_calculate(share="1 - datum.model / datum.ideal")
    )
    x = alt.X("N:Q", title="processes N", scale=alt.Scale(domain=[0, N_MAX + 1]))
    tip = ["N:Q", "grid:N", alt.Tooltip("model:Q", format=",.0f", title="model MLUP/s")]
    series = alt.Color("series:N", title="measured, 1200³ strong", legend=alt.Legend(orient="bottom", columns=1))
    points = measured_points(_measured(measured), x, "mlups:Q", series, "scaling == 'strong' && L == 1200", filled=True)
    left = (
        base.mark_line(color="#c0392b").encode(x, alt.Y("model:Q", title="MLUP/s"), tooltip=tip)
        + base.mark_line(color="grey", strokeDash=[3, 3]).encode(x, alt.Y("ideal:Q"))
        + points
    ).properties(
        width=290,
        height=260,
        title=alt.Title(alt.expr("scaling + ', L = ' + L + ', ' + dec + '-D'")),
    )
    right = (
        base.transform_filter("datum.N > 1")
        .mark_line(color="#e67e22")
        .encode(
            x,
            alt.Y("share:Q", scale=alt.Scale(type="log"), title="1 − efficiency (model)"),
            tooltip=["N:Q", alt.Tooltip("share:Q", format=".2%")],
        )
        .properties(width=170, height=260, title="lost to communication")
    )
    return Explorer(alt.hconcat(left, right).add_params(*params), NAME)
