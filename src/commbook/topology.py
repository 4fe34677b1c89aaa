"""Interconnect topologies as networkx graphs: metrics, rank placement, hops and message cost.

Every graph has processors numbered ``0..p-1`` (node attribute ``role="processor"``) and, for
switched networks (trees of switches, fat trees, clusters), switch nodes named by strings
(``role="switch"``). A *placement* maps rank -> processor id, so ``placement[r]`` is where rank r
runs. ``G.graph`` holds ``kind``, ``p`` and the construction parameters; node attribute ``pos``
is a drawing position; edge attribute ``link`` is the link class (``"net"``, or for a cluster
``"core"`` core-socket, ``"socket"`` socket-node, ``"node"`` node-switch).

Closed forms are those of the lecture (seeds/003, after Grama et al., *Introduction to Parallel
Computing*, ch. 2): "cost" there is the number of links, which is what :func:`link_count` counts.

Units: times in microseconds, message sizes in bytes, bandwidth t_w in MB/s (1e6 B/s), so
``n / t_w`` is in microseconds.
"""
from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass

import networkx as nx
import numpy as np

KINDS = ("linear", "ring", "mesh", "torus", "hypercube", "tree", "switch_tree", "fat_tree", "cluster")
ROUTINGS = ("cut-through", "store-and-forward")
LINK_CLASSES = ("core", "socket", "node")  # cheapest to dearest; also the schema's mapping words
EXACT_DIRECT_MAX = 20    # exact bisection by enumeration up to this many processors (direct)
EXACT_SWITCHED_MAX = 12  # ... and with switches (one max-flow per balanced split)


# ---------------------------------------------------------------------------------------
# Construction


def _check_int(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, not {value!r}")
    return int(value)


def _square_side(p: int, kind: str, minimum: int) -> int:
    p = _check_int("p", p, minimum * minimum)
    side = math.isqrt(p)
    if side * side != p:
        raise ValueError(f"a 2-D {kind} needs p to be a perfect square (4, 9, 16, ...), not {p}")
    return side


def _log2_exact(p: int, what: str) -> int:
    d = p.bit_length() - 1
    if p < 1 or (1 << d) != p:
        raise ValueError(f"{what} needs p to be a power of two, not {p}")
    return d


def _new(kind: str, p: int, **params) -> nx.Graph:
    G = nx.Graph(kind=kind, p=p, **params)
    for i in range(p):
        G.add_node(i, role="processor")
    return G


def linear_array(p: int) -> nx.Graph:
    p = _check_int("p", p, 2)
    G = _new("linear", p)
    G.add_edges_from(((i, i + 1) for i in range(p - 1)), link="net")
    nx.set_node_attributes(G, {i: (float(i), 0.0) for i in range(p)}, "pos")
    return G


def ring(p: int) -> nx.Graph:
    p = _check_int("p", p, 3)  # p = 2 would need two parallel links
    G = _new("ring", p)
    G.add_edges_from(((i, (i + 1) % p) for i in range(p)), link="net")
    pos = {i: (math.sin(2 * math.pi * i / p), math.cos(2 * math.pi * i / p)) for i in range(p)}
    nx.set_node_attributes(G, pos, "pos")
    return G


def mesh(p: int) -> nx.Graph:
    """sqrt(p) x sqrt(p) mesh; processor i sits at row i // side, column i % side."""
    side = _square_side(p, "mesh", 2)
    G = _new("mesh", p, side=side)
    for i in range(p):
        r, c = divmod(i, side)
        if c + 1 < side:
            G.add_edge(i, i + 1, link="net")
        if r + 1 < side:
            G.add_edge(i, i + side, link="net")
    nx.set_node_attributes(G, {i: (float(i % side), -float(i // side)) for i in range(p)}, "pos")
    return G


def torus(p: int) -> nx.Graph:
    """sqrt(p) x sqrt(p) torus (mesh plus wrap-around links, flagged wrap=True); side >= 3."""
    side = _square_side(p, "torus", 3)  # side 2 would double the links
    G = mesh(p)
    G.graph.update(kind="torus")
    for k in range(side):
        G.add_edge(k * side + side - 1, k * side, link="net", wrap=True)      # row wrap
        G.add_edge((side - 1) * side + k, k, link="net", wrap=True)           # column wrap
    return G


_CUBE_AXES = [(1.0, 0.0), (0.0, 1.0), (0.45, 0.35), (2.2, 0.7), (0.25, 2.3), (4.6, 4.2),
              (8.5, -1.0), (-1.0, 8.5)]


def hypercube(p: int) -> nx.Graph:
    """log2(p)-dimensional hypercube; processors i and j are linked when i ^ j is a power of 2."""
    p = _check_int("p", p, 2)
    d = _log2_exact(p, "a hypercube")
    G = _new("hypercube", p, dim=d)
    G.add_edges_from(((i, i ^ (1 << b)) for i in range(p) for b in range(d) if i < i ^ (1 << b)),
                     link="net")
    axes = _CUBE_AXES + [(2.0 ** (k / 2), 2.0 ** (k / 2 - 1)) for k in range(len(_CUBE_AXES), d)]
    pos = {i: (sum(axes[b][0] for b in range(d) if i >> b & 1),
               sum(axes[b][1] for b in range(d) if i >> b & 1)) for i in range(p)}
    nx.set_node_attributes(G, pos, "pos")
    return G


def binary_tree(p: int) -> nx.Graph:
    """Static complete binary tree: every node a processor, p = 2^h - 1, heap numbering
    (children of i are 2i+1, 2i+2), the tree of Open MPI's binary-tree broadcast."""
    p = _check_int("p", p, 3)
    h = _log2_exact(p + 1, "a complete binary tree (p = 2^h - 1)")
    G = _new("tree", p, height=h - 1)
    G.add_edges_from(((i, c) for i in range(p) for c in (2 * i + 1, 2 * i + 2) if c < p), link="net")
    _tree_positions(G, root=0)
    return G


def switch_tree(p: int) -> nx.Graph:
    """Dynamic binary tree: p = 2^d processors at the leaves of a binary tree of switches."""
    p = _check_int("p", p, 2)
    d = _log2_exact(p, "a tree of switches")
    G = _new("switch_tree", p, depth=d)
    # heap-numbered switches s0..s(p-2); leaf slot j of the heap holds processor j
    for s in range(p - 1):
        G.add_node(f"s{s}", role="switch")
        for c in (2 * s + 1, 2 * s + 2):
            child = f"s{c}" if c < p - 1 else c - (p - 1)
            G.add_edge(f"s{s}", child, link="net")
    _tree_positions(G, root="s0")
    return G


def _digits(x: int, k: int, n: int) -> list[int]:
    """Base-k digits of x, most significant first, n of them."""
    out = []
    for _ in range(n):
        x, r = divmod(x, k)
        out.append(r)
    return out[::-1]


def _switch_name(w, level: int) -> str:
    return f"L{level}:" + "".join(map(str, w))


def fat_tree(k: int, n: int) -> nx.Graph:
    """k-ary n-tree fat tree (Petrini & Vanneschi 1997): p = k^n processors, n levels of
    k^(n-1) switches with 2k ports. Switch <w, l> (w an (n-1)-digit base-k word, level 0 at the
    top) is linked to <w', l+1> when w and w' differ at most in digit l; processor with digits
    d_0..d_{n-1} hangs from leaf switch <d_0..d_{n-2}, n-1>. Full bisection bandwidth."""
    k = _check_int("k", k, 2)
    n = _check_int("n", n, 1)
    p = k ** n
    G = _new("fat_tree", p, k=k, n=n)
    words = list(itertools.product(range(k), repeat=n - 1))
    for level in range(n):
        for w in words:
            G.add_node(_switch_name(w, level), role="switch", level=level, word=w)
    for level in range(n - 1):
        for w in words:
            for v in range(k):
                w2 = w[:level] + (v,) + w[level + 1:]
                G.add_edge(_switch_name(w, level), _switch_name(w2, level + 1), link="net")
    for x in range(p):
        d = _digits(x, k, n)
        G.add_edge(x, _switch_name(tuple(d[:-1]), n - 1), link="net")
    pos = {x: (float(x), 0.0) for x in range(p)}
    for level in range(n):  # switch j of every level above the processors of leaf switch j
        for j, w in enumerate(words):
            pos[_switch_name(w, level)] = (j * k + (k - 1) / 2, float(n - level))
    nx.set_node_attributes(G, pos, "pos")
    return G


def cluster(nodes: int, sockets: int, cores: int) -> nx.Graph:
    """nodes x sockets x cores, hierarchical: each core hangs from its socket (link "core"),
    each socket from its node (link "socket", e.g. UPI), each node from one switch (link
    "node", e.g. InfiniBand). Core ids follow Open MPI's order: node, then socket, then core."""
    nodes = _check_int("nodes", nodes, 1)
    sockets = _check_int("sockets", sockets, 1)
    cores = _check_int("cores", cores, 1)
    p = nodes * sockets * cores
    G = _new("cluster", p, nodes=nodes, sockets=sockets, cores=cores)
    gap_s, gap_n = 0.6, 1.5
    pos = {}
    if nodes > 1:
        G.add_node("switch", role="switch", level=0)
    for nd in range(nodes):
        node = f"node{nd}"
        G.add_node(node, role="switch", level=1)
        if nodes > 1:
            G.add_edge("switch", node, link="node")
        for s in range(sockets):
            sock = f"node{nd}.socket{s}"
            G.add_node(sock, role="switch", level=2)
            G.add_edge(node, sock, link="socket")
            xs = []
            for c in range(cores):
                core = (nd * sockets + s) * cores + c
                G.nodes[core].update(node=nd, socket=s, core=c)
                G.add_edge(sock, core, link="core")
                x = core + s * gap_s + nd * (gap_n + (sockets - 1) * gap_s)
                pos[core] = (x, 0.0)
                xs.append(x)
            pos[sock] = (float(np.mean(xs)), 1.0)
        pos[node] = (float(np.mean([pos[f"node{nd}.socket{s}"][0] for s in range(sockets)])), 2.0)
    if nodes > 1:
        pos["switch"] = (float(np.mean([pos[f"node{nd}"][0] for nd in range(nodes)])), 3.0)
    nx.set_node_attributes(G, pos, "pos")
    return G


def _tree_positions(G: nx.Graph, root) -> None:
    """Leaves evenly spaced at the bottom, each parent above the middle of its children."""
    depth = nx.single_source_shortest_path_length(G, root)
    height = max(depth.values())
    children = {u: [v for v in G[u] if depth[v] == depth[u] + 1] for u in G}
    pos, next_x = {}, [0.0]

    def place(u):
        if not children[u]:
            pos[u] = (next_x[0], -float(depth[u]))
            next_x[0] += 1.0
        else:
            for v in children[u]:
                place(v)
            pos[u] = (float(np.mean([pos[v][0] for v in children[u]])), -float(depth[u]))

    place(root)
    if height == 0:
        pos[root] = (0.0, 0.0)
    nx.set_node_attributes(G, pos, "pos")


def build(kind: str, p: int | None = None, **params) -> nx.Graph:
    """One entry point: build("torus", 16), build("fat_tree", k=2, n=3), build("cluster",
    nodes=2, sockets=2, cores=12). Unknown kinds raise ValueError listing the valid ones."""
    makers = {"linear": linear_array, "ring": ring, "mesh": mesh, "torus": torus,
              "hypercube": hypercube, "tree": binary_tree, "switch_tree": switch_tree}
    if kind in makers:
        if p is None:
            raise ValueError(f"topology '{kind}' needs p")
        return makers[kind](p)
    if kind == "fat_tree":
        k, n = params.get("k"), params.get("n")
        if k is None and n is None and p is not None:
            k = 2
            n = _log2_exact(p, "a binary fat tree") if p > 1 else 0
        elif n is None and p is not None:
            n = round(math.log(p, k)) if p > 1 else 0
            if k ** n != p:
                raise ValueError(f"a {k}-ary fat tree needs p to be a power of {k}, not {p}")
        return fat_tree(k, n)
    if kind == "cluster":
        return cluster(params.get("nodes", 1), params.get("sockets", 1), params.get("cores", p or 1))
    raise ValueError(f"unknown topology '{kind}'; valid: {', '.join(KINDS)}")


def parse_topology(text: str) -> nx.Graph:
    """'ring:8', 'mesh:16', 'hypercube:32', 'tree:15', 'switch_tree:8', 'fat_tree:4x2' (k x n),
    'cluster:2x2x12' (nodes x sockets x cores). One clear ValueError for anything else."""
    kind, sep, arg = str(text).strip().partition(":")
    if kind not in KINDS:
        raise ValueError(f"unknown topology '{kind}'; valid: {', '.join(KINDS)} "
                         "(e.g. ring:8, torus:16, fat_tree:2x3, cluster:2x2x12)")
    try:
        nums = [int(x) for x in arg.split("x")] if sep else []
    except ValueError:
        raise ValueError(f"topology '{text}': '{arg}' is not a size") from None
    if kind == "cluster" and len(nums) == 3:
        return cluster(*nums)
    if kind == "fat_tree" and len(nums) == 2:
        return fat_tree(*nums)
    if kind not in ("cluster", "fat_tree") and len(nums) == 1:
        return build(kind, nums[0])
    want = {"cluster": "NODESxSOCKETSxCORES", "fat_tree": "KxN"}.get(kind, "P")
    raise ValueError(f"topology '{text}': write {kind}:{want}")


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
    best = Bisection(_cut_with_switches(G, natural, procs) if switched else nx.cut_size(G, natural),
                     False, "natural halves (upper bound)", natural)
    if not switched:
        # other first-half candidates: depth-first postorder (whole subtrees first) and
        # breadth-first order from a far node (mesh rows), each refined by Kernighan-Lin
        far = max(nx.single_source_shortest_path_length(G, procs[0]).items(), key=lambda kv: kv[1])[0]
        orders = [procs, list(nx.dfs_postorder_nodes(G, procs[0])), list(nx.bfs_tree(G, far))]
        for order in orders:
            a = frozenset(order[: p // 2])
            refined, _ = nx.algorithms.community.kernighan_lin_bisection(
                G, partition=(set(a), set(G) - a), max_iter=20, seed=0)
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
    p = len(procs)
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
    return dict(kind=G.graph["kind"], p=G.graph["p"], diameter=diameter(G),
                diameter_formula=cf["diameter"], bisection=b.width, bisection_exact=b.exact,
                bisection_formula=cf["bisection"], links=link_count(G), links_formula=cf["links"])


def metrics_table(graphs) -> "pd.DataFrame":
    import pandas as pd
    return pd.DataFrame([metrics(G) for G in graphs])


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
    np_ = _check_int("np", np_, 1)
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
    """Links between the two closest distinct processors (1 direct, 2 through a switch)."""
    procs = processors(G)
    best = math.inf
    for u in procs:
        dist = nx.single_source_shortest_path_length(G, u, cutoff=2)
        best = min([best] + [d for v, d in dist.items() if v != u and G.nodes[v]["role"] == "processor"])
    return int(best)


# ---------------------------------------------------------------------------------------
# Routing, message cost, contention


def route(G: nx.Graph, a, b) -> list:
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
    da, db = _digits(a, k, n), _digits(b, k, n)
    top = next((i for i in range(n - 1) if da[i] != db[i]), n - 1)  # level of the common ancestor
    w, level = list(da[:-1]), n - 1
    path = [a, _switch_name(w, level)]
    while level > top:  # up: changing digit level-1, choose it from the destination (d-mod-k)
        w[level - 1] = db[level]
        level -= 1
        path.append(_switch_name(w, level))
    while level < n - 1:  # down: digit `level` must become the destination's
        w[level] = db[level]
        level += 1
        path.append(_switch_name(w, level))
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


def contention_times(G: nx.Graph, messages, n, t_s: float, t_h: float, t_w: float,
                     routing: str = "cut-through") -> np.ndarray:
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
