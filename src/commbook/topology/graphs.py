"""Building interconnect graphs: linear arrays, rings, meshes, tori, hypercubes, trees, fat trees
and clusters of nodes, sockets and cores (the conventions are the package's: commbook.topology)."""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np

KINDS = ("linear", "ring", "mesh", "torus", "hypercube", "tree", "switch_tree", "fat_tree", "cluster")
ROUTINGS = ("cut-through", "store-and-forward")
LINK_CLASSES = ("core", "socket", "node")  # cheapest to dearest; also the schema's mapping words
EXACT_DIRECT_MAX = 20  # exact bisection by enumeration up to this many processors (direct)
EXACT_SWITCHED_MAX = 12  # ... and with switches (one max-flow per balanced split)


# ---------------------------------------------------------------------------------------
# Construction


def check_int(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, not {value!r}")
    return int(value)


def _square_side(p: int, kind: str, minimum: int) -> int:
    p = check_int("p", p, minimum * minimum)
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
    p = check_int("p", p, 2)
    G = _new("linear", p)
    G.add_edges_from(((i, i + 1) for i in range(p - 1)), link="net")
    nx.set_node_attributes(G, {i: (float(i), 0.0) for i in range(p)}, "pos")
    return G


def ring(p: int) -> nx.Graph:
    p = check_int("p", p, 3)  # p = 2 would need two parallel links
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
        G.add_edge(k * side + side - 1, k * side, link="net", wrap=True)  # row wrap
        G.add_edge((side - 1) * side + k, k, link="net", wrap=True)  # column wrap
    return G


_CUBE_AXES = [(1.0, 0.0), (0.0, 1.0), (0.45, 0.35), (2.2, 0.7), (0.25, 2.3), (4.6, 4.2), (8.5, -1.0), (-1.0, 8.5)]


def hypercube(p: int) -> nx.Graph:
    """log2(p)-dimensional hypercube; processors i and j are linked when i ^ j is a power of 2."""
    p = check_int("p", p, 2)
    d = _log2_exact(p, "a hypercube")
    G = _new("hypercube", p, dim=d)
    G.add_edges_from(((i, i ^ (1 << b)) for i in range(p) for b in range(d) if i < i ^ (1 << b)), link="net")
    axes = _CUBE_AXES + [(2.0 ** (k / 2), 2.0 ** (k / 2 - 1)) for k in range(len(_CUBE_AXES), d)]
    pos = {
        i: (sum(axes[b][0] for b in range(d) if i >> b & 1), sum(axes[b][1] for b in range(d) if i >> b & 1))
        for i in range(p)
    }
    nx.set_node_attributes(G, pos, "pos")
    return G


def binary_tree(p: int) -> nx.Graph:
    """Static complete binary tree: every node a processor, p = 2^h - 1, heap numbering
    (children of i are 2i+1, 2i+2), the tree of Open MPI's binary-tree broadcast."""
    p = check_int("p", p, 3)
    h = _log2_exact(p + 1, "a complete binary tree (p = 2^h - 1)")
    G = _new("tree", p, height=h - 1)
    G.add_edges_from(((i, c) for i in range(p) for c in (2 * i + 1, 2 * i + 2) if c < p), link="net")
    _tree_positions(G, root=0)
    return G


def switch_tree(p: int) -> nx.Graph:
    """Dynamic binary tree: p = 2^d processors at the leaves of a binary tree of switches."""
    p = check_int("p", p, 2)
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


def digits(x: int, k: int, n: int) -> list[int]:
    """Base-k digits of x, most significant first, n of them."""
    out = []
    for _ in range(n):
        x, r = divmod(x, k)
        out.append(r)
    return out[::-1]


def switch_name(w, level: int) -> str:
    return f"L{level}:" + "".join(map(str, w))


def fat_tree(k: int, n: int) -> nx.Graph:
    """k-ary n-tree fat tree (Petrini & Vanneschi 1997): p = k^n processors, n levels of
    k^(n-1) switches with 2k ports. Switch <w, l> (w an (n-1)-digit base-k word, level 0 at the
    top) is linked to <w', l+1> when w and w' differ at most in digit l; processor with digits
    d_0..d_{n-1} hangs from leaf switch <d_0..d_{n-2}, n-1>. Full bisection bandwidth."""
    k = check_int("k", k, 2)
    n = check_int("n", n, 1)
    p = k**n
    G = _new("fat_tree", p, k=k, n=n)
    words = list(itertools.product(range(k), repeat=n - 1))
    for level in range(n):
        for w in words:
            G.add_node(switch_name(w, level), role="switch", level=level, word=w)
    for level in range(n - 1):
        for w in words:
            for v in range(k):
                w2 = w[:level] + (v,) + w[level + 1 :]
                G.add_edge(switch_name(w, level), switch_name(w2, level + 1), link="net")
    for x in range(p):
        d = digits(x, k, n)
        G.add_edge(x, switch_name(tuple(d[:-1]), n - 1), link="net")
    pos = {x: (float(x), 0.0) for x in range(p)}
    for level in range(n):  # switch j of every level above the processors of leaf switch j
        for j, w in enumerate(words):
            pos[switch_name(w, level)] = (j * k + (k - 1) / 2, float(n - level))
    nx.set_node_attributes(G, pos, "pos")
    return G


def cluster(nodes: int, sockets: int, cores: int) -> nx.Graph:
    """nodes x sockets x cores, hierarchical: each core hangs from its socket (link "core"),
    each socket from its node (link "socket", e.g. UPI), each node from one switch (link
    "node", e.g. InfiniBand). Core ids follow Open MPI's order: node, then socket, then core."""
    nodes = check_int("nodes", nodes, 1)
    sockets = check_int("sockets", sockets, 1)
    cores = check_int("cores", cores, 1)
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
    makers = {
        "linear": linear_array,
        "ring": ring,
        "mesh": mesh,
        "torus": torus,
        "hypercube": hypercube,
        "tree": binary_tree,
        "switch_tree": switch_tree,
    }
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
            if k**n != p:
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
        raise ValueError(
            f"unknown topology '{kind}'; valid: {', '.join(KINDS)} "
            "(e.g. ring:8, torus:16, fat_tree:2x3, cluster:2x2x12)"
        )
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
