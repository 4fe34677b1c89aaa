"""The references of the exercises of the topology page (book/topology.md): computed from the topology models."""

from __future__ import annotations

from ...exercises.core import _exercise


@_exercise("topo-torus", "topology", rel_tol=0, unit="links", giveaways=("closed_form(T.torus(64))",))
def _topo_torus():
    from ... import topology as T

    return T.closed_form(T.torus(64))["bisection"]


@_exercise("topo-saf", "topology", rel_tol=0.02, unit="µs", giveaways=("message_time(65536, 5",))
def _topo_saf():
    from ... import topology as T

    return float(T.message_time(65536, 5, 1.0, 0.1, 10000.0, "store-and-forward"))


@_exercise("topo-place", "topology", kind="choice", giveaways=("pair_class(G, place[0], place[2])",))
def _topo_place():
    from ... import orfeo
    from ... import topology as T

    G = T.cluster(**orfeo.node("orfeo-thin").cluster(nodes=2))
    place = T.place(G, 26, "socket")
    return T.pair_class(G, place[0], place[2])


@_exercise("topo-ring16", "topology", rel_tol=0, unit="messages", giveaways=("link_loads(T.ring(16)",))
def _topo_ring16():
    from ... import topology as T
    from ...models import collective_schedules

    last = collective_schedules.schedule("allreduce", "recursive_doubling", 16)[-1]
    return max(T.link_loads(T.ring(16), [(m.src, m.dst) for m in last]).values())


@_exercise("topo-chord", "topology", rel_tol=0, unit="links")
def _topo_chord():
    from ... import topology as T

    G = T.ring(12)
    G.add_edge(0, 6)
    return T.bisection(G).width
