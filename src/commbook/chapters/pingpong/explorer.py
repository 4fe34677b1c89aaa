"""Ping-pong explorer: the Hockney model t = λ + n/b, recomputed in the browser as λ and b move,
over measured ping-pong curves (time, and effective bandwidth n/t)."""

from __future__ import annotations

import pandas as pd

from ...explorers.render import Explorer, bytes_axis, records, slider
from ...models.hockney import Hockney

NAME = "pingpong"
SIZES = [2**k for k in range(27)]  # 1 B .. 64 MiB
LAMBDA_US = (0.0, 50.0, 0.01)  # shared memory (0.2 µs) .. slow Ethernet
BANDWIDTH_MBPS = (10.0, 30000.0, 10.0)  # 10 MB/s .. 30 GB/s
# Test grid: the browser's model must equal python_model at every point.
TEST_POINTS = [{"lam": lam, "bw": bw} for lam in (0.0, 0.23, 17.5) for bw in (10.0, 5130.0, 30000.0)]


def python_model(row: dict, params: dict) -> float:
    """What the browser computes for one model row: commbook.models.hockney."""
    return float(Hockney(params["lam"], params["bw"]).time_us(row["n"])[0])


def orfeo_series(curves, machine: str = "orfeo-thin", transport: str = "ucx") -> list:
    """[(label, table)] of ORFEO ping-pong curves (as commbook.orfeo.load returns them), one per
    mapping, the median time of every size over the runs."""
    if curves is None or not len(curves):
        return []
    rows = curves[(curves["machine"] == machine) & (curves["transport"] == transport)]
    return [
        (
            f"ORFEO {machine.removeprefix('orfeo-')} by {mapping}, {transport}",
            g.groupby("size_bytes", as_index=False)["t_us"].median(),
        )
        for mapping, g in rows.groupby("mapping")
    ]


def _measured(measured) -> pd.DataFrame:
    frames = [pd.DataFrame({"series": label, "n": df["size_bytes"], "t": df["t_us"]}) for label, df in measured]
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["series", "n", "t"])
    out = out[out["n"] > 0]
    return out.assign(bandwidth=out["n"] / out["t"])


def explorer(
    measured=(), lambda_us: float = 1.0, bandwidth_MBps: float = 5000.0, presets: dict | None = None
) -> Explorer:
    """measured: [(label, table with size_bytes and t_us)]; sliders start at (λ, b); presets
    {label: Hockney} (default: ORFEO's links and the emulated nodes', see explorers.presets)
    replace the sliders' λ and b while chosen."""
    import altair as alt

    from ...explorers.presets import menu_param, pingpong_presets, used

    presets = pingpong_presets() if presets is None else presets
    preset = menu_param("preset", list(presets))
    lo, hi, step = LAMBDA_US
    lam = slider("lam", "λ (µs)", lo, hi, step, round(min(max(lambda_us, lo), hi), 2))
    lam_used = used("lam", lo, hi, "preset", {k: h.lambda_us for k, h in presets.items()}, 2)
    lo, hi, step = BANDWIDTH_MBPS
    bw = slider("bw", "b (MB/s)", lo, hi, step, round(min(max(bandwidth_MBps, lo), hi), -1))
    bw_used = used("bw", lo, hi, "preset", {k: h.bandwidth_MBps for k, h in presets.items()}, -1)
    model = (
        alt.Chart(alt.Data(values=[{"n": n} for n in SIZES]))
        .transform_calculate(model="lam_used + datum.n / bw_used")
        .transform_calculate(model_bandwidth="datum.n / datum.model")
    )
    points = alt.Chart(alt.Data(values=records(_measured(measured))))
    x = alt.X("n:Q", scale=alt.Scale(type="log", base=2), axis=bytes_axis())
    series = alt.Color("series:N", title="measured", legend=alt.Legend(orient="bottom", columns=1))
    tip = ["series:N", "n:Q", "t:Q"]
    time = (
        points.mark_point(filled=True, size=25).encode(
            x, alt.Y("t:Q", scale=alt.Scale(type="log"), title="time t (µs)"), series, tooltip=tip
        )
        + model.mark_line(color="#c0392b").encode(x, alt.Y("model:Q"))
    ).properties(width=225, height=260, title="time: Hockney model (line) and measured")
    band = (
        points.mark_point(filled=True, size=25).encode(
            x, alt.Y("bandwidth:Q", title="bandwidth n/t (MB/s)"), series, tooltip=tip
        )
        + model.mark_line(color="#c0392b").encode(x, alt.Y("model_bandwidth:Q"))
    ).properties(width=225, height=260, title="effective bandwidth: model n/(λ + n/b)")
    chart = (
        alt.hconcat(time, band)
        .add_params(preset, lam, bw, lam_used, bw_used)
        .properties(
            title=alt.Title(
                alt.expr(
                    "'Hockney model t = λ + n/b: λ = ' + format(lam_used, '.2f')"
                    " + ' µs, b = ' + format(bw_used, ',') + ' MB/s, n½ = ' "
                    "+ format(lam_used * bw_used, ',.0f') + ' B'"
                )
            )
        )
    )
    return Explorer(chart, NAME)
