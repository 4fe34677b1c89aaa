"""Metrics of an interconnect graph: diameter, links, bisection width, and the lecture's closed
forms (after Grama et al., *Introduction to Parallel Computing*, ch. 2)."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import networkx as nx
import numpy as np

from .graphs import EXACT_DIRECT_MAX, EXACT_SWITCHED_MAX

# ---------------------------------------------------------------------------------------
# Metrics


def processors(G: nx.Graph) -> list:
    return [u for u, r in G.nodes(data="role") if r == "processor"]


def is_switched(G: nx.Graph) -> bool:
    return any(r == "switch" for _, r in G.nodes(data="role"))


def diameter(G: nx.Graph) -> int:
    """Largest shortest-path distance, in links, between two processors."""
    procs = processors(G)
    best = 0
    for u in procs:
        dist = nx.single_source_shortest_path_length(G, u)
        best = max(best, max(dist[v] for v in procs))
    return best


def link_count(G: nx.Graph) -> int:
    """Number of links: the lecture's "cost" of a network."""
    return G.number_of_edges()


@dataclass
class Bisection:
    width: int
    exact: bool
    method: str
    half: frozenset  # processors on one side of the best cut found


def bisection(G: nx.Graph) -> Bisection:
    """Minimum number of links to cut to split the processors into two halves (sizes floor and
    ceil of p/2; switches may fall on either side).

    Exact by enumeration of every balanced split when p <= 20 (direct networks; the cut is
    counted for all splits at once with numpy) or p <= 12 (switched: one max-flow per split).
    Larger graphs get an upper bound, exact=False: the best of the "natural halves"
    (processors 0..p/2-1 against the rest) and, for direct networks, halves of a depth-first
    postorder and of a breadth-first order, each also refined by Kernighan-Lin.
    """
    procs = sorted(processors(G))
    p = len(procs)
    if p < 2:
        raise ValueError("bisection needs at least two processors")
    switched = is_switched(G)
    if not switched and p <= EXACT_DIRECT_MAX:
        return _bisection_enumerate(G, procs)
    if switched and p <= EXACT_SWITCHED_MAX:
        return _bisection_maxflow_all(G, procs)
    natural = frozenset(procs[: p // 2])
    best = Bisection(
        _cut_with_switches(G, natural, procs) if switched else nx.cut_size(G, natural),
        False,
        "natural halves (upper bound)",
        natural,
    )
    if not switched:
        # other first-half candidates: depth-first postorder (whole subtrees first) and
        # breadth-first order from a far node (mesh rows), each refined by Kernighan-Lin
        far = max(nx.single_source_shortest_path_length(G, procs[0]).items(), key=lambda kv: kv[1])[0]
        orders = [procs, list(nx.dfs_postorder_nodes(G, procs[0])), list(nx.bfs_tree(G, far))]
        for order in orders:
            a = frozenset(order[: p // 2])
            refined, _ = nx.algorithms.community.kernighan_lin_bisection(
                G, partition=(set(a), set(G) - a), max_iter=20, seed=0
            )
            for cand in (a, frozenset(refined)):
                cut = nx.cut_size(G, cand)
                if len(cand) in (p // 2, p - p // 2) and cut < best.width:
                    best = Bisection(cut, False, "best candidate split (upper bound)", cand)
    return best


def _balanced_halves(items):
    """Every smaller half (size floor(p/2)) once: with p even, those holding the first item."""
    items = list(items)
    p = len(items)
    if p % 2:
        return itertools.combinations(items, p // 2)
    return ((items[0],) + c for c in itertools.combinations(items[1:], p // 2 - 1))


def _bisection_enumerate(G, procs) -> Bisection:
    p = len(procs)
    index = {u: i for i, u in enumerate(procs)}
    eu = np.array([index[u] for u, _ in G.edges()], dtype=np.int64)
    ev = np.array([index[v] for _, v in G.edges()], dtype=np.int64)
    combos = np.array([sum(1 << j for j in c) for c in _balanced_halves(range(p))], dtype=np.int64)
    cuts = np.zeros(len(combos), dtype=np.int64)
    for a, b in zip(eu, ev):
        cuts += ((combos >> a) & 1) != ((combos >> b) & 1)
    i = int(np.argmin(cuts))
    half = frozenset(procs[j] for j in range(p) if combos[i] >> j & 1)
    return Bisection(int(cuts[i]), True, "enumeration of all balanced splits", half)


def _cut_with_switches(G, half, procs) -> int:
    """Fewest links separating `half` from the other processors, switches placed freely."""
    H = nx.DiGraph()
    for u, v in G.edges():
        H.add_edge(u, v, capacity=1)
        H.add_edge(v, u, capacity=1)
    for u in procs:
        if u in half:
            H.add_edge("_s", u)  # no capacity attribute = infinite
        else:
            H.add_edge(u, "_t")
    return int(nx.minimum_cut_value(H, "_s", "_t"))


def _bisection_maxflow_all(G, procs) -> Bisection:
    best = None
    for c in _balanced_halves(procs):
        half = frozenset(c)
        cut = _cut_with_switches(G, half, procs)
        if best is None or cut < best.width:
            best = Bisection(cut, True, "min cut (max-flow) for every balanced split", half)
    return best


def bisection_width(G: nx.Graph) -> int:
    return bisection(G).width


def closed_form(G: nx.Graph) -> dict:
    """The lecture's formulas for this graph's kind and size (None where none is given)."""
    kind, p = G.graph["kind"], G.graph["p"]
    r = math.isqrt(p)
    lg = math.log2(p)
    if kind == "linear":
        return dict(diameter=p - 1, bisection=1, links=p - 1)
    if kind == "ring":
        return dict(diameter=p // 2, bisection=2, links=p)
    if kind == "mesh":
        return dict(diameter=2 * (r - 1), bisection=r, links=2 * (p - r))
    if kind == "torus":
        return dict(diameter=2 * (r // 2), bisection=2 * r, links=2 * p)
    if kind == "hypercube":
        return dict(diameter=round(lg), bisection=p // 2, links=round(p * lg) // 2)
    if kind == "tree":
        return dict(diameter=2 * round(math.log2((p + 1) / 2)), bisection=1, links=p - 1)
    if kind == "switch_tree":
        return dict(diameter=2 * round(lg), bisection=1, links=2 * (p - 1))
    if kind == "fat_tree":
        n = G.graph["n"]
        return dict(diameter=2 * n, bisection=p // 2, links=n * p)
    if kind == "cluster":
        nodes, sockets, cores = (G.graph[x] for x in ("nodes", "sockets", "cores"))
        diam = 6 if nodes > 1 else 4 if sockets > 1 else 2 if cores > 1 else 0
        links = p + nodes * sockets + (nodes if nodes > 1 else 0)
        return dict(diameter=diam, bisection=None, links=links)
    raise ValueError(f"no closed form for topology kind '{kind}'")


CLOSED_FORM_TEXT = {
    "linear": ("p-1", "1", "p-1"),
    "ring": ("floor(p/2)", "2", "p"),
    "mesh": ("2(sqrt p - 1)", "sqrt p", "2(p - sqrt p)"),
    "torus": ("2 floor(sqrt p / 2)", "2 sqrt p", "2p"),
    "hypercube": ("log2 p", "p/2", "(p log2 p)/2"),
    "tree": ("2 log2((p+1)/2)", "1", "p-1"),
    "switch_tree": ("2 log2 p", "1", "2(p-1)"),
    "fat_tree": ("2n = 2 log_k p", "p/2", "n p"),
    "cluster": ("6 (several nodes)", "-", "cores + sockets + nodes"),
}


def metrics(G: nx.Graph) -> dict:
    """Diameter, bisection width and links computed from the graph, next to the closed forms."""
    b = bisection(G)
    cf = closed_form(G)
    return dict(
        kind=G.graph["kind"],
        p=G.graph["p"],
        diameter=diameter(G),
        diameter_formula=cf["diameter"],
        bisection=b.width,
        bisection_exact=b.exact,
        bisection_formula=cf["bisection"],
        links=link_count(G),
        links_formula=cf["links"],
    )


def metrics_table(graphs):
    """metrics() of each graph, one row each (a pandas DataFrame)."""
    import pandas as pd

    return pd.DataFrame([metrics(G) for G in graphs])
