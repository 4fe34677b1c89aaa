"""Claims of the ring chapter (book/ring.md): the ring model on ORFEO THIN nodes with the
Scorcia report's UCX figures, the two students' raw rings, the exercises."""

from __future__ import annotations

from ...claims import claim, reference_claim
from ...claims.sources import per_tables_dir, reference, seed_value

RINGS = "data/orfeo/derived ring tables (matteoscorcia/ring, francesc0rtu/ring)"
SEED = "data/orfeo/pingpong_seed.csv (Scorcia report, sec. 2), UCX, the report's fitted b"
RING_SEED = "data/orfeo/ring_seed.csv (Scorcia report, sec. 1)"


@per_tables_dir
def _thin():
    from ... import orfeo

    return orfeo.links("ucx"), orfeo.placement("orfeo-thin", map_by="core")


@per_tables_dir
def _rings(dataset: str):
    from ... import orfeo

    return orfeo.load(dataset)[0]


def _ring(dataset, algorithm):
    raw = _rings(dataset)
    return raw[raw.algorithm == algorithm]


def _first_ring_at(P):
    """The first student's non-blocking ring of P processes, µs."""
    return float(_ring("matteoscorcia/ring", "nonblocking").set_index("np").loc[P, "t_us"])


def _fit(dataset, algorithm):
    from ...models.ring import fit_ring
    from .figures import as_placed

    g = _ring(dataset, algorithm)
    return fit_ring(g["np"], g["t_us"], as_placed(_thin()[1], dataset))


def _model(P, dataset="francesc0rtu/ring"):
    """The UCX model's ring of P, the ranks placed as `dataset`'s were (by core unless named)."""
    from ...models.ring import ring_time
    from .figures import as_placed

    links, thin = _thin()
    return float(ring_time([P], 4, links, as_placed(thin, dataset))[0])


for _name, _value, _unit, _src in [
    ("ring-lambda-used", "lambda used in the model", "us", RING_SEED),
    ("ring-lambda-fitted", "lambda fitted to the data", "us", RING_SEED),
]:
    claim(_name, page="ring", unit=_unit, source=_src)(
        lambda q=_value: seed_value("ring_seed", "value_us", machine="orfeo-thin", quantity=q)
    )


@claim("ring-socket-minus-core", page="ring", unit="us", source=SEED + ": λ_socket - λ_core")
def _():
    links, _ = _thin()
    return links["socket"].lambda_us - links["core"].lambda_us


@claim(
    "ring-second-core-over-pingpong",
    page="ring",
    unit="times",
    source=RINGS + ": fitted λ (core) of the second student's non-blocking rings (--map-by core) over the ping-pong's",
)
def _():
    return _fit("francesc0rtu/ring", "nonblocking").lambda_us["core"] / _thin()[0]["core"].lambda_us


@claim(
    "ring-model-over-48",
    page="ring",
    unit="%",
    source=RINGS + ": the UCX model against the first student's ring at P = 48",
)
def _():
    return (_model(48, "matteoscorcia/ring") / _first_ring_at(48) - 1) * 100


@claim(
    "ring-francesc-node-lambda",
    page="ring",
    unit="us",
    source=RINGS + ": fitted λ (node) of the second student's non-blocking rings",
)
def _():
    return _fit("francesc0rtu/ring", "nonblocking").lambda_us["node"]


def _blocking_ratio():
    raw = _rings("francesc0rtu/ring")
    p = raw.pivot_table(index="np", columns="algorithm", values="t_us")
    return (p["blocking"] / p["nonblocking"]).dropna()


@claim(
    "ring-blocking-ratio-median",
    page="ring",
    unit="times",
    source=RINGS + ": blocking over non-blocking, median over P",
)
def _():
    return float(_blocking_ratio().median())


@claim("ring-blocking-ratio-min", page="ring", unit="times", source=RINGS + ": blocking over non-blocking, min over P")
def _():
    return float(_blocking_ratio().min())


@claim("ring-blocking-ratio-max", page="ring", unit="times", source=RINGS + ": blocking over non-blocking, max over P")
def _():
    return float(_blocking_ratio().max())


@claim(
    "ring-blocking-lambda-min",
    page="ring",
    unit="us",
    source=RINGS + ": fitted λ of the blocking rings, smallest class",
)
def _():
    return min(_fit("francesc0rtu/ring", "blocking").lambda_us.values())


@claim(
    "ring-blocking-lambda-max", page="ring", unit="us", source=RINGS + ": fitted λ of the blocking rings, largest class"
)
def _():
    return max(_fit("francesc0rtu/ring", "blocking").lambda_us.values())


@claim(
    "ring-fit-rms-first",
    page="ring",
    unit="%",
    source=RINGS + ": rms relative error of the per-class fit, first student",
)
def _():
    return _fit("matteoscorcia/ring", "nonblocking").rms_relative_error * 100


# exercises
reference_claim("ring-p25-time", "ring", "us", "ring-p25")


@claim("ring-p25-measured", page="ring", unit="us", source=RINGS + ": first student's ring at P = 25")
def _():
    return _first_ring_at(25)


@claim("ring-p25-over", page="ring", unit="%", source=RINGS + ": model over measured at P = 25")
def _():
    return (reference("ring-p25") / _first_ring_at(25) - 1) * 100


def _classes():
    links, _ = _thin()
    return links["socket"], links["node"]


def _socket_dearer_from(node_sharing):
    """The size (KB) above which a socket link costs more than a node link whose b is shared by
    `node_sharing` links: λ_s + n/b_s = λ_n + n·node_sharing/b_n."""
    s, n = _classes()
    return (n.lambda_us - s.lambda_us) / (1 / s.bandwidth_MBps - node_sharing / n.bandwidth_MBps) / 1e3


def _node_only_size():
    """The size at which a ring of 48 priced by the node link alone takes 1 ms: (1000/96 - λ_n) b_n."""
    _, n = _classes()
    return (1000 / 96 - n.lambda_us) * n.bandwidth_MBps


@claim("ring-socket-node-crossover", page="ring", unit="KB", source=SEED + ": λ_s + n/b_s = λ_n + n/b_n")
def _():
    return _socket_dearer_from(1)


@claim("ring-node-bandwidth", page="ring", unit="GB/s", source=SEED + ": node link")
def _():
    return _classes()[1].bandwidth_MBps / 1e3


@claim("ring-socket-bandwidth", page="ring", unit="GB/s", source=SEED + ": socket link")
def _():
    return _classes()[0].bandwidth_MBps / 1e3


reference_claim("ring-1ms-size", "ring", "B", "ring-1ms", rel_tol=0.002)
reference_claim("ring-1ms-size-KiB", "ring", "KiB", "ring-1ms", per=1024)


@claim("ring-1ms-latency-share", page="ring", unit="%", source="commbook.exercises ring-1ms: λ_s over a step")
def _():
    s, _ = _classes()
    n = reference("ring-1ms")
    return s.lambda_us / (s.lambda_us + n / s.bandwidth_MBps) * 100


@claim("ring-1ms-node-only-size", page="ring", unit="B", rel_tol=0.01, source=SEED + ": (1000/96 - λ_n) b_n")
def _():
    return _node_only_size()


@claim("ring-1ms-node-only-time", page="ring", unit="ms", source=SEED + ": the model's ring of 48 at that size")
def _():
    from ...models.ring import ring_time

    links, thin = _thin()
    return float(ring_time([48], _node_only_size(), links, thin)[0]) / 1e3


@claim(
    "ring-node-bandwidth-shared",
    page="ring",
    unit="GB/s",
    source=SEED + ": the node link's b shared by the two node-crossing links of the ring",
)
def _():
    return _classes()[1].bandwidth_MBps / 2 / 1e3


@claim(
    "ring-contended-crossover",
    page="ring",
    unit="KB",
    source=SEED + ": size above which the socket link is dearer than a node link at b_n / 2",
)
def _():
    return _socket_dearer_from(2)


@claim("ring-1ms-target", page="ring", unit="ms", source="commbook.exercises ring-1ms: the target time")
def _():
    import inspect
    import re

    from . import exercises as own_exercises

    m = re.search(r"_ring_size_for\(\s*48,\s*([\d.]+)\)", inspect.getsource(own_exercises._ring_1ms))
    return float(m.group(1)) / 1e3


@claim(
    "orfeo-epyc-cores-per-socket",
    page="ring",
    unit="",
    source="data/orfeo/hardware_seed.csv (EPYC row, students' job scripts and osu runs)",
)
def _():
    return seed_value("hardware_seed", "cores_per_socket", node_type="EPYC")


@claim(
    "ring-levels-from",
    page="ring",
    unit="",
    source=RINGS + ": the last P before the second student's non-blocking µs per step first jumps by half, once "
    "the ring has crossed into the second THIN node (the step at the crossing itself is the bump)",
)
def _():
    g = _ring("francesc0rtu/ring", "nonblocking").sort_values("np")
    per_step = (g["t_us"] / g["np"]).to_numpy()
    P = g["np"].to_numpy()
    node = seed_value("hardware_seed", "cores_per_node", node_type="THIN (Xeon Gold 6126)")
    return int(next(P[i - 1] for i in range(1, len(P)) if P[i - 1] > node and per_step[i] > 1.5 * per_step[i - 1]))


def _ratio(dataset, algorithm, lo, hi):
    """Measured over the UCX model for the rings of P = lo..hi of one series."""
    g = _ring(dataset, algorithm).set_index("np")["t_us"].sort_index().loc[lo:hi]
    return g / [_model(int(P), dataset) for P in g.index]


@claim("ring-p1-measured", page="ring", unit="us", source=RINGS + ": first student's ring at P = 1")
def _():
    return _first_ring_at(1)


@claim("ring-p1-model", page="ring", unit="us", source=SEED + ": the model's ring at P = 1, 2(λ_core + n/b_core)")
def _():
    return _model(1, "matteoscorcia/ring")


def _inside(fn):
    return fn(fn(_ratio(d, "nonblocking", 2, 24)) for d in ("matteoscorcia/ring", "francesc0rtu/ring"))


@claim(
    "ring-inside-ratio-min",
    page="ring",
    unit="",
    source=RINGS + ": measured over model, non-blocking, P = 2-24, each student's ranks placed as his job placed them",
)
def _():
    return float(_inside(min))


@claim(
    "ring-inside-ratio-max",
    page="ring",
    unit="",
    source=RINGS + ": measured over model, non-blocking, P = 2-24, each student's ranks placed as his job placed them",
)
def _():
    return float(_inside(max))


for _name, _fn in [("ring-first-socket-ratio-min", min), ("ring-first-socket-ratio-max", max)]:
    claim(
        _name,
        page="ring",
        unit="",
        source=RINGS + ": measured over model, matteoscorcia/ring, non-blocking, P = 3-24 (Open MPI 4's default "
        "placement: every link class in use is socket)",
    )(lambda f=_fn: float(f(_ratio("matteoscorcia/ring", "nonblocking", 3, 24))))


for _name, _dataset, _fn in [
    ("ring-first-node-ratio-min", "matteoscorcia/ring", min),
    ("ring-first-node-ratio-max", "matteoscorcia/ring", max),
    ("ring-second-node-ratio-min", "francesc0rtu/ring", min),
    ("ring-second-node-ratio-max", "francesc0rtu/ring", max),
]:
    claim(_name, page="ring", unit="", source=RINGS + f": measured over model, {_dataset}, non-blocking, P = 25-48")(
        lambda d=_dataset, f=_fn: float(f(_ratio(d, "nonblocking", 25, 48)))
    )


@claim(
    "ring-p25-measured-second", page="ring", unit="us", source=RINGS + ": second student's non-blocking ring at P = 25"
)
def _():
    return float(_ring("francesc0rtu/ring", "nonblocking").set_index("np").loc[25, "t_us"])
