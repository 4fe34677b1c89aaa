"""Topology chapter (book/topology.md): interconnect drawings with messages, routing, latency maps."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ...plotting import MODEL_STYLE, measured, new_axes
from ...units import format_bytes
from ...verdict import Verdict, cases


def _steps_of(messages):
    """Accept a schedule (steps of Message) or a flat list of (src, dst) pairs (one step)."""
    if not messages:
        return []
    first = messages[0]
    if isinstance(first, (list, tuple)) and first and not isinstance(first[0], (int, np.integer)):
        return [[(m.src, m.dst) if hasattr(m, "src") else tuple(m) for m in step] for step in messages]
    return [[(m.src, m.dst) if hasattr(m, "src") else tuple(m) for m in messages]]


def draw_topology(graph, messages=None, ax=None, placement=None, routed=True, title=None, labels=True, legend=True):
    """Draw a commbook.topology graph; with `messages` (a collectives schedule, i.e. steps of
    messages between ranks, or a list of (src, dst) pairs), draw one arrow per message
    coloured by step. routed=True follows each message's route link by link (so shared links
    show); otherwise one curved arrow from source to destination. placement maps ranks to
    processors (default: rank r on processor r)."""
    import networkx as nx
    from matplotlib.lines import Line2D
    from matplotlib.patches import FancyArrowPatch

    from ... import topology as topo

    G = graph
    if ax is None:
        width = 7.0 if G.number_of_nodes() > 20 else 5.5
        _, ax = plt.subplots(figsize=(width, 4.2))
    pos = nx.get_node_attributes(G, "pos") or nx.spring_layout(G, seed=1)
    xs = np.array([p[0] for p in pos.values()])
    for u, v, d in G.edges(data=True):
        (x1, y1), (x2, y2) = pos[u], pos[v]
        if d.get("wrap"):  # a stub out of each side of the grid instead of a line across it
            dx, dy = np.sign(x1 - x2) * 0.35, np.sign(y1 - y2) * 0.35
            for (x, y), sgn in (((x1, y1), 1), ((x2, y2), -1)):
                ax.plot([x, x + sgn * dx], [y, y + sgn * dy], color="0.6", lw=1.2, ls="--", zorder=1)
        else:
            style = {"socket": dict(lw=2.0, color="0.55"), "node": dict(lw=3.0, color="0.35")}
            ax.plot([x1, x2], [y1, y2], zorder=1, **style.get(d.get("link"), dict(lw=1.2, color="0.7")))
    procs = topo.processors(G)
    switches = [u for u in G if u not in set(procs)]
    small = len(procs) > 24
    dense = G.graph.get("kind") == "cluster" or len(procs) > 16
    ax.scatter(
        [pos[u][0] for u in procs],
        [pos[u][1] for u in procs],
        s=40 if small else 130 if dense else 260,
        c="white",
        edgecolors="C0",
        linewidths=1.5,
        zorder=3,
    )
    if switches:
        ax.scatter(
            [pos[u][0] for u in switches],
            [pos[u][1] for u in switches],
            marker="s",
            s=90,
            c="0.85",
            edgecolors="0.4",
            zorder=3,
        )
    if labels and not small:
        for u in procs:
            ax.text(*pos[u], str(u), ha="center", va="center", fontsize=6 if dense else 8, zorder=4)
    steps = _steps_of(messages)
    cmap = plt.get_cmap("viridis" if len(steps) > 10 else "tab10")
    handles = []
    place = list(placement) if placement is not None else None
    for s, step in enumerate(steps):
        color = cmap(s / max(len(steps) - 1, 1)) if len(steps) > 10 else cmap(s % 10)
        for j, (a, b) in enumerate(step):
            pa, pb = (place[a], place[b]) if place else (a, b)
            path = topo.route(G, pa, pb) if routed else [pa, pb]
            hopsegs = list(zip(path, path[1:]))
            for k, (u, v) in enumerate(hopsegs):
                last = k == len(hopsegs) - 1
                rad = 0.08 + 0.04 * (j % 3) if routed else 0.25
                ax.add_patch(
                    FancyArrowPatch(
                        pos[u],
                        pos[v],
                        arrowstyle="-|>" if last else "-",
                        mutation_scale=12,
                        color=color,
                        lw=1.8,
                        alpha=0.85,
                        shrinkA=9 if k == 0 else 2,
                        shrinkB=9 if last else 2,
                        connectionstyle=f"arc3,rad={rad}",
                        zorder=2,
                    )
                )
        handles.append(Line2D([], [], color=color, lw=2, label=f"step {s + 1}"))
    if handles and legend:
        ax.legend(
            handles=handles,
            fontsize=7,
            loc="upper left",
            bbox_to_anchor=(1.0, 1.0),
            frameon=False,
            ncol=1 if len(handles) <= 12 else 2,
        )
    ys = np.array([p[1] for p in pos.values()])
    xpad, ypad = 0.05 * np.ptp(xs) + 0.5, 0.08 * np.ptp(ys) + 0.5
    ax.set_xlim(xs.min() - xpad, xs.max() + xpad)
    ax.set_ylim(ys.min() - ypad, ys.max() + ypad)
    if G.graph.get("kind") in ("linear", "ring", "mesh", "torus", "hypercube"):
        ax.set_aspect("equal", adjustable="box")
    ax.axis("off")
    if title is not None:
        ax.set_title(title, fontsize=10)
    return ax


def plot_routing_modes(t_s: float, t_h: float, t_w: float, sizes=(64, 4096, 65536), max_hops=10, ax=None):
    """Store-and-forward against cut-through: time against the number of links for a few
    message sizes (lecture model t_s + l t_h + n/t_w and t_s + l (t_h + n/t_w))."""
    from ... import topology as topo

    if ax is None:
        _, ax = plt.subplots(figsize=(7.4, 4.0))
    from matplotlib.lines import Line2D

    hops = np.arange(1, max_hops + 1)
    for i, n in enumerate(sizes):
        for routing, ls in (("store-and-forward", "--"), ("cut-through", "-")):
            t = topo.message_time(n, hops, t_s, t_h, t_w, routing)
            ax.plot(
                hops,
                t,
                color=f"C{i}",
                ls=ls,
                **MODEL_STYLE,
                label=f"n = {format_bytes(n, compact=True)} B (model)" if ls == "-" else None,
            )
    styles = [
        Line2D([], [], color="k", ls="-", label="cut-through (model)"),
        Line2D([], [], color="k", ls="--", label="store-and-forward (model)"),
    ]
    first = ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    ax.add_artist(first)
    ax.legend(handles=styles, fontsize=7, loc="lower left", bbox_to_anchor=(1.0, 0.0), frameon=False)
    ax.set_yscale("log")
    ax.set_xlabel("links on the path")
    ax.set_ylabel("message time (µs)")
    ax.set_title(f"t_s = {t_s:g} µs, t_h = {t_h:g} µs, t_w = {t_w:,.0f} MB/s", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.figure.tight_layout()
    return ax


def plot_latency_matrix(L, ax=None, title="core-to-core latency", boundaries=(), vmax=None):
    """Heat map of a P x P latency matrix in µs; `boundaries` draws lines between sockets/nodes."""
    L = np.asarray(L, float)
    if ax is None:
        _, ax = plt.subplots(figsize=(5.2, 4.4))
    im = ax.imshow(L, cmap="magma_r", origin="upper", interpolation="nearest", vmin=0, vmax=vmax)
    plt.colorbar(im, ax=ax, label="latency (µs)", shrink=0.85)
    for b in boundaries:
        ax.axhline(b - 0.5, color="w", lw=1)
        ax.axvline(b - 0.5, color="w", lw=1)
    ax.set_xlabel("core j")
    ax.set_ylabel("core i")
    ax.set_title(title, fontsize=10)
    return ax


# --- data (ORFEO datasets page) ---------------------------------------------------------------
def plot_core_latency(table, size_bytes=None, title="osu_latency from core 0", ax=None):
    """Latency from core 0 to each core (params core_to), coloured by where the core is
    (params channel when the data name it, else the mapping)."""
    from ...data import params_to_dict

    rows = table if size_bytes is None else table[table["size_bytes"] == size_bytes]
    params = rows["params"].map(params_to_dict)
    rows = rows.assign(
        core_to=params.map(lambda p: p.get("core_to")).astype(float),
        level=[p.get("channel", m) for p, m in zip(params, rows["mapping"])],
    )
    rows = rows.dropna(subset=["core_to"])
    if ax is None:
        fig, ax = new_axes(title, "destination core (core_to)", "time t (µs)")
    else:
        fig = ax.figure
    order = {"cache": 0, "core": 1, "socket": 2, "node": 3}
    for level, g in sorted(rows.groupby("level"), key=lambda kv: order.get(kv[0], 9)):
        g = g.groupby("core_to", as_index=False).agg(
            t=("t_us", "median"), lo=("t_min_us", "min"), hi=("t_max_us", "max")
        )
        measured(ax, g["core_to"], g["t"], g["lo"], g["hi"], label=f"{level} (measured)")
    ax.legend(fontsize=8)
    return fig


@cases("agree", "differ")
def formula_agreement(*tables) -> Verdict:
    """Every row of the metrics tables shown: computed diameter, bisection and links against the
    closed forms; how many bisection widths are exact and how many are bounds that meet the formula."""
    import pandas as pd

    t = pd.concat(tables, ignore_index=True)
    cols = [c for c in ("diameter", "bisection", "links") if f"{c}_formula" in t]
    off = sum(int((t[c] != t[f"{c}_formula"])[t[f"{c}_formula"].notna()].sum()) for c in cols)
    bounds = ~t.bisection_exact.astype(bool)
    numbers = {
        "rows": len(t),
        "off": off,
        "exact": int((~bounds).sum()),
        "bounds": int(bounds.sum()),
        "bounds_above": int((t.bisection[bounds] > t.bisection_formula[bounds]).sum()),
    }
    return Verdict("agree" if off == 0 else "differ", numbers)
