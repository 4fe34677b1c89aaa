"""Claims of the ping-pong chapter (book/pingpong.md): the Scorcia report's IMB table
(data/orfeo/pingpong_seed.csv), the node hardware, the derived ORFEO curves, the exercises."""

from __future__ import annotations

import inspect
import math

from ...claims import claim, reference_claim
from ...claims.sources import per_tables_dir, reference, seed_value
from ...claims.sources import pingpong as pp

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
    "glossary",
)


# the transports of the seed table as the claims' names call them
TRANSPORTS = {"ucx": "ucx", "mlx": "mlx", "vader": "ob1-vader", "shm": "shm", "tcp": "ob1-tcp", "intel-tcp": "tcp"}


def _register_seed(row, quantity, unit):
    """Register pp-<row>-<quantity> (pp-ucx-node-latency, "-GBps" added in GB/s): the seed table's
    figure for the row "<transport>-<mapping>"."""
    transport, _, mapping = row.rpartition("-")
    column = {"latency": "latency_us", "bandwidth": "bandwidth_asymptotic_MBps"}[quantity]
    scale = {"us": 1.0, "MB/s": 1.0, "GB/s": 1e-3}[unit]
    name = f"pp-{row}-{quantity}" + ("-GBps" if unit == "GB/s" else "")
    claim(name, page=ANY_CHAPTER, unit=unit, source=SEED)(lambda: pp(mapping, TRANSPORTS[transport], column) * scale)


for _row in "ucx-core ucx-socket ucx-node vader-core vader-socket shm-core shm-socket tcp-node intel-tcp-node".split():
    _register_seed(_row, "latency", "us")
for _row in "ucx-core ucx-node mlx-core vader-core shm-core tcp-node".split():
    _register_seed(_row, "bandwidth", "MB/s")
for _row in ("ucx-node", "ucx-core"):
    _register_seed(_row, "bandwidth", "GB/s")


def _tcp_latencies():
    from ... import orfeo

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


# a plateau between nodes over the line rate of its network
for _name, _transport, _line, _what in [
    ("pp-ucx-node-link-share", "ucx", "infiniband_Gbps", "plateau over the InfiniBand line rate"),
    ("pp-tcp-line-share", "ob1-tcp", "ethernet_Gbps", "TCP plateau over the Ethernet line rate"),
]:
    claim(_name, page="pingpong", unit="%", source=f"{SEED} and {HW}: {_what}")(
        lambda t=_transport, line=_line: pp("node", t, "bandwidth_asymptotic_MBps") / (_thin(line) * 1e3 / 8) * 100
    )


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


@per_tables_dir
def _compared():
    from ... import orfeo
    from ...chapters.pingpong import machines_compared

    curves, _ = orfeo.load("pingpong")
    return machines_compared(curves)


@claim(
    "pp-machines-agree-from",
    page="pingpong",
    unit="B",
    source=CURVES + ": smallest size from which THIN and GPU stay within 2 %",
)
def _():
    from ...chapters.pingpong import agree_from

    return agree_from(_compared(), rel_tol=0.02)  # pp-machines-agree-tol


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
    source="src/commbook/chapters/pingpong/claims.py: the size the THIN/GPU comparison quotes",
)
def _():
    return 65536


# the exercises (references from commbook.exercises)
NHALF = "commbook.exercises pp-nhalf (λ·b, UCX by node)"
reference_claim("pp-nhalf", "pingpong", "B", "pp-nhalf", rel_tol=0.001, source=NHALF)
reference_claim("pp-nhalf-KB", ("pingpong", "pingpong_lab"), "KB", "pp-nhalf", per=1e3, source=NHALF)
reference_claim("pp-tcp-time", "pingpong", "us", "pp-tcp")


@claim("pp-4KiB-time", page="pingpong", unit="us", source=SEED + ": λ + 4096/b, UCX by node")
def _():
    return pp("node", "ucx", "latency_us") + 4096 / pp("node", "ucx", "bandwidth_asymptotic_MBps")


def _tcp_size():
    from . import exercises as own_exercises

    source = inspect.getsource(own_exercises._pp_tcp)
    return 2**20 if "2**20" in source else float("nan")


@claim("pp-tcp-size", page="pingpong", unit="B", source="commbook.exercises pp-tcp (the message size)")
def _():
    return _tcp_size()


@claim("pp-tcp-effective", page="pingpong", unit="MB/s", source="commbook.exercises pp-tcp: n / t")
def _():
    return _tcp_size() / reference("pp-tcp")


@claim("pp-tcp-effective-share", page="pingpong", unit="%", source="commbook.exercises pp-tcp: (n / t) / b")
def _():
    return _tcp_size() / reference("pp-tcp") / pp("node", "ob1-tcp", "bandwidth_asymptotic_MBps") * 100


def _probe_max():
    """The largest size the eager probe tries, in bytes (check_eager's max_bytes, '4M')."""
    from ... import exercises

    default = inspect.signature(exercises.check_eager).parameters["max_bytes"].default
    return float(default.rstrip("M")) * 2**20


@claim(
    "pp-eager-probe-max",
    page="pingpong_lab",
    unit="B",
    source="commbook.exercises.check_eager: the largest size the probe tries (max_bytes)",
)
def _():
    return _probe_max()


@claim(
    "pp-eager-probe-steps",
    page="pingpong_lab",
    unit="",
    source="binary search up to the probe's largest size: ceil(log2(max + 1))",
)
def _():
    return math.ceil(math.log2(_probe_max() + 1))


# the lesson's fit of ORFEO's curve between two THIN nodes (UCX, Open MPI), on relative error
# and by plain least squares
@per_tables_dir
def _node_curve():
    from ... import orfeo
    from .figures import orfeo_curve

    curves, _ = orfeo.load("pingpong")
    return orfeo_curve(curves, "node", "ucx")


@per_tables_dir
def _node_fits():
    from ... import fit

    g = _node_curve()
    n, t = g["size_bytes"].to_numpy(float), g["t_us"].to_numpy(float)
    return fit.fit_hockney(n, t, n_boot=0), fit.ols_hockney(n, t)


for _name, _which, _attr, _unit in [
    ("pp-fit-node-lambda", 0, "lambda_us", "us"),
    ("pp-fit-node-b", 0, "bandwidth_MBps", "MB/s"),
    ("pp-ols-node-lambda", 1, "lambda_us", "us"),
]:
    claim(_name, page="pingpong", unit=_unit, source=CURVES + ": commbook.fit on relative / absolute error")(
        lambda w=_which, a=_attr: float(getattr(_node_fits()[w], a))
    )


# the validation page's ping-pong result, quoted by the lesson
def _validation(method):
    from ... import validate

    s = validate.summary()
    return s[(s.model == "ping-pong") & s.split.str.startswith("sizes") & (s.method == method)].iloc[0]


VALIDATION = "data/validation/ (commbook validate all --write): even sizes fitted, odd predicted"
claim("pp-val-curves", page="pingpong", unit="", source=VALIDATION)(
    lambda: float(_validation("piecewise predictive").cases)
)
claim("pp-val-piecewise-error", page="pingpong", unit="%", source=VALIDATION)(
    lambda: 100 * float(_validation("piecewise predictive").median_error)
)
claim("pp-val-piecewise-within", page="pingpong", unit="%", source=VALIDATION)(
    lambda: 100 * float(_validation("piecewise predictive").share_within)
)
claim("pp-val-interp-error", page="pingpong", unit="%", source=VALIDATION)(
    lambda: 100 * float(_validation("interpolation").median_error)
)
claim("pp-val-bic-error", page="pingpong", unit="%", source=VALIDATION)(
    lambda: 100 * float(_validation("piecewise bic").median_error)
)


@claim("pp-machines-agree-tol", page="pingpong", unit="%", source="the tolerance pp-machines-agree-from uses")
def _():
    return 2.0


@claim(
    "pp-library-bandwidth-gap-max",
    page="pingpong",
    unit="%",
    source=SEED + ": largest gap between Open MPI and Intel MPI on the same kind of transport and placement",
)
def _():
    pairs = [("ucx", "mlx"), ("ob1-vader", "shm"), ("ob1-tcp", "tcp")]
    gaps = []
    for ompi, intel in pairs:
        for mapping in ("core", "socket", "node"):
            try:
                a = pp(mapping, ompi, "bandwidth_asymptotic_MBps")
                b = pp(mapping, intel, "bandwidth_asymptotic_MBps")
            except LookupError:
                continue  # no shared memory between nodes
            gaps.append(abs(b / a - 1) * 100)
    return max(gaps)
