"""Interconnect graphs: metrics against the lecture's closed forms, placement, routing, costs."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from commbook import topology as T
from commbook.chapters import topology as topology_chapter

CASES = (
    [("linear", p) for p in (2, 5, 8, 16)]
    + [("ring", p) for p in (3, 4, 8, 15, 16)]
    + [("mesh", p) for p in (4, 16, 36)]
    + [("torus", p) for p in (16, 36)]
    + [("hypercube", p) for p in (2, 4, 8, 16, 32)]
    + [("tree", p) for p in (3, 7, 15)]
    + [("switch_tree", p) for p in (2, 4, 8)]
)


@pytest.mark.parametrize("kind,p", CASES)
def test_metrics_equal_the_lecture_formulas(kind, p):
    G = T.build(kind, p)
    m = T.metrics(G)
    assert m["diameter"] == m["diameter_formula"]
    assert m["bisection"] == m["bisection_formula"]
    assert m["links"] == m["links_formula"]
    assert m["bisection_exact"] == (p <= T.EXACT_DIRECT_MAX if not T.is_switched(G) else p <= T.EXACT_SWITCHED_MAX)


def test_closed_forms_by_hand():
    # the lecture's numbers written out, independently of closed_form()
    assert (T.diameter(T.mesh(16)), T.bisection_width(T.mesh(16)), T.link_count(T.mesh(16))) == (6, 4, 24)
    assert (T.diameter(T.torus(16)), T.bisection_width(T.torus(16)), T.link_count(T.torus(16))) == (4, 8, 32)
    assert (T.diameter(T.hypercube(16)), T.bisection_width(T.hypercube(16)), T.link_count(T.hypercube(16))) == (
        4,
        8,
        32,
    )
    assert (T.diameter(T.ring(10)), T.bisection_width(T.ring(10)), T.link_count(T.ring(10))) == (5, 2, 10)


@pytest.mark.parametrize("k,n", [(2, 1), (2, 2), (2, 3), (3, 2)])
def test_fat_tree_full_bisection(k, n):
    G = T.fat_tree(k, n)
    p = k**n
    assert len(T.processors(G)) == p
    assert T.diameter(G) == 2 * n
    assert T.link_count(G) == n * p
    b = T.bisection(G)
    assert b.exact and b.width == p // 2
    # every switch has k links down and (below the top) k links up
    for u, role in G.nodes(data="role"):
        if role == "switch":
            assert G.degree(u) == (k if G.nodes[u]["level"] == 0 else 2 * k)


def test_odd_mesh_breaks_the_even_side_formula():
    # the formula sqrt(p) assumes an even side: a 3x3 mesh needs 4 cuts, a 3x3 torus 8
    assert T.bisection(T.mesh(9)).width == 4 and T.bisection(T.mesh(9)).exact
    assert T.bisection(T.torus(9)).width == 8


def test_bisection_exact_on_a_known_graph():
    G = nx.barbell_graph(5, 0)  # two K5 joined by one edge: bisection 1
    G.graph.update(kind="custom", p=10)
    nx.set_node_attributes(G, "processor", "role")
    b = T.bisection(G)
    assert b.exact and b.width == 1 and b.half in (frozenset(range(5)), frozenset(range(5, 10)))
    G.add_edge(0, 9)
    assert T.bisection_width(G) == 2


def test_switch_tree_bottleneck_against_fat_tree():
    assert T.bisection_width(T.switch_tree(8)) == 1
    assert T.bisection_width(T.fat_tree(2, 3)) == 4


def test_cluster_structure_and_link_classes():
    G = T.cluster(2, 2, 12)
    assert len(T.processors(G)) == 48 and T.link_count(G) == 48 + 4 + 2
    assert T.diameter(G) == 6
    counts = {c: sum(1 for *_, l in G.edges(data="link") if l == c) for c in T.LINK_CLASSES}
    assert counts == {"core": 48, "socket": 4, "node": 2}
    assert [T.pair_class(G, 0, x) for x in (0, 11, 12, 23, 24, 47)] == [
        "self",
        "core",
        "socket",
        "socket",
        "node",
        "node",
    ]
    assert [T.hops(G, 0, x) for x in (1, 12, 24)] == [2, 4, 6]
    assert T.bisection(T.cluster(2, 2, 2)).width == 1  # exact: one node link
    assert T.cluster(1, 2, 4).graph["nodes"] == 1 and T.diameter(T.cluster(1, 2, 4)) == 4


def test_placements_follow_open_mpi_map_by():
    G = T.cluster(2, 2, 12)
    assert T.place(G, 4, "core") == [0, 1, 2, 3]
    assert T.place(G, 4, "socket") == [0, 12, 1, 13]
    assert T.place(G, 4, "node") == [0, 24, 1, 25]
    assert T.place(G, 26, "socket")[24:] == [24, 36]  # node 0 full, on to node 1
    classes = T.class_matrix(G, T.place(G, 2, "socket"))
    assert classes[0, 1] == "socket" and classes[1, 1] == "self"
    H = T.hop_matrix(G, T.place(G, 3, "node"))
    assert H.tolist() == [[0, 6, 2], [6, 0, 6], [2, 6, 0]]
    with pytest.raises(ValueError, match="do not fit"):
        T.place(G, 49)
    with pytest.raises(ValueError, match="needs a cluster"):
        T.place(T.ring(8), 4, "node")


@pytest.mark.parametrize(
    "G",
    [T.mesh(16), T.torus(25), T.hypercube(16), T.fat_tree(2, 3), T.fat_tree(3, 2), T.ring(9), T.switch_tree(8)],
    ids=lambda G: G.graph["kind"],
)
def test_routes_are_shortest_paths(G):
    procs = T.processors(G)
    dist = dict(nx.all_pairs_shortest_path_length(G))
    for a in procs:
        for b in procs:
            path = T.route(G, a, b)
            assert path[0] == a and path[-1] == b
            assert all(G.has_edge(u, v) for u, v in zip(path, path[1:]))
            assert len(path) - 1 == dist[a][b]


def test_min_hops():
    assert T.min_hops(T.ring(8)) == 1 and T.min_hops(T.fat_tree(2, 2)) == 2
    assert T.min_hops(T.cluster(1, 1, 4)) == 2


def test_message_time_routing_modes():
    # cut-through t_s + l t_h + n/t_w ; store-and-forward t_s + l (t_h + n/t_w)
    assert T.message_time(1e6, 4, 2.0, 0.5, 1000.0) == pytest.approx(2 + 4 * 0.5 + 1000)
    assert T.message_time(1e6, 4, 2.0, 0.5, 1000.0, "store-and-forward") == pytest.approx(2 + 4 * 1000.5)
    # one hop: the two agree
    assert T.message_time(1e4, 1, 1, 0.1, 100, "store-and-forward") == pytest.approx(
        T.message_time(1e4, 1, 1, 0.1, 100)
    )
    t = T.message_time(np.array([0, 1e3]), np.array([1, 3]), 1.0, 0.1, 100.0)
    assert t.tolist() == pytest.approx([1.1, 1.3 + 10])
    with pytest.raises(ValueError, match="unknown routing"):
        T.message_time(1, 1, 1, 1, 1, "wormhole-ish")
    with pytest.raises(ValueError, match="t_w > 0"):
        T.message_time(1, 1, 1, 1, 0)
    with pytest.raises(ValueError, match=">= 0"):
        T.message_time(-1, 1, 1, 1, 1)


def test_contention_counts_shared_links():
    R = T.ring(8)
    exchange = [(i, i ^ 4) for i in range(8)]  # every rank to the opposite one
    loads = T.link_loads(R, exchange)
    assert max(loads.values()) == 4  # all go clockwise: 4 messages per directed link
    t = T.contention_times(R, exchange, 1e6, 1.0, 0.1, 1000.0)
    assert t == pytest.approx(np.full(8, 1.0 + 4 * 0.1 + 4 * 1000.0))
    F = T.fat_tree(2, 3)  # shift by p/2 on a full-bisection fat tree: no link shared
    shift = [(i, (i + 4) % 8) for i in range(8)]
    assert max(T.link_loads(F, shift).values()) == 1
    S = T.switch_tree(8)  # ... but the same pattern crosses the single root links 4 times
    assert max(T.link_loads(S, shift).values()) == 4
    # opposite directions share nothing (full duplex)
    assert max(T.link_loads(T.linear_array(2), [(0, 1), (1, 0)]).values()) == 1


def test_build_and_parse_errors():
    assert T.parse_topology("cluster:2x2x12").graph["p"] == 48
    assert T.parse_topology("fat_tree:2x3").graph["p"] == 8
    assert T.parse_topology("torus:16").graph["kind"] == "torus"
    assert T.build("fat_tree", 16).graph["n"] == 4
    with pytest.raises(ValueError, match="unknown topology 'moebius'; valid: linear"):
        T.parse_topology("moebius:8")
    with pytest.raises(ValueError, match="write cluster:NODESxSOCKETSxCORES"):
        T.parse_topology("cluster:4")
    with pytest.raises(ValueError, match="not a size"):
        T.parse_topology("ring:eight")
    with pytest.raises(ValueError, match="power of two"):
        T.hypercube(12)
    with pytest.raises(ValueError, match="perfect square"):
        T.mesh(12)
    with pytest.raises(ValueError, match="p must be an integer >= 9"):
        T.torus(4)
    with pytest.raises(ValueError, match="p = 2\\^h - 1"):
        T.binary_tree(8)
    with pytest.raises(ValueError, match="power of 3"):
        T.build("fat_tree", 10, k=3)


def test_metrics_table_and_positions():
    df = T.metrics_table([T.ring(8), T.hypercube(8)])
    assert list(df.kind) == ["ring", "hypercube"] and df.bisection.tolist() == [2, 4]
    for G in (T.ring(5), T.mesh(9), T.fat_tree(2, 2), T.cluster(2, 2, 2), T.switch_tree(4), T.hypercube(64)):
        pos = nx.get_node_attributes(G, "pos")
        assert set(pos) == set(G.nodes)
        assert len({tuple(np.round(v, 6)) for v in pos.values()}) == G.number_of_nodes()
    assert math.isclose(T.closed_form(T.torus(36))["bisection"], 12)


@pytest.mark.parametrize(
    "G",
    [T.linear_array(64), T.ring(64), T.mesh(64), T.torus(64), T.hypercube(64), T.binary_tree(63), T.torus(100)],
    ids=lambda G: f"{G.graph['kind']}{G.graph['p']}",
)
def test_large_graphs_upper_bound_reaches_the_formula(G):
    # no exact search here: the bound must still find a cut as small as the known optimum
    b = T.bisection(G)
    assert not b.exact and b.width == T.closed_form(G)["bisection"]
    assert len(b.half) == G.graph["p"] // 2 or len(b.half) == G.graph["p"] - G.graph["p"] // 2
    assert nx.cut_size(G, b.half) == b.width


def test_recursive_doubling_costs_the_same_on_a_4x4_torus_and_mesh():
    """The topology page's reason: partners 1 or 2 apart on a side of 4 gain nothing from the
    wrap-around; a pair 3 apart does, so the two networks do differ there."""
    from commbook.models import collective_costs

    torus, mesh = T.torus(16), T.mesh(16)
    steps = collective_costs.schedule("allreduce", "recursive_doubling", 16)
    pairs = [(m.src, m.dst) for s in steps for m in s]
    assert {abs(a % 4 - b % 4) + abs(a // 4 - b // 4) for a, b in pairs} == {1, 2}
    assert [T.hops(torus, a, b) for a, b in pairs] == [T.hops(mesh, a, b) for a, b in pairs]

    def cost(G):
        return collective_costs.predict(
            "allreduce", "recursive_doubling", 16, 1 << 20, 1.0, 1e4, topology=G, t_h=0.1, contention=True
        )

    assert cost(torus) == pytest.approx(cost(mesh))
    assert (T.hops(torus, 0, 3), T.hops(mesh, 0, 3)) == (1, 3)


def test_drawing_one_arrow_per_hop():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch

    from commbook.models import collective_schedules as schedules

    steps = schedules.schedule("allreduce", "recursive_doubling", 8)
    for routed, expect in ((True, 8 * (1 + 2 + 4)), (False, 24)):
        ax = topology_chapter.draw_topology(T.ring(8), steps, routed=routed)
        assert sum(isinstance(p, FancyArrowPatch) for p in ax.patches) == expect
        assert len(ax.get_legend().get_texts()) == 3
        plt.close(ax.figure)
