"""ORFEO facts the code needs, read from the summary tables: a node's geometry
(``hardware_seed.csv``) and a link's ping-pong latency and bandwidth (``pingpong_seed.csv``).
Nothing else types these numbers."""

from __future__ import annotations

from dataclasses import dataclass

from .tables import summary_table


@dataclass(frozen=True)
class Node:
    node_type: str
    machine: str
    sockets: int
    cores_per_socket: int

    @property
    def cores_per_node(self) -> int:
        return self.sockets * self.cores_per_socket

    def cluster(self, nodes: int) -> dict:
        """commbook.topology.cluster's arguments for `nodes` such nodes."""
        return dict(nodes=int(nodes), sockets=self.sockets, cores=self.cores_per_socket)


@dataclass(frozen=True)
class Link:
    latency_us: float
    bandwidth_MBps: float  # the report's Hockney fit
    asymptotic_MBps: float  # the large-message plateau read from the report's table
    source: str


def node(name: str) -> Node:
    """A node type ("THIN (Xeon Gold 6126)") or a machine ("orfeo-thin"); a machine with several
    node types is its usual one, the type with the most nodes (THIN: the ten Gold 6126 nodes)."""
    hw = summary_table("hardware_seed")
    rows = hw[(hw.node_type == name) | (hw.machine == name)]
    rows = rows[rows.sockets.notna() & rows.cores_per_socket.notna()]
    if rows.empty:
        raise LookupError(f"hardware_seed.csv: no node type or machine '{name}' with a known geometry")
    r = rows.sort_values("nodes", ascending=False, kind="stable").iloc[0]
    return Node(str(r.node_type), str(r.machine), int(r.sockets), int(r.cores_per_socket))


def link(mapping: str, transport: str, machine: str = "orfeo-thin", library: str = "Open MPI") -> Link:
    """The ping-pong latency and bandwidth the Scorcia report gives for one mapping and
    transport (pingpong_seed.csv), e.g. link("core", "ucx")."""
    t = summary_table("pingpong_seed")
    row = t[
        (t.machine == machine)
        & (t.mapping == mapping)
        & (t.transport == transport)
        & t.mpi_library.str.startswith(library)
    ]
    if len(row) != 1:
        raise LookupError(f"pingpong_seed.csv: {len(row)} rows for {machine} {mapping} {transport} {library}")
    r = row.iloc[0]
    return Link(float(r.latency_us), float(r.bandwidth_fit_MBps), float(r.bandwidth_asymptotic_MBps), str(r.source))


def links(transport: str = "ucx", library: str = "Open MPI", machine: str = "orfeo-thin") -> dict:
    """{'core': Hockney, 'socket': ..., 'node': ...}: the report's ping-pong fit per mapping
    (pingpong_seed.csv), the link classes of a ring or a collective on ORFEO."""
    from ..models.ring import links_from_table

    return links_from_table(summary_table("pingpong_seed"), machine, transport, library=library)


def link_parameters(transport: str = "ucx", library: str = "Open MPI", machine: str = "orfeo-thin") -> dict:
    """{'core': (lambda_us, b_MBps), 'socket': ..., 'node': ...}: :func:`links` as pairs, the
    link classes of commbook.models.link_classes."""
    found = links(transport, library, machine)
    return {c: (found[c].lambda_us, found[c].bandwidth_MBps) for c in ("core", "socket", "node") if c in found}


def placement(machine: str = "orfeo-thin", map_by: str = "core"):
    """Where `mpirun --map-by map_by` puts the ranks on the machine's usual nodes
    (a commbook.models.ring.Placement)."""
    from ..models.ring import Placement

    n = node(machine)
    return Placement(n.cores_per_socket, n.sockets, map_by=map_by)
