"""SimGrid platforms written by Python: ORFEO's nodes from the hardware seed table, and the
topology chapter's interconnects as SimGrid builds them.

ORFEO (``orfeo-thin``, ``orfeo-fat``, ``orfeo-epyc``: the machines of
``data/orfeo/hardware_seed.csv`` with a known geometry). Each *socket* is a SimGrid host whose
cores are the socket's cores, so the three link classes of the ping-pong data are three kinds of
route: a message between two cores of one socket crosses the socket's memory link, one between
the sockets of a node the node's socket-to-socket link, one between nodes the two nodes' network
links (InfiniBand for the ``ucx`` calibration, Ethernet for ``ob1-tcp``). Latency and bandwidth
per class come from the calibration (fitted to ORFEO's ping-pong); a node's network link is
shared by its ranks (contention), the links inside a node are not (fat pipes: memory and UPI
carry far more than one pair's copy).

Interconnects (``torus``, ``fat-tree``, ``dragonfly``): one SimGrid ``<cluster>`` with that
topology, one single-core host per node, every link the calibrated inter-node link.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from xml.sax.saxutils import quoteattr

from . import calibration

ORFEO = ("orfeo-thin", "orfeo-fat", "orfeo-epyc")
INTERCONNECTS = ("torus", "fat-tree", "dragonfly")
MAPS = ("core", "socket", "node")
MAX_INTERCONNECT_NODES = 1024
DOCTYPE = '<?xml version="1.0"?>\n<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'


class PlatformError(ValueError):
    """A platform that cannot be built (unknown name, too many ranks)."""


@dataclass(frozen=True)
class Platform:
    name: str  # orfeo-thin, torus, ...
    nodes: int
    sockets: int  # per node (1 for interconnects)
    cores_per_socket: int
    xml: str
    transport: str
    description: str

    @property
    def cores(self) -> int:
        return self.nodes * self.sockets * self.cores_per_socket

    def host(self, node: int, socket: int) -> str:
        return f"n{node}-s{socket}" if self.name in ORFEO else f"h{node}"

    def label(self) -> str:
        return f"simulated {self.name} {self.nodes} node{'s' if self.nodes != 1 else ''}"

    def hostfile(self, np: int, map_by: str = "core") -> str:
        """One line per rank, in rank order, as Open MPI's --map-by places ranks on these nodes."""
        return "".join(f"{h}\n" for h in placement(self, np, map_by))


def placement(p: Platform, np: int, map_by: str = "core") -> list[str]:
    """The host (socket) of every rank: core fills a socket, then the next socket, then the next
    node; socket alternates sockets within a node; node deals ranks round the nodes (each node
    filling its own sockets in order)."""
    if map_by not in MAPS:
        raise PlatformError(f"--map-by must be one of {', '.join(MAPS)}, not '{map_by}'")
    if np < 1:
        raise PlatformError(f"np must be at least 1, not {np}")
    if np > p.cores:
        raise PlatformError(
            f"{np} ranks do not fit on {p.label()} ({p.cores} cores: {p.nodes} x {p.sockets} sockets x "
            f"{p.cores_per_socket} cores); add nodes"
        )
    cps, per_node = p.cores_per_socket, p.sockets * p.cores_per_socket
    hosts = []
    for r in range(np):
        if map_by == "core":
            node, socket = divmod(r // cps, p.sockets)
        elif map_by == "socket":
            node, k = divmod(r, per_node)
            socket = k % p.sockets
        else:  # node: round robin, then by core inside the node
            node, k = r % p.nodes, r // p.nodes
            socket = k // cps
        hosts.append(p.host(node, socket))
    return hosts


def _link(lid: str, latency_us: float, bandwidth_MBps: float, policy: str) -> str:
    return (
        f'  <link id={quoteattr(lid)} bandwidth="{bandwidth_MBps * 1e6:.6g}Bps" '
        f'latency="{latency_us:.6g}us" sharing_policy="{policy}"/>\n'
    )


def _route(src: str, dst: str, links: list[tuple[str, str]]) -> str:
    ctn = "".join(f'<link_ctn id="{lid}"{f" direction={quoteattr(d)}" if d else ""}/>' for lid, d in links)
    return f'  <route src="{src}" dst="{dst}" symmetrical="NO">{ctn}</route>\n'


def orfeo_platform(
    name: str = "orfeo-thin", nodes: int = 2, transport: str | None = None, cal: dict | None = None
) -> Platform:
    """ORFEO nodes of one machine, generated from the hardware table and the calibration."""
    from .. import orfeo

    if name not in ORFEO:
        raise PlatformError(f"unknown platform '{name}'; known: {', '.join(ORFEO + INTERCONNECTS)}")
    try:
        node = orfeo.node(name)
    except LookupError as e:
        raise PlatformError(str(e)) from None
    nodes = int(nodes)
    if nodes < 1:
        raise PlatformError(f"--nodes must be at least 1, not {nodes}")
    hw = orfeo.summary_table("hardware_seed")
    row = hw[hw.node_type == node.node_type].iloc[0]
    if nodes > row.nodes > 0:
        raise PlatformError(f"{name} has {int(row.nodes)} {node.node_type} nodes, not {nodes}")
    params = calibration.transport_parameters(transport, cal)
    transport = transport or (cal or calibration.load())["default_transport"]
    links = params["links"]
    network = "Ethernet" if "tcp" in transport else "InfiniBand"
    nominal = row.ethernet_Gbps if network == "Ethernet" else row.infiniband_Gbps
    hosts = [(n, s) for n in range(nodes) for s in range(node.sockets)]
    out = [DOCTYPE, '<platform version="4.1">\n', f'<zone id="{name}" routing="Full">\n']
    out.append(
        f'  <prop id="commbook" value={quoteattr(f"{node.node_type}: {nodes} nodes x {node.sockets} sockets x {node.cores_per_socket} cores; {transport} calibration; nominal {network} {nominal:g} Gb/s")}/>\n'
    )
    for n, s in hosts:
        out.append(f'  <host id="n{n}-s{s}" speed="1Gf" core="{node.cores_per_socket}"/>\n')
    for n, s in hosts:
        out.append(_link(f"n{n}-s{s}-mem", links["core"]["latency_us"], links["core"]["bandwidth_MBps"], "FATPIPE"))
    for n in range(nodes):
        out.append(_link(f"n{n}-upi", links["socket"]["latency_us"], links["socket"]["bandwidth_MBps"], "FATPIPE"))
        # half the ping-pong latency on each end: a message crosses both nodes' links
        out.append(_link(f"n{n}-net", links["node"]["latency_us"] / 2, links["node"]["bandwidth_MBps"], "SPLITDUPLEX"))
    for (n1, s1), (n2, s2) in ((a, b) for a in hosts for b in hosts):
        if (n1, s1) == (n2, s2):
            route = [(f"n{n1}-s{s1}-mem", "")]
        elif n1 == n2:
            route = [(f"n{n1}-upi", "")]
        else:
            route = [(f"n{n1}-net", "UP"), (f"n{n2}-net", "DOWN")]
        out.append(_route(f"n{n1}-s{s1}", f"n{n2}-s{s2}", route))
    out.append("</zone>\n</platform>\n")
    return Platform(
        name,
        nodes,
        node.sockets,
        node.cores_per_socket,
        "".join(out),
        transport,
        f"{node.node_type}, {nodes} node(s) x {node.sockets} sockets x {node.cores_per_socket} cores, {network}"
        + ("" if name == calibration.MACHINE else f" (links calibrated on {calibration.MACHINE}'s ping-pong)"),
    )


def _near_cube(n: int) -> tuple[int, int, int]:
    """Three factors of n as equal as possible (a 3-D torus)."""
    best = (n, 1, 1)
    for a in range(1, round(n ** (1 / 3)) + 2):
        if n % a:
            continue
        for b in range(a, int(math.isqrt(n // a)) + 1):
            if (n // a) % b == 0:
                c = n // a // b
                if max(a, b, c) - min(a, b, c) < max(best) - min(best):
                    best = (a, b, c)
    return tuple(sorted(best, reverse=True))


def topology_parameters(topology: str, nodes: int) -> str:
    """SimGrid's topo_parameters for `nodes` hosts (a power of two for fat tree and dragonfly)."""
    if topology == "torus":
        # no dimension of 1: SimGrid 3.32 declares a link 0 -> 0 for each and aborts on the second
        return ",".join(str(d) for d in _near_cube(nodes) if d > 1) or str(nodes)
    k = int(math.log2(nodes))
    if 2**k != nodes:
        raise PlatformError(f"a {topology} is built for a power of two nodes, not {nodes}")
    if topology == "fat-tree":
        # two levels, full bisection: leaf switches of `down` nodes with `down` uplinks each
        down = 2 ** ((k + 1) // 2)
        return f"2;{down},{nodes // down};1,{down};1,1"
    # dragonfly: 2 groups (SimGrid 3.32 crashed here on 4 groups or more), chassis, routers, nodes
    if nodes < 16:
        raise PlatformError(f"a dragonfly needs at least 16 nodes, not {nodes}")
    per_group = nodes // 2
    n_per_router = 2 ** ((k - 1) // 3)
    routers = 2 ** ((k - 1 - int(math.log2(n_per_router))) // 2)
    chassis = per_group // (routers * n_per_router)
    return f"2,{max(1, routers)};{chassis},1;{routers},1;{n_per_router}"


def interconnect_platform(topology: str, nodes: int, transport: str | None = None, cal: dict | None = None) -> Platform:
    """A torus, fat tree or dragonfly of `nodes` single-core hosts with calibrated links."""
    if topology not in INTERCONNECTS:
        raise PlatformError(f"unknown platform '{topology}'; known: {', '.join(ORFEO + INTERCONNECTS)}")
    nodes = int(nodes)
    if not 2 <= nodes <= MAX_INTERCONNECT_NODES:
        raise PlatformError(f"a {topology} here has 2 to {MAX_INTERCONNECT_NODES} nodes, not {nodes}")
    params = calibration.transport_parameters(transport, cal)
    transport = transport or (cal or calibration.load())["default_transport"]
    net, core = params["links"]["node"], params["links"]["core"]
    tp = topology_parameters(topology, nodes)
    kind = {"torus": "TORUS", "fat-tree": "FAT_TREE", "dragonfly": "DRAGONFLY"}[topology]
    # every link carries half a node-to-node ping-pong's latency (a route has at least two)
    xml = (
        f'{DOCTYPE}<platform version="4.1">\n'
        f'<cluster id="{topology}" prefix="h" suffix="" radical="0-{nodes - 1}" speed="1Gf" '
        f'bw="{net["bandwidth_MBps"] * 1e6:.6g}Bps" lat="{net["latency_us"] / 2:.6g}us" '
        f'loopback_bw="{core["bandwidth_MBps"] * 1e6:.6g}Bps" loopback_lat="{core["latency_us"]:.6g}us" '
        f'topology="{kind}" topo_parameters="{tp}"/>\n</platform>\n'
    )
    return Platform(topology, nodes, 1, 1, xml, transport, f"{topology} ({kind} {tp}) of {nodes} single-core nodes")


def platform(name: str, nodes: int, transport: str | None = None, cal: dict | None = None) -> Platform:
    """Any platform by name: an ORFEO machine or an interconnect."""
    if name in INTERCONNECTS:
        return interconnect_platform(name, nodes, transport, cal)
    return orfeo_platform(name, nodes, transport, cal)
