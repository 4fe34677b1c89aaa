"""Claims of the Jacobi chapter (book/jacobi.md): the Scorcia report's figures, the ORFEO runs
(derived tables), the model's arithmetic, the recorded roofline benchmark, the kernels' code."""

from __future__ import annotations

import functools
import math
import re
from pathlib import Path

from ... import config
from ...claims import claim
from ...claims.sources import seed_value

PAGE = "jacobi"
LAB = "jacobi_lab"
SEED = "data/orfeo/jacobi_seed.csv (Scorcia report, sec. 3)"
RUNS = "data/orfeo/derived/jacobi (ORFEO Jacobi runs) and commbook.models.jacobi.orfeo_comparison"
MODEL = "commbook.models.jacobi with the Scorcia report's parameters (data/orfeo/jacobi_seed.csv)"
ROOFLINE_BENCH = "benchmarks/results/jacobi_roofline.txt"
L_REPORT = 1200


def _seed(configuration: str, quantity: str, machine: str = "orfeo-thin") -> float:
    return seed_value("jacobi_seed", "value", machine=machine, configuration=configuration, quantity=quantity)


def t_s() -> float:
    return _seed("1 process", "T_s")


def _node_params():
    return t_s(), _seed("2 THIN nodes map by node (ucx)", "T_l"), _seed("2 THIN nodes map by node (ucx)", "B/2")


@functools.lru_cache(maxsize=1)
def _comparison():
    from ... import orfeo
    from ...models import jacobi as jm

    runs, _ = orfeo.load("jacobi")
    return jm.orfeo_comparison(runs, orfeo.summary_table("jacobi_seed"))


def _consistent(N: int = 24):
    from ...models import jacobi as jm

    T_s, T_l, B_half = _node_params()
    return jm.JacobiModel(L_REPORT, N, T_s, 2 * B_half, T_l, 3, periodic=True)  # k = 6, as the report


# --- the report's figures -------------------------------------------------------------------
@claim("jac-ts-thin", page=PAGE, unit="s", source=SEED)
def _():
    return t_s()


@claim("jac-tl-node", page=PAGE, unit="us", source=SEED)
def _():
    return _node_params()[1]


@claim("jac-b-half-node", page=PAGE, unit="MB/s", source=SEED)
def _():
    return _node_params()[2]


@claim("jac-measured-24-thin", page=PAGE, unit="MLUP/s", source=SEED)
def _():
    return _measured24()


@claim("jac-report-underestimate-small", page=PAGE, unit="MLUP/s", source=SEED)
def _():
    return -max(_report_misses())


@claim("jac-report-underestimate-large", page=PAGE, unit="", source=SEED)
def _():
    return -min(_report_misses())


def _report_misses():
    from ... import orfeo

    t = orfeo.summary_table("jacobi_seed")
    return [float(v) for v in t[(t.configuration == "all other runs") & (t.quantity == "model_minus_measured")].value]


@claim("jac-report-gpu48-over", page=PAGE, unit="MLUP/s", source=SEED)
def _():
    return seed_value(
        "jacobi_seed",
        "value",
        machine="orfeo-gpu",
        configuration="1 GPU node (hyperthreading)",
        quantity="model_minus_measured",
    )


@claim("jac-report-model-24", page=PAGE, unit="MLUP/s", source=MODEL)
def _():
    from ...models import jacobi as jm

    T_s, T_l, B_half = _node_params()
    k = jm.faces(jm.dims_create(24), periodic=True)
    return jm.report_expected_mlups(L_REPORT, 24, T_s, k, B_half, T_l)


# --- what the report's numbers imply ---------------------------------------------------------
@claim("jac-single-mlups", page=PAGE, unit="MLUP/s", source=SEED)
def _():
    return L_REPORT**3 / t_s() / 1e6


@claim("jac-planes-1200-MB", page=(PAGE, LAB), unit="MB", source="3 planes of 1200^2 doubles")
def _():
    return 3 * L_REPORT**2 * 8 / 1e6


@claim("jac-single-draw-GBps", page=PAGE, unit="GB/s", rel_tol=0.02, source=SEED + ", 40 B/LUP")
def _():
    from ...models import jacobi as jm

    return L_REPORT**3 / t_s() * jm.code_balance(layer_condition=False) / 1e9


def _thin_strong(np_: int, mapping: str = "core") -> float:
    c = _comparison()
    rows = c[
        (c.machine == "orfeo-thin")
        & (c.scaling == "strong")
        & (c.np == np_)
        & (c.mapping == mapping)
        & c.source.str.contains("MatteoScorcia")
    ]
    if len(rows) != 1:
        raise LookupError(f"{len(rows)} Scorcia runs on THIN with {np_} processes by {mapping}")
    return float(rows.measured_mlups.iloc[0])


@claim("jac-socket-speedup", page=PAGE, unit="times", source=RUNS + " (Scorcia runs, map by core)")
def _():
    return _thin_strong(12) / _thin_strong(1)


@claim("jac-socket-draw-GBps", page=PAGE, unit="GB/s", rel_tol=0.03, source=RUNS + ", 40 B/LUP")
def _():
    from ...models import jacobi as jm

    return _thin_strong(12) * 1e6 * jm.code_balance(layer_condition=False) / 1e9


@claim("jac-bw-term-factor", page=PAGE, unit="times", source=MODEL + " (report_expected_mlups)")
def _():
    return 2 * _report_bw_term_ratio()


@claim("jac-bw-term-halved", page=PAGE, unit="times", source=MODEL + " (report_expected_mlups)")
def _():
    return _report_bw_term_ratio()


def _report_bw_term_ratio() -> float:
    """The report's bandwidth term over the consistent one, recovered from the reproduced
    'expected' value: T_c' = L^3 N / P' - T_s, minus its (halved) latency term."""
    from ...models import jacobi as jm

    T_s, T_l, B_half = _node_params()
    k = jm.faces(jm.dims_create(24), periodic=True)
    P = jm.report_expected_mlups(L_REPORT, 24, T_s, k, B_half, T_l) * 1e6
    Tc = L_REPORT**3 * 24 / P - T_s
    bw_term = Tc - k * T_l * 1e-6 / 2
    return bw_term / (jm.comm_bytes(L_REPORT, k) / (2 * B_half * 1e6))


# --- the jac-orfeo exercise's solution ---------------------------------------------------------
@claim("jac-orfeo-c-MB", page=PAGE, unit="MB", source=MODEL)
def _():
    return _consistent().comm_bytes / 1e6


@claim("jac-orfeo-cB-ms", page=PAGE, unit="ms", source=MODEL)
def _():
    m = _consistent()
    return m.comm_bytes / (m.bandwidth_MBps * 1e6) * 1e3


@claim("jac-orfeo-kTl-us", page=PAGE, unit="us", source=MODEL)
def _():
    m = _consistent()
    return m.k * m.latency_us


@claim("jac-orfeo-Tc-ms", page=PAGE, unit="ms", source=MODEL)
def _():
    return _consistent().T_c * 1e3


@claim("jac-orfeo-P", page=PAGE, unit="MLUP/s", source=MODEL)
def _():
    return _consistent().mlups


@claim("jac-orfeo-over-measured", page=PAGE, unit="%", source=MODEL + " and the report's 2650")
def _():
    return 100 * (_consistent().mlups / _measured24() - 1)


@claim("jac-orfeo-report-under", page=PAGE, unit="%", source=MODEL + " and the report's 2650")
def _():
    from ...models import jacobi as jm

    T_s, T_l, B_half = _node_params()
    k = jm.faces(jm.dims_create(24), periodic=True)
    return 100 * (1 - jm.report_expected_mlups(L_REPORT, 24, T_s, k, B_half, T_l) / _measured24())


@claim("jac-orfeo-comm-share", page=PAGE, unit="%", source=MODEL)
def _():
    return 100 * _consistent().comm_share


def _measured24() -> float:
    return seed_value("jacobi_seed", "value", machine="orfeo-thin", configuration="2 THIN nodes", quantity="measured")


# --- the jac-decomp exercise's solution ----------------------------------------------------------
def _busiest_bytes(grid) -> float:
    from ...models import jacobi as jm

    return jm.strong_halo_bytes(240, grid)


@claim("jac-decomp-slabs", page=PAGE, unit="B", source="commbook.models.jacobi.strong_halo_bytes(240, 8x1x1)")
def _():
    return _busiest_bytes((8, 1, 1))


@claim("jac-decomp-pencils", page=PAGE, unit="B", source="commbook.models.jacobi.strong_halo_bytes(240, 4x2x1)")
def _():
    return _busiest_bytes((4, 2, 1))


@claim("jac-decomp-cubes", page=PAGE, unit="B", source="commbook.models.jacobi.strong_halo_bytes(240, 2x2x2)")
def _():
    return _busiest_bytes((2, 2, 2))


# --- code and recorded benchmark ---------------------------------------------------------------
def _kernel_table(name: str) -> list[int]:
    text = (config.kernels_dir() / "stream.c").read_text(encoding="utf-8")
    m = re.search(rf"static const int {name}\[NKERNELS\] = \{{([^}}]*)\}}", text)
    if not m:
        raise LookupError(f"kernels_c/stream.c: no {name} table")
    return [int(x) for x in m.group(1).split(",")]


@claim("jac-copy-bytes-wa", page=PAGE, unit="B", source="kernels_c/stream.c, MOVED[copy] x 8 bytes")
def _():
    return _kernel_table("MOVED")[0] * 8


@claim("jac-ts-256-MB", page=LAB, unit="MB", source="256^3 updates x 24 B/LUP")
def _():
    return 256**3 * 24 / 1e6


@claim("jac-planes-256-MB", page=(PAGE, LAB), unit="MB", source="3 planes of 256^2 doubles")
def _():
    return 3 * 256**2 * 8 / 1e6


@claim("jac-jacobi-factor-40", page=PAGE, unit="", source="cos(pi / (L + 1)) for L = 40")
def _():
    return math.cos(math.pi / 41)


def _roofline_ratio(variant: str) -> float:
    root = config.checkout()
    if root is None:
        raise LookupError(f"{ROOFLINE_BENCH} is in the checkout only")
    for line in (Path(root) / ROOFLINE_BENCH).read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            continue
        cells = re.split(r"\s{2,}", line.strip())
        if cells and cells[0] == variant:
            return float(cells[-1])
    raise LookupError(f"{ROOFLINE_BENCH}: no variant {variant!r}")


@claim("jac-bench-roofline-O3", page=PAGE, unit="%", rel_tol=0.05, source=ROOFLINE_BENCH)
def _():
    return 100 * _roofline_ratio("-O3")


@claim("jac-bench-roofline-native", page=PAGE, unit="%", source=ROOFLINE_BENCH)
def _():
    return 100 * _roofline_ratio("-O3 -march=native")


@claim("jac-face-bytes", page=LAB, unit="B", source="commbook.exercises jac-face (a 96^3 grid split 2x2x1)")
def _():
    from ...exercises import expected

    return expected("jac-face")
