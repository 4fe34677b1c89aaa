"""Topology explorer: a network drawn with a collective's messages routed over it, step by step,
and its metrics next to the lecture's formulas. Drawings, routes, link loads and metrics need
networkx (commbook.topology): they are computed here for every offered (topology, size, overlay)
and embedded; the controls select from them in the browser."""

from __future__ import annotations

import functools

import networkx as nx
import pandas as pd

from ... import topology as topo
from ...explorers.render import Explorer, menu, records, slider
from ...models import collective_schedules

NAME = "topology"
TOPOLOGIES = (
    "linear:8",
    "ring:8",
    "ring:16",
    "mesh:9",
    "mesh:16",
    "torus:16",
    "hypercube:8",
    "hypercube:16",
    "tree:15",
    "switch_tree:16",
    "fat_tree:2x3",
    "fat_tree:2x4",
    "cluster:2x2x4",
)
# menu label "bcast binary tree": (operation, algorithm of commbook.models.collective_schedules)
OVERLAYS = {"(none)": None} | {
    f"{op} {alg.replace('_', ' ')}": (op, alg)
    for op, alg in (
        ("bcast", "binomial"),
        ("bcast", "chain"),
        ("bcast", "binary_tree"),
        ("gather", "binomial"),
        ("allreduce", "recursive_doubling"),
    )
}
MAX_STEPS = 16
TEST_POINTS = [
    {"net": TOPOLOGIES.index(t), "overlay": list(OVERLAYS).index(o), "upto": MAX_STEPS}
    for t, o in [
        ("hypercube:16", "allreduce recursive doubling"),
        ("torus:16", "bcast binomial"),
        ("fat_tree:2x4", "gather binomial"),
        ("cluster:2x2x4", "allreduce recursive doubling"),
        ("ring:8", "bcast chain"),
        ("tree:15", "bcast binary tree"),
    ]
]


@functools.lru_cache(maxsize=None)
def _graph(net: str):
    G = topo.parse_topology(net)
    return G, topo.place(G, len(topo.processors(G)))


def _messages(net: str, overlay: str) -> list[list[tuple]]:
    """Per step: (source processor, destination processor) of every message."""
    if OVERLAYS[overlay] is None:
        return []
    G, where = _graph(net)
    op, alg = OVERLAYS[overlay]
    steps = collective_schedules.schedule(op, alg, len(where))
    return [[(where[m.src], where[m.dst]) for m in step] for step in steps[:MAX_STEPS]]


def python_model(row: dict, params: dict) -> float:
    """The busiest link's load (messages) in the row's step: commbook.topology.link_loads (every
    embedded row, whichever topology the controls select)."""
    net, overlay = TOPOLOGIES[int(row["net"])], list(OVERLAYS)[int(row["overlay"])]
    G, _ = _graph(net)
    step = _messages(net, overlay)[int(row["step"]) - 1]
    return float(max(topo.link_loads(G, step).values()))


def _data():
    drawing, routes, loads, table = [], [], [], []
    for net in TOPOLOGIES:
        G, _ = _graph(net)
        pos = nx.get_node_attributes(G, "pos") or nx.spring_layout(G, seed=1)
        procs = set(topo.processors(G))
        for u, v, d in G.edges(data=True):
            drawing.append(
                {
                    "net": net,
                    "x": pos[u][0],
                    "y": pos[u][1],
                    "x2": pos[v][0],
                    "y2": pos[v][1],
                    "what": "wrap-around link" if d.get("wrap") else "link",
                }
            )
        for u in G.nodes:
            drawing.append(
                {
                    "net": net,
                    "x": pos[u][0],
                    "y": pos[u][1],
                    "what": "processor" if u in procs else "switch",
                    "label": str(u) if u in procs else "",
                }
            )
        m = topo.metrics(G)
        formulas = topo.CLOSED_FORM_TEXT[G.graph["kind"]]
        for name, text in zip(("diameter", "bisection", "links"), formulas):
            value = m[name] if name != "bisection" or m["bisection_exact"] else f"<= {m[name]}"
            formula = m[f"{name}_formula"]
            table.append(
                {
                    "net": net,
                    "line": f"{name}: {value} (graph), {text}" + (f" = {formula}" if formula is not None else ""),
                }
            )
        for overlay in OVERLAYS:
            for s, step in enumerate(_messages(net, overlay), start=1):
                load = topo.link_loads(G, step)
                loads.append({"net": net, "overlay": overlay, "step": s, "model": max(load.values())})
                used = {}
                for a, b in step:
                    path = topo.route(G, a, b)
                    for u, v in zip(path, path[1:]):
                        key = (u, v) if (u, v) in load else (v, u)
                        used[key] = load.get(key, 1)
                for (u, v), n in used.items():  # one row per link in use: the page stays small
                    routes.append(
                        {
                            "net": net,
                            "overlay": overlay,
                            "step": s,
                            "x": pos[u][0],
                            "y": pos[u][1],
                            "x2": pos[v][0],
                            "y2": pos[v][1],
                            "load": n,
                        }
                    )
    out = [pd.DataFrame(x) for x in (drawing, routes, loads, table)]
    for df in out:  # short codes instead of repeated names, 3 decimals for drawing coordinates
        df["net"] = df["net"].map(TOPOLOGIES.index)
        if "overlay" in df:
            df["overlay"] = df["overlay"].map(list(OVERLAYS).index)
        for c in ("x", "y", "x2", "y2"):
            if c in df:
                df[c] = df[c].round(3)
    return out


def explorer(net: str = "hypercube:16", overlay: str = "allreduce recursive doubling") -> Explorer:
    import altair as alt

    drawing, routes, loads, table = _data()
    params = [
        menu("net", "topology (kind:size)", range(len(TOPOLOGIES)), TOPOLOGIES.index(net), labels=TOPOLOGIES),
        menu("overlay", "messages of", range(len(OVERLAYS)), list(OVERLAYS).index(overlay), labels=list(OVERLAYS)),
        slider("upto", "steps (count)", 1, MAX_STEPS, 1, MAX_STEPS),
    ]
    here = "datum.net == net"
    shown = f"{here} && datum.overlay == overlay"  # this network, these messages
    upto = "datum.step <= upto"
    axis = dict(axis=None)
    draw = alt.Chart(alt.Data(values=records(drawing))).transform_filter(here)
    links = (
        draw.transform_filter("isValid(datum.x2)")
        .mark_rule(color="#bbb")
        .encode(
            alt.X("x:Q", scale=alt.Scale(zero=False), **axis),
            alt.Y("y:Q", scale=alt.Scale(zero=False), **axis),
            x2="x2:Q",
            y2="y2:Q",
            strokeDash=alt.StrokeDash("what:N", legend=None),
        )
    )
    nodes = (
        draw.transform_filter("!isValid(datum.x2)")
        .mark_point(filled=True, size=120)
        .encode(
            alt.X("x:Q"),
            alt.Y("y:Q"),
            alt.Shape("what:N", title="node", legend=alt.Legend(orient="bottom")),
            color=alt.value("#34495e"),
        )
    )
    labels = (
        draw.transform_filter("!isValid(datum.x2)")
        .mark_text(color="white", fontSize=8)
        .encode(alt.X("x:Q"), alt.Y("y:Q"), text="label:N")
    )
    msgs = (
        alt.Chart(alt.Data(values=records(routes)))
        .transform_filter(f"{shown} && {upto}")
        .mark_rule(opacity=0.8)
        .encode(
            alt.X("x:Q"),
            alt.Y("y:Q"),
            x2="x2:Q",
            y2="y2:Q",
            color=alt.Color(
                "step:O", title="step", scale=alt.Scale(scheme="viridis"), legend=alt.Legend(orient="right")
            ),
            strokeWidth=alt.StrokeWidth(
                "load:Q", title="messages on the link", scale=alt.Scale(range=[2, 8]), legend=alt.Legend(orient="right")
            ),
        )
    )
    names = "[" + ", ".join(f"'{t}'" for t in TOPOLOGIES) + "]"
    overlays = "[" + ", ".join(f"': {o}'" for o in OVERLAYS) + "]"
    steps = "', steps 1-' + upto"
    picture = (links + msgs + nodes + labels).properties(
        width=380,
        height=300,
        title=alt.Title(alt.expr(f"{names}[net] + (overlay == 0 ? '' : {overlays}[overlay] + {steps})")),
    )
    busiest = (
        alt.Chart(alt.Data(values=records(loads)))
        .transform_filter(f"{shown} && {upto}")
        .mark_bar(color="#c0392b")
        .encode(
            alt.X("step:O", title="step"),
            alt.Y("model:Q", title="busiest link (messages)", axis=alt.Axis(tickMinStep=1)),
        )
        .properties(width=130, height=120, title="link sharing per step")
    )
    facts = (
        alt.Chart(alt.Data(values=records(table)))
        .transform_filter(here)
        .mark_text(align="left", fontSize=11)
        .encode(alt.Y("line:N", axis=None, sort=None), text="line:N", x=alt.value(0))
        .properties(width=420, height=60)
    )
    chart = alt.vconcat(alt.hconcat(picture, busiest), facts).add_params(*params)
    return Explorer(chart, NAME)
