"""The references of the exercises of the topology page (book/topology.md): computed from the topology models."""

from __future__ import annotations

from ...exercises.core import _exercise


@_exercise("topo-torus", "topology", rel_tol=0, unit="links", giveaways=("closed_form(T.torus(64))",))
def _topo_torus():
    """Hint: Cutting a torus in two cuts each row (or column) twice: once in the middle, once on the wrap-around.

    Method: an 8 x 8 torus cut between columns 3 and 4 severs every row twice; count the rows.
    """
    from ... import topology as T

    return T.closed_form(T.torus(64))["bisection"]


@_exercise("topo-saf", "topology", rel_tol=0.02, unit="µs", giveaways=("message_time(65536, 5",))
def _topo_saf():
    """Hint: With store-and-forward every hop pays t_h + n/t_w (t_w a bandwidth here).

    Method: each of the 5 hops pays t_h + n/t_w; add the start-up t_s once.
    """
    from ... import topology as T

    return float(T.message_time(65536, 5, 1.0, 0.1, 10000.0, "store-and-forward"))


@_exercise("topo-place", "topology", kind="choice", giveaways=("pair_class(G, place[0], place[2])",))
def _topo_place():
    """Hint: By socket, ranks alternate between socket 0 and socket 1 of the first node.

    Method: with --map-by socket rank r goes to socket r % 2 while a node has room; rank 0 and rank 2 land on the same
    socket or not?
    """
    from ... import orfeo
    from ... import topology as T

    G = T.cluster(**orfeo.node("orfeo-thin").cluster(nodes=2))
    place = T.place(G, 26, "socket")
    return T.pair_class(G, place[0], place[2])


@_exercise("topo-ring16", "topology", rel_tol=0, unit="messages", giveaways=("link_loads(T.ring(16)",))
def _topo_ring16():
    """Hint: Every message goes 8 links the same way round; count the messages crossing one link.

    Method: message from rank i to i + 8 uses links i → i+1, ..., i+7 → i+8; count how many of the 16 messages use link
    0 → 1.
    """
    from ... import topology as T
    from ...models import collective_schedules

    last = collective_schedules.schedule("allreduce", "recursive_doubling", 16)[-1]
    return max(T.link_loads(T.ring(16), [(m.src, m.dst) for m in last]).values())


@_exercise("topo-chord", "topology", rel_tol=0, unit="links")
def _topo_chord():
    """Hint: A balanced cut of a ring cuts two ring links; does it cut the chord too?

    Method: the halves of a minimal cut are arcs of 6 processors; check whether any such arc holds both ends of the
    chord.
    """
    from ... import topology as T

    G = T.ring(12)
    G.add_edge(0, 6)
    return T.bisection(G).width
