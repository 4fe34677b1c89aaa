"""Routes, message cost (cut-through, store-and-forward) and link contention."""

from __future__ import annotations

import weakref
from collections import Counter

import networkx as nx
import numpy as np

from .graphs import ROUTINGS, digits, switch_name

# ---------------------------------------------------------------------------------------
# Routing, message cost, contention


# graph -> {(a, b): path}: a model evaluates the same routes thousands of times (the collectives
# explorer's grid: 190,000 shortest paths, 7 s); graphs are not changed once built
_ROUTES: "weakref.WeakKeyDictionary[nx.Graph, dict]" = weakref.WeakKeyDictionary()


def route(G: nx.Graph, a, b) -> list:
    """The path a message takes (see _route); computed once per graph and pair."""
    cache = _ROUTES.setdefault(G, {})
    path = cache.get((a, b))
    if path is None:
        path = cache[a, b] = tuple(_route(G, a, b))
    return list(path)


def _route(G: nx.Graph, a, b) -> list:
    """The path a message takes: the shorter way round a ring (ties clockwise, to higher ids);
    dimension order on meshes and tori (columns first, the shorter way round on a torus), e-cube on hypercubes (lowest bit first), destination-digit
    up-ports on fat trees (spreads traffic over the roots), the unique or first breadth-first
    shortest path elsewhere."""
    kind = G.graph.get("kind")
    if a == b:
        return [a]
    if kind in ("mesh", "torus"):
        return _route_grid(G, a, b)
    if kind == "hypercube":
        path, x = [a], a
        for bit in range(G.graph["dim"]):
            if (x ^ b) >> bit & 1:
                x ^= 1 << bit
                path.append(x)
        return path
    if kind == "fat_tree":
        return _route_fat_tree(G, a, b)
    if kind == "ring":
        p = G.graph["p"]
        step = 1 if (b - a) % p <= p // 2 else -1
        path = [a]
        while path[-1] != b:
            path.append((path[-1] + step) % p)
        return path
    return nx.shortest_path(G, a, b)


def _route_grid(G, a, b):
    side, wrap = G.graph["side"], G.graph["kind"] == "torus"
    (r, c), (rb, cb) = divmod(a, side), divmod(b, side)
    path = [a]

    def step(x, target):
        if wrap:
            delta = (target - x) % side
            return (x + (1 if delta <= side // 2 else -1)) % side
        return x + (1 if target > x else -1)

    while c != cb:
        c = step(c, cb)
        path.append(r * side + c)
    while r != rb:
        r = step(r, rb)
        path.append(r * side + c)
    return path


def _route_fat_tree(G, a, b):
    k, n = G.graph["k"], G.graph["n"]
    da, db = digits(a, k, n), digits(b, k, n)
    top = next((i for i in range(n - 1) if da[i] != db[i]), n - 1)  # level of the common ancestor
    w, level = list(da[:-1]), n - 1
    path = [a, switch_name(w, level)]
    while level > top:  # up: changing digit level-1, choose it from the destination (d-mod-k)
        w[level - 1] = db[level]
        level -= 1
        path.append(switch_name(w, level))
    while level < n - 1:  # down: digit `level` must become the destination's
        w[level] = db[level]
        level += 1
        path.append(switch_name(w, level))
    path.append(b)
    return path


def message_time(n, hops, t_s: float, t_h: float, t_w: float, routing: str = "cut-through"):
    """Time (us) of an n-byte message over `hops` links (lecture, after Grama et al.):
    cut-through       t_s + l t_h + n / t_w
    store-and-forward t_s + l (t_h + n / t_w)   (each switch receives the whole message first)
    t_s, t_h in us, t_w in MB/s. Arrays broadcast."""
    if routing not in ROUTINGS:
        raise ValueError(f"unknown routing '{routing}'; valid: {', '.join(ROUTINGS)}")
    n, hops = np.asarray(n, float), np.asarray(hops, float)
    if (n < 0).any() or (hops < 0).any():
        raise ValueError("message size and hop count must be >= 0")
    if t_s < 0 or t_h < 0 or not t_w > 0:
        raise ValueError(f"need t_s >= 0, t_h >= 0, t_w > 0 (got {t_s}, {t_h}, {t_w})")
    if routing == "cut-through":
        out = t_s + hops * t_h + n / t_w
    else:
        out = t_s + hops * (t_h + n / t_w)
    return out if out.ndim else float(out)


def link_loads(G: nx.Graph, messages) -> Counter:
    """Messages on each directed link (u, v) when `messages` (pairs of processors, sent at the
    same time) follow :func:`route`. Links are full duplex: u->v and v->u do not compete."""
    loads = Counter()
    for a, b in messages:
        path = route(G, a, b)
        loads.update(zip(path, path[1:]))
    return loads


def contention_times(
    G: nx.Graph, messages, n, t_s: float, t_h: float, t_w: float, routing: str = "cut-through"
) -> np.ndarray:
    """Time of each of several simultaneous n-byte messages when a link carrying k messages
    gives each t_w / k: a message runs at the share of its most loaded link (a simple,
    pessimistic-for-short-messages model). Returns one time per message."""
    messages = list(messages)
    loads = link_loads(G, messages)
    out = []
    for a, b in messages:
        path = route(G, a, b)
        k = max((loads[e] for e in zip(path, path[1:])), default=1)
        out.append(message_time(n, len(path) - 1, t_s, t_h, t_w / k, routing))
    return np.array(out, dtype=float)
