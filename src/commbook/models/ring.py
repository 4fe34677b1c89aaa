"""The ring model: P steps, each paying for the slowest link the ring uses.

In the ring kernel every rank, at each of P steps, sends a message to both neighbours and
waits for both of theirs before the next step. The ranks on either side of the dearest link
wait for it at every step, and the time reported is the slowest rank's, so

    T(P) = m · P · max_c (λ_c + n / b_c)        over the link classes c the ring uses,

with n the message size in bytes, λ_c in µs and b_c in MB/s (1 MB/s = 1 B/µs), and m the
messages a rank pays for per step: 2 when the two directions are serialised (MPI_Sendrecv
twice, the course report's ``2·P``), between 1 and 2 when they overlap (non-blocking).

Which classes the ring uses follows from where the ranks sit (cores per socket, sockets per
node, ``--map-by``): link i joins rank i and rank i+1 (mod P), so with ``--map-by core`` on
ORFEO THIN (2 sockets x 12 cores) the ring first crosses a socket at P = 13 and a node at
P = 25, where the model predicts a step up (the "bump" of the report).  Placement uses
:func:`commbook.topology.place`, the same rule as the collectives chapter.

Everything here is a model; the book labels its curves as such.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from .hockney import Hockney

CLASS_ORDER = ("self", "core", "socket", "node")  # cheapest to dearest
# "openmpi4": what Open MPI 4's mpirun does when no --map-by is given: by core up to two ranks,
# above that by NUMA domain where hwloc reports one, else by socket: by socket on ORFEO's THIN
# nodes, one NUMA domain per socket (orte/mca/rmaps/base/rmaps_base_map_job.c; mpirun(1) of v4.1).
MAP_BY = ("core", "socket", "node", "openmpi4")


def mapped_by(map_by: str, P: int) -> str:
    """The plain --map-by (core, socket, node) that places a ring of P ranks under `map_by`."""
    return ("core" if P <= 2 else "socket") if map_by == "openmpi4" else map_by


def _count(name: str, value, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be a whole number >= {minimum}, not {value!r}")
    return int(value)


@dataclass(frozen=True)
class Placement:
    """Where ranks sit: ``cores_per_socket`` x ``sockets_per_node`` cores per node, ranks dealt
    like Open MPI's ``--map-by`` ("openmpi4": Open MPI 4's default, core up to P = 2, socket
    above). ``nodes`` is needed only for ``map_by="node"`` (ranks go round robin over that many
    nodes); otherwise nodes are added as the ranks need them."""

    cores_per_socket: int
    sockets_per_node: int = 1
    map_by: str = "core"
    nodes: int | None = None

    def __post_init__(self):
        _count("cores_per_socket", self.cores_per_socket)
        _count("sockets_per_node", self.sockets_per_node)
        if self.map_by not in MAP_BY:
            raise ValueError(f"map_by must be one of {MAP_BY}, not {self.map_by!r}")
        if self.nodes is not None:
            _count("nodes", self.nodes)
        elif self.map_by == "node":
            raise ValueError("map_by='node' needs the number of nodes (nodes=...)")

    @property
    def cores_per_node(self) -> int:
        return self.cores_per_socket * self.sockets_per_node

    def locations(self, P: int) -> list[tuple[int, int]]:
        """(node, socket) of ranks 0..P-1."""
        return list(_locations(self, _count("P", P)))

    def link_classes(self, P: int) -> tuple[str, ...]:
        """Class of each ring link i -> i+1 (mod P): 'self' (P = 1), 'core' (same socket),
        'socket' (same node, other socket) or 'node' (other node)."""
        return _link_classes(self, _count("P", P))

    def dearest_class(self, P: int) -> str:
        """The most expensive class the ring of P ranks uses, in the order self < core <
        socket < node (the order of their latencies on every machine we know)."""
        return max(self.link_classes(P), key=CLASS_ORDER.index)

    def boundaries(self, P_max: int) -> list[tuple[int, str]]:
        """(P, class) for each P <= P_max at which the dearest class changes: the predicted
        bumps. THIN map-by core: [(1, 'self'), (2, 'core'), (13, 'socket'), (25, 'node')]."""
        out, last = [], None
        for P in range(1, _count("P_max", P_max) + 1):
            c = self.dearest_class(P)
            if c != last:
                out.append((P, c))
                last = c
        return out


@functools.lru_cache(maxsize=256)
def _locations(pl: Placement, P: int) -> tuple[tuple[int, int], ...]:
    from .. import topology  # networkx; imported here so the model module stays light

    if pl.map_by == "node":
        nodes = pl.nodes
        if P > nodes * pl.cores_per_node:
            raise ValueError(f"{P} ranks do not fit on {nodes} nodes of {pl.cores_per_node} cores")
    else:
        nodes = pl.nodes or math.ceil(P / pl.cores_per_node)
        if P > nodes * pl.cores_per_node:
            raise ValueError(
                f"{P} ranks do not fit on {nodes} nodes of {pl.cores_per_node} cores "
                "(oversubscription is outside this model)"
            )
    G = topology.cluster(nodes, pl.sockets_per_node, pl.cores_per_socket)
    where = topology.place(G, P, mapped_by(pl.map_by, P))
    return tuple((G.nodes[c]["node"], G.nodes[c]["socket"]) for c in where)


@functools.lru_cache(maxsize=256)
def _link_classes(pl: Placement, P: int) -> tuple[str, ...]:
    if P == 1:
        return ("self",)
    loc = _locations(pl, P)
    out = []
    for i in range(P):
        (na, sa), (nb, sb) = loc[i], loc[(i + 1) % P]
        out.append("core" if (na, sa) == (nb, sb) else "socket" if na == nb else "node")
    return tuple(out)


def _link(links: Mapping[str, Hockney], cls: str) -> Hockney:
    """The Hockney parameters of a class; 'self' falls back to 'core' (ping-pong tables have no
    self entry, and a rank talking to itself goes through the same shared-memory path)."""
    if cls in links:
        return links[cls]
    if cls == "self" and "core" in links:
        return links["core"]
    raise ValueError(f"no latency/bandwidth given for link class '{cls}' (given: {sorted(links)}); the ring uses it")


def step_cost(P: int, n: float, links: Mapping[str, Hockney], placement: Placement) -> tuple[float, str]:
    """(cost of one message over the dearest link in use, that link's class) for a ring of P."""
    costs = {c: float(_link(links, c).time_us(n)[0]) for c in set(placement.link_classes(P))}
    cls = max(costs, key=lambda c: (costs[c], CLASS_ORDER.index(c)))
    return costs[cls], cls


def ring_time(
    P, n: float, links: Mapping[str, Hockney], placement: Placement, messages_per_step: float = 2.0
) -> np.ndarray:
    """Model time of one ring (P steps) in µs, for each P: m · P · max_c(λ_c + n/b_c)."""
    if not (isinstance(messages_per_step, (int, float)) and 0 < messages_per_step <= 2):
        raise ValueError(f"messages_per_step must be in (0, 2], not {messages_per_step!r}")
    Ps = np.atleast_1d(np.asarray(P))
    if Ps.ndim != 1 or not np.issubdtype(Ps.dtype, np.integer) or np.any(Ps < 1):
        raise ValueError(f"P must be whole numbers >= 1, not {P!r}")
    if not (math.isfinite(n) and n >= 0):
        raise ValueError(f"message size must be >= 0 bytes, not {n!r}")
    return np.array([messages_per_step * p * step_cost(int(p), n, links, placement)[0] for p in Ps])


def links_from_table(
    table,
    machine: str,
    transport: str,
    latency: str = "latency_us",
    bandwidth: str = "bandwidth_fit_MBps",
    library: str | None = None,
) -> dict[str, Hockney]:
    """{'core': Hockney, 'socket': ..., 'node': ...} from a ping-pong summary table with columns
    machine, mapping, transport (and mpi_library), e.g. data/orfeo/pingpong_seed.csv.
    Missing classes are simply absent (vader has no 'node' row)."""
    df = table[(table["machine"] == machine) & (table["transport"] == transport)]
    if library is not None:
        df = df[df["mpi_library"].str.startswith(library)]
    if df.empty:
        raise ValueError(f"no ping-pong rows for machine {machine!r}, transport {transport!r}")
    out = {}
    for mapping, rows in df.groupby("mapping"):
        if len(rows) > 1:
            raise ValueError(f"{len(rows)} rows for {machine} {transport} {mapping}: pass library=")
        r = rows.iloc[0]
        bw = r[bandwidth] if np.isfinite(r[bandwidth]) else r["bandwidth_asymptotic_MBps"]
        out[str(mapping)] = Hockney(float(r[latency]), float(bw))
    return out


# ---------------------------------------------------------------------------------------
# Fitting the per-class cost to measured rings


@dataclass(frozen=True)
class RingFit:
    """Per-message latency of each class fitted to ring times (µs), with the fit quality."""

    lambda_us: dict
    messages_per_step: float
    rms_relative_error: float
    points: dict  # class -> how many P values it was fitted on

    def predict(self, P, placement: Placement) -> np.ndarray:
        Ps = np.atleast_1d(np.asarray(P, dtype=int))
        return np.array([self.messages_per_step * p * self.lambda_us[placement.dearest_class(int(p))] for p in Ps])


def fit_ring(P, t_us, placement: Placement, messages_per_step: float = 2.0) -> RingFit:
    """Fit λ_c (µs per message) for every class in use, on relative error: minimise
    Σ ((m·P·λ_c(P) − t)/t)², λ_c >= 0, where c(P) is the dearest class of the ring of P.
    The message-size term is folded into λ_c (the fit is for one size)."""
    from scipy.optimize import lsq_linear

    Ps = np.asarray(P, dtype=float)
    t = np.asarray(t_us, dtype=float)
    if Ps.shape != t.shape or Ps.ndim != 1 or len(Ps) == 0:
        raise ValueError("P and t_us must be equal-length non-empty lists")
    if np.any(~np.isfinite(t)) or np.any(t <= 0):
        raise ValueError("ring times must be positive, finite microseconds")
    if np.any(Ps < 1) or np.any(Ps != np.round(Ps)):
        raise ValueError("P must be whole numbers >= 1")
    cls = [placement.dearest_class(int(p)) for p in Ps]
    used = sorted(set(cls), key=CLASS_ORDER.index)
    A = np.zeros((len(Ps), len(used)))
    for i, c in enumerate(cls):
        A[i, used.index(c)] = messages_per_step * Ps[i] / t[i]
    res = lsq_linear(A, np.ones_like(t), bounds=(0, np.inf))
    lam = dict(zip(used, (float(v) for v in res.x)))
    rel = A @ res.x - 1.0
    return RingFit(lam, messages_per_step, float(np.sqrt(np.mean(rel**2))), {c: cls.count(c) for c in used})
