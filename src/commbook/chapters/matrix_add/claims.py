"""Claims of the matrix-addition chapter (book/matrix_add.md): the two students' grid timings,
the scatter model with the Scorcia report's UCX figures, the exercises."""

from __future__ import annotations

import inspect
import re

from ...claims import claim, reference_claim
from ...claims.sources import per_tables_dir
from ...claims.sources import pingpong as pp

GRIDS = "data/orfeo/derived matrix_add tables (matteoscorcia, francesc0rtu)"
SEED = "data/orfeo/pingpong_seed.csv (Scorcia report, sec. 2)"


@per_tables_dir
def _grids():
    import pandas as pd

    from ... import orfeo
    from ...models import matrix as M

    return pd.concat(
        [M.grid_rows(orfeo.load(ds)[0]) for ds in ("matteoscorcia/matrix_add", "francesc0rtu/matrix_add")],
        ignore_index=True,
    )


def _times(student):
    g = _grids()
    return g[g.source_label == student].t_us


for _name, _student, _f, _unit, _what in [
    ("mat-second-min", "Francesc0rtu", "min", "ms", "fastest"),
    ("mat-second-max", "Francesc0rtu", "max", "ms", "slowest"),
    ("mat-first-median", "MatteoScorcia", "median", "ms", "median"),
]:
    claim(_name, page="matrix_add", unit=_unit, source=f"{GRIDS}: {_student}, {_what} over grids and shapes")(
        lambda s=_student, f=_f: getattr(_times(s), f)() / 1e3
    )


for _name, _student in [("mat-first-spread", "MatteoScorcia"), ("mat-second-spread", "Francesc0rtu")]:
    claim(_name, page="matrix_add", unit="%", source=f"{GRIDS}: {_student}, (max - min) / min")(
        lambda s=_student: (_times(s).max() / _times(s).min() - 1) * 100
    )


def _first():
    g = _grids()
    return g[g.source_label == "MatteoScorcia"]


@claim(
    "mat-first-topologies",
    page="matrix_add",
    unit="",
    source=GRIDS + ": MatteoScorcia, Cartesian topologies run per shape (2-D ones such as 12x2 included)",
)
def _():
    return int(_first().groupby("matrix").size().max())


@claim(
    "mat-first-grids",
    page="matrix_add",
    unit="",
    source=GRIDS + ": MatteoScorcia, distinct process grids (the topologies 12x2 and 12x2x1 are one grid)",
)
def _():
    return int(_first().grid.nunique())


@claim("mat-first-over-second", page="matrix_add", unit="times", source=GRIDS + ": medians")
def _():
    return _times("MatteoScorcia").median() / _times("Francesc0rtu").median()


def _moved_bytes(grid="24x1x1"):
    """The bytes the root scatters to the other 23 processes (every block but its own)."""
    from ...models import matrix as M

    blocks = M.block_sizes("2400x100x100", grid)
    return 8 * (int(blocks.sum()) - int(blocks.flat[0]))


def _first_rate():
    """The root's bytes (two scatters, a gather) over the first student's median time, in B/s."""
    return 3 * _moved_bytes() / (_times("MatteoScorcia").median() * 1e-6)


@claim(
    "mat-first-rate",
    page="matrix_add",
    unit="GB/s",
    source=GRIDS + ": the root's bytes (two scatters, a gather) over the first student's median",
)
def _():
    return _first_rate() / 1e9


@claim("mat-tcp-socket-bandwidth", page="matrix_add", unit="GB/s", source=SEED + ": Open MPI ob1-tcp by socket")
def _():
    return pp("socket", "ob1-tcp", "bandwidth_asymptotic_MBps") / 1e3


@claim("mat-ucx-core-bandwidth", page="matrix_add", unit="GB/s", source=SEED + ": UCX by core")
def _():
    return pp("core", "ucx", "bandwidth_asymptotic_MBps") / 1e3


@claim("mat-rate-below-min", page="matrix_add", unit="times", source=GRIDS + " and " + SEED)
def _():
    return pp("socket", "ob1-tcp", "bandwidth_asymptotic_MBps") / (_first_rate() / 1e6)


@claim("mat-rate-below-max", page="matrix_add", unit="times", source=GRIDS + " and " + SEED)
def _():
    return pp("core", "ucx", "bandwidth_asymptotic_MBps") / (_first_rate() / 1e6)


@claim(
    "mat-bytes-per-element",
    page=("matrix_add", "matrix_add_lab"),
    unit="B",
    source="commbook.models.matrix: A and B scattered, C gathered, 8-byte doubles",
)
def _():
    from ...models import matrix as M

    return 1.0 / M.speedup_limit(1.0, 1.0)  # speedup_limit(b, r) = b / (24 r)


@claim(
    "mat-halo-ratio",
    page="matrix_add",
    unit="times",
    source="commbook.models.matrix.halo_elements: 24x1x1 over the best grid, 100x100x100",
)
def _():
    from ...models import matrix as M

    shape = "100x100x100"
    return M.halo_elements(shape, "24x1x1") / M.halo_elements(shape, M.best_grid(shape, 24))


# the exercises
@claim("mat-orfeo-lambda", page="matrix_add", unit="us", source=SEED + ": UCX by socket")
def _():
    return pp("socket", "ucx", "latency_us")


@claim("mat-orfeo-b", page="matrix_add", unit="MB/s", source=SEED + ": UCX by socket, the report's fit")
def _():
    return pp("socket", "ucx", "bandwidth_fit_MBps")


@claim(
    "mat-orfeo-block", page="matrix_add", unit="MB", source="commbook.models.matrix.block_sizes(2400x100x100, 24x1x1)"
)
def _():
    from ...models import matrix as M

    return 8 * float(M.block_sizes("2400x100x100", "24x1x1").flat[0]) / 1e6


@claim("mat-orfeo-scatter-bw", page="matrix_add", unit="us", source=SEED + ": 23 blocks of 8 MB over b")
def _():
    return _moved_bytes() / pp("socket", "ucx", "bandwidth_fit_MBps")


reference_claim("mat-orfeo-total", "matrix_add", "us", "mat-orfeo", rel_tol=0.001)
reference_claim("mat-orfeo-total-ms", "matrix_add", "ms", "mat-orfeo", per=1e3)


@claim(
    "mat-orfeo-grid-change",
    page="matrix_add",
    unit="%",
    source="commbook.models.matrix: the exercise's time on 4x3x2 against 24x1x1",
)
def _():
    from ...models import matrix as M
    from ...models.hockney import Hockney

    link = Hockney(pp("socket", "ucx", "latency_us"), pp("socket", "ucx", "bandwidth_fit_MBps"))

    def comm(grid):
        return 3 * M.collective_time(24, _moved_bytes(grid), link)

    return abs(comm("4x3x2") / comm("24x1x1") - 1) * 100


def _pay_parameters():
    from . import exercises as own_exercises

    m = re.findall(r"speedup_limit\((\d+(?:\.\d+)?),\s*(\d+(?:\.\d+)?)\)", inspect.getsource(own_exercises._mat_pay))
    b, r = m[-1]
    return float(b), float(r)


def _rate_for_speedup_10():
    """The add rate r (elements per µs) at which 24 processes reach a speedup of 10 with the exercise's b."""
    b, _ = _pay_parameters()
    a = (24 / 10 - 1) / 23
    return a * b / 24


@claim("mat-pay-b", page="matrix_add", unit="MB/s", source="commbook.exercises mat-pay")
def _():
    return _pay_parameters()[0]


@claim(
    "mat-pay-slow-ns",
    page="matrix_add",
    unit="ns",
    source="commbook.exercises mat-pay: r for a speedup of 10 on 24 processes, 1/r",
)
def _():
    return 1e3 / _rate_for_speedup_10()


@claim(
    "mat-pay-slow-factor",
    page="matrix_add",
    unit="times",
    source="commbook.exercises mat-pay: the add rate over the rate a speedup of 10 needs",
)
def _():
    return _pay_parameters()[1] / _rate_for_speedup_10()


# the lesson's model of the ORFEO runs: transfers only (the seed data holds no ORFEO serial sum)
def _orfeo_transfers_ms(mapping, grid="24x1x1"):
    """Two scatters and a gather of 2400x100x100 over the report's UCX fit, in ms."""
    from ...models import matrix as M
    from ...models.hockney import Hockney

    link = Hockney(pp(mapping, "ucx", "latency_us"), pp(mapping, "ucx", "bandwidth_fit_MBps"))
    return 3 * M.collective_time(24, _moved_bytes(grid), link) / 1e3


for _name, _mapping in [("mat-model-core-ms", "core"), ("mat-model-socket-ms", "socket")]:
    claim(_name, page="matrix_add", unit="ms", source=f"{SEED}: UCX by {_mapping}, two scatters and a gather")(
        lambda m=_mapping: _orfeo_transfers_ms(m)
    )


@claim("mat-second-over-model", page="matrix_add", unit="%", source=GRIDS + " and " + SEED)
def _():
    """How far the second student's slowest run lies above the model's slower (socket) end."""
    return (_times("Francesc0rtu").max() / 1e3 / _orfeo_transfers_ms("socket") - 1) * 100
