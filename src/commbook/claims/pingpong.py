"""Claims of the ping-pong chapter (book/pingpong.md): the Scorcia report's IMB table
(data/orfeo/pingpong_seed.csv), the node hardware, the derived ORFEO curves, the exercises."""

from __future__ import annotations

import functools
import inspect
import math

from . import claim
from .sources import pingpong as pp
from .sources import seed_value, tables_dir

SEED = "data/orfeo/pingpong_seed.csv (Scorcia report, sec. 2)"
HW = "data/orfeo/hardware_seed.csv (Loletti report sec. 1.2; Scorcia report sec. 2)"
CURVES = "data/orfeo/derived/pingpong.csv.gz, node/ucx/Open MPI, median over students"
JACOBI = "data/orfeo/jacobi_seed.csv (Scorcia report, sec. 3)"


# the report's ping-pong figures are the book's reference numbers: any chapter may state them
ANY_CHAPTER = (
    "intro",
    "pingpong",
    "ring",
    "matrix_add",
    "topology",
    "collectives",
    "jacobi",
    "data",
    "validation",
    "cluster",
)


def _register_seed(name, mapping, transport, column, unit, pages=ANY_CHAPTER):
    scale = {"us": 1.0, "MB/s": 1.0, "GB/s": 1e-3}[unit]
    claim(name, page=pages, unit=unit, source=SEED)(lambda: pp(mapping, transport, column) * scale)


for _name, _mapping, _transport in [
    ("ucx-core", "core", "ucx"),
    ("ucx-socket", "socket", "ucx"),
    ("ucx-node", "node", "ucx"),
    ("vader-core", "core", "ob1-vader"),
    ("vader-socket", "socket", "ob1-vader"),
    ("shm-core", "core", "shm"),
    ("shm-socket", "socket", "shm"),
    ("tcp-node", "node", "ob1-tcp"),
    ("intel-tcp-node", "node", "tcp"),
]:
    _register_seed(f"pp-{_name}-latency", _mapping, _transport, "latency_us", "us")
for _name, _mapping, _transport in [
    ("ucx-core", "core", "ucx"),
    ("mlx-core", "core", "mlx"),
    ("vader-core", "core", "ob1-vader"),
    ("shm-core", "core", "shm"),
    ("tcp-node", "node", "ob1-tcp"),
]:
    _register_seed(f"pp-{_name}-bandwidth", _mapping, _transport, "bandwidth_asymptotic_MBps", "MB/s")
_register_seed("pp-ucx-node-bandwidth-GBps", "node", "ucx", "bandwidth_asymptotic_MBps", "GB/s")
_register_seed("pp-ucx-core-bandwidth-GBps", "core", "ucx", "bandwidth_asymptotic_MBps", "GB/s")
_register_seed("pp-ucx-node-bandwidth", "node", "ucx", "bandwidth_asymptotic_MBps", "MB/s")


def _tcp_latencies():
    from .. import orfeo

    t = orfeo.summary_table("pingpong_seed")
    return t[t.transport.isin(["tcp", "ob1-tcp"])].latency_us.astype(float)


@claim("pp-tcp-latency-min", page="pingpong", unit="us", source=SEED + ", every TCP row")
def _():
    return _tcp_latencies().min()


@claim("pp-tcp-latency-max", page="pingpong", unit="us", source=SEED + ", every TCP row")
def _():
    return _tcp_latencies().max()


@claim(
    "pp-shm-over-vader-latency",
    page="pingpong",
    unit="%",
    source=SEED + ": Intel shm against Open MPI vader, map by core (the report's 'up 696 %')",
)
def _():
    return (pp("core", "shm", "latency_us") / pp("core", "ob1-vader", "latency_us") - 1) * 100


def _thin(column):
    return seed_value("hardware_seed", column, node_type="THIN (Xeon Gold 6126)")


@claim("orfeo-infiniband", page=ANY_CHAPTER, unit="Gb/s", source=HW)
def _():
    return _thin("infiniband_Gbps")


@claim("orfeo-ethernet", page=ANY_CHAPTER, unit="Gb/s", source=HW)
def _():
    return _thin("ethernet_Gbps")


@claim("orfeo-thin-cores-per-socket", page=ANY_CHAPTER, unit="", source=HW)
def _():
    return _thin("cores_per_socket")


@claim(
    "pp-ucx-node-link-share",
    page="pingpong",
    unit="%",
    source=SEED + " and " + HW + ": plateau over the InfiniBand line rate",
)
def _():
    return pp("node", "ucx", "bandwidth_asymptotic_MBps") / (_thin("infiniband_Gbps") * 1e3 / 8) * 100


# THIN against GPU nodes (the Jacobi section's figures, and the derived curves)
def _jacobi(machine, configuration, quantity):
    return seed_value("jacobi_seed", "value", machine=machine, configuration=configuration, quantity=quantity)


for _name, _machine, _conf, _q, _unit in [
    ("pp-gpu-Tl", "orfeo-gpu", "1 GPU node map by node (ucx)", "T_l", "us"),
    ("pp-gpu-B2", "orfeo-gpu", "1 GPU node map by node (ucx)", "B/2", "MB/s"),
    ("pp-thin-Tl", "orfeo-thin", "2 THIN nodes map by node (ucx)", "T_l", "us"),
    ("pp-thin-B2", "orfeo-thin", "2 THIN nodes map by node (ucx)", "B/2", "MB/s"),
]:
    claim(_name, page="pingpong", unit=_unit, source=JACOBI)(lambda m=_machine, c=_conf, q=_q: _jacobi(m, c, q))


def _compared():
    return _compared_in(str(tables_dir()))


@functools.lru_cache(maxsize=4)
def _compared_in(tables_dir: str):
    from .. import orfeo
    from ..chapters.pingpong import machines_compared

    curves, _ = orfeo.load("pingpong")
    return machines_compared(curves)


@claim(
    "pp-machines-agree-from",
    page="pingpong",
    unit="B",
    source=CURVES + ": smallest size from which THIN and GPU stay within 2 %",
)
def _():
    from ..chapters.pingpong import agree_from

    return agree_from(_compared(), rel_tol=0.02)


for _name, _machine, _size in [
    ("pp-thin-0B", "orfeo-thin", 0),
    ("pp-gpu-0B", "orfeo-gpu", 0),
    ("pp-thin-64K", "orfeo-thin", 65536),
    ("pp-gpu-64K", "orfeo-gpu", 65536),
]:
    claim(_name, page="pingpong", unit="us", source=CURVES)(lambda m=_machine, s=_size: float(_compared().loc[s, m]))


@claim(
    "pp-compare-size",
    page="pingpong",
    unit="B",
    source="src/commbook/claims/pingpong.py: the size the THIN/GPU comparison quotes",
)
def _():
    return 65536


# the exercises (references from commbook.exercises)
def _expected(name):
    from .. import exercises

    return float(exercises.expected(name))


@claim("pp-nhalf", page="pingpong", unit="B", rel_tol=0.001, source="commbook.exercises pp-nhalf (λ·b, UCX by node)")
def _():
    return _expected("pp-nhalf")


@claim("pp-nhalf-KB", page="pingpong", unit="KB", source="commbook.exercises pp-nhalf (λ·b, UCX by node)")
def _():
    return _expected("pp-nhalf") / 1e3


@claim("pp-4KiB-time", page="pingpong", unit="us", source=SEED + ": λ + 4096/b, UCX by node")
def _():
    return pp("node", "ucx", "latency_us") + 4096 / pp("node", "ucx", "bandwidth_asymptotic_MBps")


def _tcp_size():
    from .. import exercises

    source = inspect.getsource(exercises.references._pp_tcp)
    return 2**20 if "2**20" in source else float("nan")


@claim("pp-tcp-size", page="pingpong", unit="B", source="commbook.exercises pp-tcp (the message size)")
def _():
    return _tcp_size()


@claim("pp-tcp-time", page="pingpong", unit="us", source="commbook.exercises pp-tcp")
def _():
    return _expected("pp-tcp")


@claim("pp-tcp-effective", page="pingpong", unit="MB/s", source="commbook.exercises pp-tcp: n / t")
def _():
    return _tcp_size() / _expected("pp-tcp")


@claim("pp-tcp-effective-share", page="pingpong", unit="%", source="commbook.exercises pp-tcp: (n / t) / b")
def _():
    return _tcp_size() / _expected("pp-tcp") / pp("node", "ob1-tcp", "bandwidth_asymptotic_MBps") * 100


@claim(
    "pp-tcp-line-share",
    page="pingpong",
    unit="%",
    source=SEED + " and " + HW + ": TCP plateau over the Ethernet line rate",
)
def _():
    return pp("node", "ob1-tcp", "bandwidth_asymptotic_MBps") / (_thin("ethernet_Gbps") * 1e3 / 8) * 100


@claim(
    "pp-eager-probe-max",
    page="pingpong",
    unit="B",
    source="commbook.exercises.check_eager: the largest size the probe tries (max_bytes)",
)
def _():
    from .. import exercises

    default = inspect.signature(exercises.check_eager).parameters["max_bytes"].default
    return float(default.rstrip("M")) * 2**20


@claim(
    "pp-eager-probe-steps",
    page="pingpong",
    unit="",
    source="binary search up to the probe's largest size: ceil(log2(max + 1))",
)
def _():
    from .. import exercises

    default = inspect.signature(exercises.check_eager).parameters["max_bytes"].default
    return math.ceil(math.log2(float(default.rstrip("M")) * 2**20 + 1))
