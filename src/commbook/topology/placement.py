"""Where ranks run on a graph (``--map-by``), the hops and link class between two of them."""

from __future__ import annotations

import math
import weakref

import networkx as nx
import numpy as np

from .graphs import LINK_CLASSES, check_int
from .metrics import processors
from .routing import route

# ---------------------------------------------------------------------------------------
# Placement and hops

MAP_BY = ("core", "socket", "node")


def place(G: nx.Graph, np_: int, by: str = "core") -> list[int]:
    """Processor of each rank, like Open MPI's ``--map-by core|socket|node`` on a cluster
    graph: core fills cores in order; socket deals ranks round robin over the sockets of a
    node until it is full, then moves to the next node; node deals ranks round robin over
    nodes, each rank taking the lowest free core of its node (socket 0 first; this is our
    assumption about binding). Other topologies: rank r on processor r (by="core" only)."""
    procs = sorted(processors(G))
    np_ = check_int("np", np_, 1)
    if np_ > len(procs):
        raise ValueError(f"np = {np_} ranks do not fit on {len(procs)} processors")
    if by not in MAP_BY:
        raise ValueError(f"unknown mapping '{by}'; valid: {', '.join(MAP_BY)}")
    if G.graph["kind"] != "cluster":
        if by != "core":
            raise ValueError(f"--map-by {by} needs a cluster topology, not {G.graph['kind']}")
        return procs[:np_]
    N, S, C = G.graph["nodes"], G.graph["sockets"], G.graph["cores"]
    core_id = lambda nd, s, c: (nd * S + s) * C + c  # noqa: E731
    if by == "core":
        return procs[:np_]
    if by == "socket":
        out = []
        for r in range(np_):
            nd, within = divmod(r, S * C)
            c, s = divmod(within, S)
            out.append(core_id(nd, s, c))
        return out
    out = []
    for r in range(np_):
        nd, k = r % N, r // N
        out.append(core_id(nd, *divmod(k, C)))
    return out


def hops(G: nx.Graph, a, b) -> int:
    return len(route(G, a, b)) - 1


def pair_class(G: nx.Graph, a, b) -> str:
    """'self', or the dearest link class on the path: 'core', 'socket', 'node' (cluster)
    or 'net' (other topologies)."""
    if a == b:
        return "self"
    path = route(G, a, b)
    classes = {G.edges[u, v]["link"] for u, v in zip(path, path[1:])}
    for c in reversed(LINK_CLASSES):
        if c in classes:
            return c
    return "net"


def hop_matrix(G: nx.Graph, placement) -> np.ndarray:
    """H[i, j] = links between the processors of ranks i and j."""
    dist = {u: nx.single_source_shortest_path_length(G, u) for u in set(placement)}
    return np.array([[dist[a][b] for b in placement] for a in placement], dtype=np.int64)


def class_matrix(G: nx.Graph, placement) -> np.ndarray:
    return np.array([[pair_class(G, a, b) for b in placement] for a in placement], dtype=object)


def min_hops(G: nx.Graph) -> int:
    """Links between the two closest distinct processors (1 direct, 2 through a switch). Kept
    per graph and its size (the cost models ask once per message), not in G.graph, which holds
    the graph's construction parameters."""
    size = (G.number_of_nodes(), G.number_of_edges())
    kept = _MIN_HOPS.get(G)
    if kept is None or kept[0] != size:
        kept = _MIN_HOPS[G] = (size, _min_hops(G))
    return kept[1]


_MIN_HOPS: "weakref.WeakKeyDictionary[nx.Graph, tuple]" = weakref.WeakKeyDictionary()


def _min_hops(G: nx.Graph) -> int:
    procs = processors(G)
    best = math.inf
    for u in procs:
        dist = nx.single_source_shortest_path_length(G, u, cutoff=2)
        best = min([best] + [d for v, d in dist.items() if v != u and G.nodes[v]["role"] == "processor"])
    return int(best)
