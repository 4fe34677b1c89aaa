"""Ring explorer: T(P) = m·P·max_c(λ_c + n/b_c) over the link classes the ring uses, recomputed in
the browser for P = 1..P_MAX. Which classes a ring of P ranks uses (placement by core on
`cores/socket` x `sockets/node` nodes) is computed here with commbook.models.ring and embedded."""

from __future__ import annotations

import pandas as pd

from ...explorers.render import Explorer, column_wide, measured_points, menu, records, slider
from ...models.hockney import Hockney
from ...models.ring import Placement, ring_time

NAME = "ring"
CLASSES = ("core", "socket", "node")
P_MAX = 64
CORES_PER_SOCKET = (4, 8, 12, 16, 32)
SOCKETS_PER_NODE = (1, 2, 4)
LAMBDA_US = (0.0, 20.0, 0.01)
BANDWIDTH_MBPS = (100.0, 30000.0, 10.0)
LOG2_N = (2, 26, 1)  # 4 B .. 64 MiB
TEST_POINTS = [
    {
        "lam_core": 0.2,
        "lam_socket": 0.4,
        "lam_node": 1.0,
        "bw_core": 6000.0,
        "bw_socket": 5000.0,
        "bw_node": 12000.0,
        "cps": 12,
        "spn": 2,
        "log2n": 2,
        "m": 2.0,
    },
    {
        "lam_core": 0.0,
        "lam_socket": 3.3,
        "lam_node": 0.5,
        "bw_core": 100.0,
        "bw_socket": 30000.0,
        "bw_node": 700.0,
        "cps": 4,
        "spn": 1,
        "log2n": 26,
        "m": 1.3,
    },
    {
        "lam_core": 5.0,
        "lam_socket": 0.1,
        "lam_node": 20.0,
        "bw_core": 25000.0,
        "bw_socket": 150.0,
        "bw_node": 12000.0,
        "cps": 8,
        "spn": 4,
        "log2n": 14,
        "m": 1.0,
    },
]


def python_model(row: dict, params: dict) -> float:
    links = {c: Hockney(params[f"lam_{c}"], params[f"bw_{c}"]) for c in CLASSES}
    placement = Placement(int(row["cps"]), int(row["spn"]))
    return float(ring_time([int(row["P"])], float(2 ** params["log2n"]), links, placement, float(params["m"]))[0])


def _classes_used() -> pd.DataFrame:
    """One row per (cores/socket, sockets/node, P): which link classes the ring uses."""
    rows = []
    for cps in CORES_PER_SOCKET:
        for spn in SOCKETS_PER_NODE:
            placement = Placement(cps, spn)
            for P in range(1, P_MAX + 1):
                used = {"core" if c == "self" else c for c in placement.link_classes(P)}
                rows.append({"cps": cps, "spn": spn, "P": P, **{f"uses_{c}": int(c in used) for c in CLASSES}})
    return pd.DataFrame(rows)


def _measured(measured) -> pd.DataFrame:
    frames = [pd.DataFrame({"series": label, "P": df["np"], "t": df["t_us"]}) for label, df in measured]
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["series", "P", "t"])
    return out[out["P"] <= P_MAX]


def explorer(
    measured=(),
    lambda_us: dict | None = None,
    bandwidth_MBps: dict | None = None,
    cores_per_socket: int | None = None,
    sockets_per_node: int | None = None,
    log2_n: int = 2,
    messages_per_step: float = 2.0,
    presets: dict | None = None,
) -> Explorer:
    """measured: [(label, table with np and t_us)]; the sliders start at the given λ_c, b_c and
    geometry, by default ORFEO THIN's (ping-pong over UCX, the Scorcia report); presets
    {label: {class: Hockney}} (default: ORFEO's links and the emulated nodes', see
    explorers.presets) replace the sliders of their classes while chosen."""
    import altair as alt

    from ... import orfeo
    from ...explorers.presets import menu_param, ring_presets, used

    thin = orfeo.node("orfeo-thin")
    cores_per_socket = cores_per_socket or thin.cores_per_socket
    sockets_per_node = sockets_per_node or thin.sockets
    thin_links = orfeo.links("ucx")
    lambda_us = lambda_us or {c: thin_links[c].lambda_us for c in CLASSES}
    bandwidth_MBps = bandwidth_MBps or {c: thin_links[c].bandwidth_MBps for c in CLASSES}
    presets = ring_presets() if presets is None else presets
    params = [menu_param("preset", list(presets))]
    for c in CLASSES:
        lo, hi, step = LAMBDA_US
        params.append(slider(f"lam_{c}", f"λ {c} (µs)", lo, hi, step, round(min(max(lambda_us[c], lo), hi), 2)))
        params.append(used(f"lam_{c}", lo, hi, "preset", {k: v[c].lambda_us for k, v in presets.items() if c in v}, 2))
    for c in CLASSES:
        lo, hi, step = BANDWIDTH_MBPS
        params.append(slider(f"bw_{c}", f"b {c} (MB/s)", lo, hi, step, round(min(max(bandwidth_MBps[c], lo), hi), -1)))
        params.append(
            used(f"bw_{c}", lo, hi, "preset", {k: v[c].bandwidth_MBps for k, v in presets.items() if c in v}, -1)
        )
    params += [
        menu("cps", "cores per socket", CORES_PER_SOCKET, cores_per_socket),
        menu("spn", "sockets per node", SOCKETS_PER_NODE, sockets_per_node),
        slider("log2n", "log₂ of message size n (n in bytes)", *LOG2_N, log2_n),
        slider("m", "messages per step m (1: directions overlap, 2: serialised)", 1.0, 2.0, 0.1, messages_per_step),
    ]
    cost = " , ".join(f"datum.uses_{c} ? lam_{c}_used + pow(2, log2n) / bw_{c}_used : 0" for c in CLASSES)
    model = (
        alt.Chart(alt.Data(values=records(_classes_used())))
        .transform_filter("datum.cps == cps && datum.spn == spn")
        .transform_calculate(model=f"m * datum.P * max({cost})")
        .mark_line(color="black", interpolate="step-after")
        .encode(
            alt.X("P:Q", title="processes P (placed by core)", scale=alt.Scale(domain=[0, P_MAX + 1])),
            alt.Y("model:Q", title="time of one ring (µs)"),
            tooltip=["P:Q", alt.Tooltip("model:Q", format=".3g", title="model (µs)")],
        )
    )
    series = alt.Color("series:N", title="measured", legend=alt.Legend(orient="bottom", columns=1))
    points = measured_points(_measured(measured), alt.X("P:Q"), "t:Q", series, filled=True)
    title = (
        "'Ring model m·P·max(λ_c + n/b_c) (line), n = ' + "
        "format(pow(2, log2n), ',') + ' B; ' + cps + ' cores x '"
        " + spn + ' sockets per node'"
    )
    return Explorer(column_wide(points + model, params, 300, title), NAME)
