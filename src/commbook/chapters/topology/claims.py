"""Claims of the topology chapter (book/topology.md): the code's limits, the routing and
contention models priced with the Scorcia report's UCX figures, the measured latency map."""

from __future__ import annotations

import inspect
import re

from ...claims import claim, reference_claim
from ...claims.sources import per_tables_dir, seed_value
from ...claims.sources import pingpong as pp

SEED = "data/orfeo/pingpong_seed.csv (Scorcia report, sec. 2), UCX by node"
T_H = 0.1  # the chapter's assumed time per switch hop, µs (glued on the page from its cell)


def _ucx_node():
    return pp("node", "ucx", "latency_us"), pp("node", "ucx", "bandwidth_asymptotic_MBps")


@claim("topo-exact-direct-max", page="topology", unit="", source="commbook.topology.EXACT_DIRECT_MAX")
def _():
    from ... import topology

    return topology.EXACT_DIRECT_MAX


@claim("topo-exact-switched-max", page="topology", unit="", source="commbook.topology.EXACT_SWITCHED_MAX")
def _():
    from ... import topology

    return topology.EXACT_SWITCHED_MAX


def _one_mib(routing):
    from ... import topology as T

    t_s, t_w = _ucx_node()
    return float(T.message_time(1 << 20, 10, t_s, T_H, t_w, routing))


@claim("topo-1mib-cut-through", page="topology", unit="us", source=SEED + ", 10 hops, t_h 0.1 µs")
def _():
    return _one_mib("cut-through")


@claim("topo-1mib-transfer", page="topology", unit="us", source=SEED + ": 1 MiB / b")
def _():
    return (1 << 20) / _ucx_node()[1]


@claim(
    "topo-ring16-allreduce-stretch",
    page="topology",
    unit="times",
    source=SEED + ": recursive-doubling allreduce of 1 MiB on a ring of 16, contention over none",
)
def _():
    from ... import topology as T
    from ...models import collective_costs as coll

    t_s, t_w = _ucx_node()
    plain = coll.predict("allreduce", "recursive_doubling", 16, 1 << 20, t_s, t_w)
    ring = coll.predict(
        "allreduce", "recursive_doubling", 16, 1 << 20, t_s, t_w, topology=T.ring(16), t_h=T_H, contention=True
    )
    return ring / plain


@per_tables_dir
def _socket_ratio():
    import numpy as np

    from ... import orfeo
    from ...models import latency_maps as coll

    pairs, _ = orfeo.load("mzampar/latency")
    L = coll.latency_matrix(pairs[pairs.source.str.startswith("mzampar/")], size_bytes=1)
    off = ~np.eye(12, dtype=bool)
    same = np.r_[L[:12, :12][off], L[12:, 12:][off]].mean()  # pairs inside either socket
    return float(L[:12, 12:].mean() / same)


@claim(
    "topo-upi-over-socket",
    page="topology",
    unit="times",
    source="data/orfeo/derived mzampar/latency: osu_latency at 1 B, other socket over same socket",
)
def _():
    return _socket_ratio()


def _saf_parameters():
    """(n, hops, t_s, t_h, t_w) of the topo-saf exercise, read from its reference."""
    from . import exercises as own_exercises

    calls = re.findall(r"message_time\((\d[^)]*)\)", inspect.getsource(own_exercises._topo_saf))
    n, hops, t_s, t_h, t_w = (float(x) for x in calls[-1].split(",")[:5])
    return n, hops, t_s, t_h, t_w


for _name, _k, _unit in [
    ("topo-saf-size", 0, "B"),
    ("topo-saf-ts", 2, "us"),
    ("topo-saf-th", 3, "us"),
    ("topo-saf-tw", 4, "MB/s"),
]:
    claim(_name, page="topology", unit=_unit, source="commbook.exercises topo-saf")(lambda k=_k: _saf_parameters()[k])


@claim("topo-saf-transfer", page="topology", unit="us", source="commbook.exercises topo-saf: n / t_w")
def _():
    n, _, _, _, t_w = _saf_parameters()
    return n / t_w


reference_claim("topo-saf-time", "topology", "us", "topo-saf")


@claim("topo-ct-time", page="topology", unit="us", source="commbook.exercises topo-saf, cut-through")
def _():
    from ... import topology as T

    n, hops, t_s, t_h, t_w = _saf_parameters()
    return float(T.message_time(n, hops, t_s, t_h, t_w, "cut-through"))


reference_claim(
    "topo-ring16-load",
    "topology",
    "times",
    "topo-ring16",
    source="commbook.exercises topo-ring16: messages on the busiest link",
)


# ORFEO's THIN partition: two kinds of node (the students' rings and ping-pongs name the 6126)
for _name, _cpu in [("orfeo-thin-gold6126-nodes", "6126"), ("orfeo-thin-gold6154-nodes", "6154")]:
    claim(_name, page="topology", unit="", source="data/orfeo/hardware_seed.csv (Loletti report sec. 1.2): nodes")(
        lambda cpu=_cpu: seed_value("hardware_seed", "nodes", node_type=f"THIN (Xeon Gold {cpu})")
    )
