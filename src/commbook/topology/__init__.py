"""Interconnect topologies as networkx graphs: metrics, rank placement, hops and message cost.

Every graph has processors numbered ``0..p-1`` (node attribute ``role="processor"``) and, for
switched networks (trees of switches, fat trees, clusters), switch nodes named by strings
(``role="switch"``). A *placement* maps rank -> processor id, so ``placement[r]`` is where rank r
runs. ``G.graph`` holds ``kind``, ``p`` and the construction parameters; node attribute ``pos``
is a drawing position; edge attribute ``link`` is the link class (``"net"``, or for a cluster
``"core"`` core-socket, ``"socket"`` socket-node, ``"node"`` node-switch).

Closed forms are those of Malakar's lecture (after Grama et al., *Introduction to Parallel
Computing*, ch. 2): "cost" there is the number of links, which is what :func:`link_count` counts.

Units: times in microseconds, message sizes in bytes, bandwidth t_w in MB/s (1e6 B/s), so
``n / t_w`` is in microseconds.

Modules: ``graphs`` (building them), ``metrics``, ``placement`` (ranks on processors, hops, link
classes), ``routing`` (routes, message cost, contention).
"""

from __future__ import annotations

from .graphs import (
    EXACT_DIRECT_MAX,
    EXACT_SWITCHED_MAX,
    KINDS,
    LINK_CLASSES,
    ROUTINGS,
    binary_tree,
    build,
    cluster,
    fat_tree,
    hypercube,
    linear_array,
    mesh,
    parse_topology,
    ring,
    switch_tree,
    torus,
)
from .metrics import (
    CLOSED_FORM_TEXT,
    Bisection,
    bisection,
    bisection_width,
    closed_form,
    diameter,
    is_switched,
    link_count,
    metrics,
    metrics_table,
    processors,
)
from .placement import (
    MAP_BY,
    class_matrix,
    hop_matrix,
    hops,
    min_hops,
    pair_class,
    place,
)
from .routing import (
    contention_times,
    link_loads,
    message_time,
    route,
)

__all__ = [
    "Bisection",
    "CLOSED_FORM_TEXT",
    "EXACT_DIRECT_MAX",
    "EXACT_SWITCHED_MAX",
    "KINDS",
    "LINK_CLASSES",
    "MAP_BY",
    "ROUTINGS",
    "binary_tree",
    "bisection",
    "bisection_width",
    "build",
    "class_matrix",
    "closed_form",
    "cluster",
    "contention_times",
    "diameter",
    "fat_tree",
    "hop_matrix",
    "hops",
    "hypercube",
    "is_switched",
    "linear_array",
    "link_count",
    "link_loads",
    "mesh",
    "message_time",
    "metrics",
    "metrics_table",
    "min_hops",
    "pair_class",
    "parse_topology",
    "place",
    "processors",
    "ring",
    "route",
    "switch_tree",
    "torus",
]
