"""Performance models of a domain-decomposed 3-D Jacobi solver, and the roofline behind T_s.

**The report's model** (Scorcia's report, sec. 3; the domain-decomposition model discussed by Hager &
Wellein, *Introduction to High Performance Computing for Scientists and Engineers*), for N
processes that each own an L^3 sub-domain (weak scaling):

    P(L, N) = L^3 N / (T_s + T_c(L, N))          lattice updates per second (MLUP/s = 1e-6 P)
    T_c(L, N) = c(L, N) / B + k T_l
    c(L, N) = L^2 k 2 8 bytes                    k faces, each sent and received, 8 B per double

T_s is the time of one sweep over L^3 points on one process, k the number of faces a process
exchanges (the busiest one), B the full-duplex bandwidth (the report doubles the ping-pong
bandwidth: "B/2 = 6220 MB/s") and T_l the latency. Units here: seconds, bytes, MB/s = 1e6 B/s,
µs for latency (as in the ping-pong chapter).

:func:`report_expected_mlups` reproduces the report's own "expected performance" column, which
its formula with consistent units does not (see the docstring). :func:`strong_mlups` is the
model for what the ORFEO runs actually did: a fixed 1200^3 grid split over N processes.

**The roofline** explains T_s: a sweep is limited by memory bandwidth b_S divided by the code
balance B_c (bytes moved per lattice update, LUP):

* layer condition satisfied (three planes of the grid fit in a cache): each value of the source
  array is read from memory once: 8 B read + 8 B written = 16 B/LUP, or 24 B/LUP when the store
  first reads the target line into cache (write-allocate);
* layer condition violated: the planes i-1 and i+1 come from memory again: 24 B read + 8 B
  written = 32 B/LUP, 40 B/LUP with write-allocate.

Every function here is a model: its curves are labelled as such in the book.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import asdict, dataclass

BYTES_PER_DOUBLE = 8

# --------------------------------------------------------------------------------------------
# Checked inputs


def _positive(name: str, value, allow_zero: bool = False) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, not {value!r}") from None
    if not math.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be finite and {bound}, not {value!r}")
    return v


def _count(name: str, value, minimum: int = 1) -> int:
    try:
        v = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a whole number, not {value!r}") from None
    if v != value and not (isinstance(value, float) and value.is_integer()):
        raise ValueError(f"{name} must be a whole number, not {value!r}")
    if v < minimum:
        raise ValueError(f"{name} must be at least {minimum}, not {value!r}")
    return v


# --------------------------------------------------------------------------------------------
# Decompositions


def parse_grid(text) -> tuple[int, int, int]:
    """'2x2x1' -> (2, 2, 1); missing trailing factors are 1. Refuses junk with a clear message."""
    if isinstance(text, (tuple, list)):
        parts = list(text)
    else:
        parts = [p for p in str(text).strip().lower().split("x")]
    if not 1 <= len(parts) <= 3:
        raise ValueError(f"process grid {text!r} is not of the form AxBxC")
    try:
        dims = [int(p) for p in parts]
    except ValueError:
        raise ValueError(f"process grid {text!r} is not of the form AxBxC") from None
    if any(d < 1 for d in dims):
        raise ValueError(f"process grid {text!r} has a factor below 1")
    return tuple(dims + [1] * (3 - len(dims)))


def dims_create(n: int, ndims: int = 3) -> tuple[int, int, int]:
    """The most balanced grid of n processes over ndims dimensions (1, 2 or 3), largest first.

    This is what MPI_Dims_create aims for ("as close to each other as possible"); the kernel uses
    the MPI library's own call, which gives the same grids for the sizes used in this book.
    """
    n = _count("number of processes", n)
    ndims = _count("number of decomposed dimensions", ndims)
    if ndims > 3:
        raise ValueError(f"a 3-D grid has at most 3 decomposed dimensions, not {ndims}")
    divisors = [d for d in range(1, n + 1) if n % d == 0]
    best = None
    for head in itertools.product(divisors, repeat=ndims - 1):
        rest, r = divmod(n, math.prod(head))
        if r:
            continue
        dims = head + (rest,)
        key = (max(dims) - min(dims), sorted(dims, reverse=True))
        if best is None or key < best[0]:
            best = (key, tuple(sorted(dims, reverse=True)))
    return tuple(list(best[1]) + [1] * (3 - ndims))


def faces(grid, periodic: bool = False) -> int:
    """Faces the busiest process exchanges: k in the model.

    Fixed boundaries (this book's kernel): a dimension split in 2 gives every process one
    neighbour, split in 3 or more gives the middle ones two. Periodic boundaries (the course
    code the ORFEO runs used): any split dimension gives two neighbours, so k = 2, 4, 6 for
    1-D, 2-D, 3-D decompositions, the k the report used.
    """
    dims = parse_grid(grid)
    if periodic:
        return sum(2 for p in dims if p > 1)
    return sum(min(p - 1, 2) for p in dims)


def local_extent(L: int, p: int) -> int:
    """Largest block of L points split over p processes (the first L % p get one extra)."""
    return -(-L // p)


# --------------------------------------------------------------------------------------------
# The report's model (weak scaling)


def comm_bytes(L: int, k: int) -> float:
    """c(L, N) = L^2 k 2 8: bytes one process sends and receives per sweep."""
    L = _count("L", L)
    k = _count("k (faces)", k, minimum=0)
    return float(L) ** 2 * k * 2 * BYTES_PER_DOUBLE


def comm_time_s(L: int, k: int, bandwidth_MBps: float, latency_us: float) -> float:
    """T_c = c / B + k T_l in seconds, with B in MB/s (full duplex) and T_l in µs."""
    B = _positive("bandwidth B (MB/s)", bandwidth_MBps)
    Tl = _positive("latency T_l (µs)", latency_us, allow_zero=True)
    return comm_bytes(L, k) / (B * 1e6) + k * Tl * 1e-6


def performance_mlups(L: int, N: int, T_s: float, k: int, bandwidth_MBps: float, latency_us: float) -> float:
    """P(L, N) in MLUP/s: N processes, each an L^3 sub-domain, T_s seconds per sweep alone."""
    N = _count("N (processes)", N)
    T_s = _positive("T_s (s)", T_s)
    Tc = comm_time_s(L, k, bandwidth_MBps, latency_us) if N > 1 else 0.0
    return 1e-6 * float(L) ** 3 * N / (T_s + Tc)


@dataclass(frozen=True)
class JacobiModel:
    """The report's P(L, N) with its parameters; a model, not a measurement.

    decomposition: number of decomposed dimensions (1, 2, 3) or an explicit grid 'AxBxC';
    periodic: count faces as the course code did (see :func:`faces`).
    """

    L: int
    N: int
    T_s: float
    bandwidth_MBps: float
    latency_us: float
    decomposition: object = 3
    periodic: bool = False

    def __post_init__(self):
        _count("L", self.L)
        _count("N (processes)", self.N)
        _positive("T_s (s)", self.T_s)
        _positive("bandwidth B (MB/s)", self.bandwidth_MBps)
        _positive("latency T_l (µs)", self.latency_us, allow_zero=True)
        grid = self.grid  # validates the decomposition
        if math.prod(grid) != self.N:
            raise ValueError(f"process grid {grid} has {math.prod(grid)} processes, not N = {self.N}")

    @property
    def grid(self) -> tuple[int, int, int]:
        d = self.decomposition
        if isinstance(d, str) and "x" in d.lower() or isinstance(d, (tuple, list)):
            return parse_grid(d)
        return dims_create(self.N, int(d))

    @property
    def k(self) -> int:
        return faces(self.grid, self.periodic)

    @property
    def comm_bytes(self) -> float:
        return comm_bytes(self.L, self.k)

    @property
    def T_c(self) -> float:
        return comm_time_s(self.L, self.k, self.bandwidth_MBps, self.latency_us) if self.N > 1 else 0.0

    @property
    def mlups(self) -> float:
        return 1e-6 * float(self.L) ** 3 * self.N / (self.T_s + self.T_c)

    @property
    def efficiency(self) -> float:
        """P(L, N) / (N P(L, 1)) = T_s / (T_s + T_c)."""
        return self.T_s / (self.T_s + self.T_c)

    @property
    def comm_share(self) -> float:
        """Fraction of a sweep spent communicating: T_c / (T_s + T_c)."""
        return self.T_c / (self.T_s + self.T_c)

    def as_dict(self) -> dict:
        d = asdict(self)
        d["decomposition"] = str(d["decomposition"])
        d.update(
            grid="x".join(map(str, self.grid)),
            k=self.k,
            comm_bytes=self.comm_bytes,
            T_c_s=self.T_c,
            mlups=self.mlups,
            efficiency=self.efficiency,
            comm_share=self.comm_share,
        )
        return d


def best_decomposition(L: int, N: int, periodic: bool = False) -> tuple[tuple[int, int, int], float]:
    """The grid of N processes with the least communication per process for an L^3 grid split
    over them (strong scaling): (grid, bytes the busiest process sends per sweep)."""
    L, N = _count("L", L), _count("N (processes)", N)
    best = None
    for a in range(1, N + 1):
        if N % a:
            continue
        for b in range(1, a + 1):
            if (N // a) % b or N // a // b > b:
                continue  # the cube is symmetric: only grids with a >= b >= c
            grid = (a, b, N // a // b)
            if any(p > L for p in grid):
                continue
            volume = strong_halo_bytes(L, grid, periodic)
            if best is None or volume < best[1] - 1e-9:
                best = (grid, volume)
    if best is None:
        raise ValueError(f"no process grid of {N} processes fits an L = {L} grid")
    return best


def strong_halo_bytes(L: int, grid, periodic: bool = False) -> float:
    """Bytes the busiest process sends per sweep when an L^3 grid is split over `grid`."""
    dims = parse_grid(grid)
    ext = [local_extent(L, p) for p in dims]
    total = 0.0
    for d, p in enumerate(dims):
        nb = (2 if p > 1 else 0) if periodic else min(p - 1, 2)
        area = math.prod(ext) / ext[d]
        total += nb * area * BYTES_PER_DOUBLE
    return total


def strong_mlups(L: int, grid, T_s: float, bandwidth_MBps: float, latency_us: float, periodic: bool = False) -> float:
    """MLUP/s of a fixed L^3 grid split over `grid` (strong scaling), the same model's terms:

    t = T_s * (largest block / L^3) + c_busiest / B + k T_l,  P = L^3 / t,
    with c_busiest counting both directions as the report's c does (2 x the bytes sent).
    """
    L = _count("L", L)
    dims = parse_grid(grid)
    T_s = _positive("T_s (s)", T_s)
    B = _positive("bandwidth B (MB/s)", bandwidth_MBps)
    Tl = _positive("latency T_l (µs)", latency_us, allow_zero=True)
    block = math.prod(local_extent(L, p) for p in dims)
    k = faces(dims, periodic)
    Tc = 2 * strong_halo_bytes(L, dims, periodic) / (B * 1e6) + k * Tl * 1e-6
    return 1e-6 * float(L) ** 3 / (T_s * block / float(L) ** 3 + Tc)


def report_expected_mlups(L: int, N: int, T_s: float, k: int, bandwidth_half_MBps: float, latency_us: float) -> float:
    """The seed report's "expected performance" column, reproduced.

    The report states P = L^3 N / (T_s + T_c), T_c = c/B + k T_l, c = L^2 k 2 8 and feeds it
    B/2 (the ping-pong bandwidth) and T_l from its section 2. Its tabulated values (in the raw
    data: matteoscorcia/assignment1/section3/csv) are matched to 1e-9 only by

        T_c' = ( c / (B * 1e3) + k T_l ) / 2,    B = 2 (B/2) in MB/s, T_l in s,

    i.e. the bandwidth term is 500 times the consistent-unit value c / (B * 1e6) (the bytes
    divided by B read as kB/s, then halved) and the latency term is halved. This is our
    reconstruction of the arithmetic, inferred from the numbers; the report does not show it.
    With consistent units T_c is about 1/1000 of T_s at L = 1200 (see :func:`performance_mlups`).
    """
    N = _count("N (processes)", N)
    T_s = _positive("T_s (s)", T_s)
    B = 2 * _positive("B/2 (MB/s)", bandwidth_half_MBps)
    Tl = _positive("latency T_l (µs)", latency_us, allow_zero=True) * 1e-6
    Tc = 0.5 * (comm_bytes(L, k) / (B * 1e3) + k * Tl)
    return 1e-6 * float(L) ** 3 * N / (T_s + Tc)


# --------------------------------------------------------------------------------------------
# Roofline for T_s


def code_balance(layer_condition: bool = True, write_allocate: bool = True) -> float:
    """Bytes of memory traffic per lattice update of the 7-point Jacobi sweep (doubles)."""
    reads = 1 if layer_condition else 3
    writes = 2 if write_allocate else 1
    return float((reads + writes) * BYTES_PER_DOUBLE)


def layer_condition_holds(ny: int, nz: int, cache_bytes: float, safety: float = 0.5) -> bool:
    """True if three planes of (ny+2) x (nz+2) doubles fit in `safety` x the cache.

    The factor 1/2 is the usual allowance for the target array and imperfect replacement
    (Hager & Wellein); the planes are the innermost two dimensions of the loop nest.
    """
    ny, nz = _count("ny", ny), _count("nz", nz)
    cache = _positive("cache size (bytes)", cache_bytes)
    return 3 * (ny + 2) * (nz + 2) * BYTES_PER_DOUBLE <= safety * cache


def roofline_mlups(bandwidth_MBps: float, balance_B_per_LUP: float) -> float:
    """Memory-bound ceiling: bandwidth / code balance (MB/s over B/LUP = MLUP/s)."""
    return _positive("memory bandwidth (MB/s)", bandwidth_MBps) / _positive("code balance (B/LUP)", balance_B_per_LUP)


def ts_from_roofline(L: int, bandwidth_MBps: float, balance_B_per_LUP: float) -> float:
    """The shortest T_s (s) for one sweep over L^3 points the memory bandwidth allows."""
    L = _count("L", L)
    return float(L) ** 3 / (roofline_mlups(bandwidth_MBps, balance_B_per_LUP) * 1e6)


# --------------------------------------------------------------------------------------------
# Reading kernel output


def kernel_summary(out) -> dict:
    """The numbers of one jacobi3d run (a commbook.kernels.KernelOutput) as a flat dict."""
    if out.table is None or len(out.table) != 1:
        raise ValueError("jacobi3d output should have exactly one row")
    row = out.table.iloc[0].to_dict()
    for key in ("error_rms_history", "residual_rms_history"):
        text = out.meta.get(key, "")
        row[key] = [float(x) for x in text.split()] if text else []
    return row


def summary_line(out) -> str:
    """The one line `commbook measure jacobi` prints after the table."""
    r = kernel_summary(out)
    share = r["halo_us"] / r["t_median_us"] if r["t_median_us"] > 0 else float("nan")
    scaling = "weak, L^3 per rank" if int(r.get("weak", 0)) else "strong"
    return (
        f"jacobi: {r['mlups']:.1f} MLUP/s (best {r['mlups_best']:.1f}) on {int(r['np'])} "
        f"ranks, grid {r['grid']}, L = {int(r['L'])} ({scaling}), {int(r['sweeps'])} sweeps; "
        f"per sweep {r['t_median_us']:.1f} µs = compute {r['compute_us']:.1f} + halo "
        f"{r['halo_us']:.1f} ({share:.0%}); residual {r['residual_rms']:.6e}, error vs exact "
        f"{r['error_rms']:.6e} (from {r['error0_rms']:.6e}); checksum {r['checksum']}"
    )


# --------------------------------------------------------------------------------------------
# The ORFEO runs against the model

#: which row of data/orfeo/jacobi_seed.csv gives T_l and B/2 for runs on (machine, mapping).
#: The report gives one pair for the GPU node (its runs stayed inside one node); we use it for
#: every mapping there: the communication term is about 1/1000 of a sweep, so this choice does
#: not show in the predictions.
SEED_CONFIGURATIONS = {
    ("orfeo-thin", "core"): "1 THIN node map by core (ucx)",
    ("orfeo-thin", "socket"): "1 THIN node map by socket (ucx)",
    ("orfeo-thin", "node"): "2 THIN nodes map by node (ucx)",
    ("orfeo-gpu", "node"): "1 GPU node map by node (ucx)",
    ("orfeo-gpu", "core"): "1 GPU node map by node (ucx)",
    ("orfeo-gpu", "socket"): "1 GPU node map by node (ucx)",
}
REPORT_L = 1200  # the grid of the report's runs: 1200^3 split over the processes


def seed_parameters(seed) -> dict:
    """{(machine, mapping): (T_s s at L = 1200, T_l µs, B/2 MB/s)} from the jacobi_seed table."""
    ts = {r["machine"]: float(r["value"]) for _, r in seed[seed["quantity"] == "T_s"].iterrows()}
    out = {}
    for key, conf in SEED_CONFIGURATIONS.items():
        rows = seed[seed["configuration"] == conf]
        q = dict(zip(rows["quantity"], rows["value"]))
        if "T_l" in q and "B/2" in q and key[0] in ts:
            out[key] = (ts[key[0]], float(q["T_l"]), float(q["B/2"]))
    return out


def run_times(
    global_dims, grid, t_lup_s: float, bandwidth_MBps: float, latency_us: float, periodic: bool = False
) -> tuple[float, float]:
    """(compute, communication) seconds per sweep of the busiest process of any run shape:
    its block at t_lup_s seconds per point, then its faces (both directions counted, as the
    report's c): T_c = 2 * bytes_sent / B + k T_l."""
    G = [_count("global grid extent", g) for g in global_dims]
    dims = parse_grid(grid)
    t_lup = _positive("time per lattice update (s)", t_lup_s)
    B = _positive("bandwidth B (MB/s)", bandwidth_MBps)
    Tl = _positive("latency T_l (µs)", latency_us, allow_zero=True)
    if any(p > g for p, g in zip(dims, G)):
        raise ValueError(f"process grid {dims} does not fit the grid {G}")
    ext = [-(-g // p) for g, p in zip(G, dims)]
    sent = 0.0
    for d, p in enumerate(dims):
        nb = (2 if p > 1 else 0) if periodic else min(p - 1, 2)
        sent += nb * math.prod(ext) / ext[d] * BYTES_PER_DOUBLE
    Tc = 2 * sent / (B * 1e6) + faces(dims, periodic) * Tl * 1e-6 if math.prod(dims) > 1 else 0.0
    return t_lup * math.prod(ext), Tc


def predict_run(
    global_dims, grid, t_lup_s: float, bandwidth_MBps: float, latency_us: float, periodic: bool = False
) -> float:
    """MLUP/s of one run of any shape (strong or weak scaling): points / (compute + T_c) of the
    busiest process, see :func:`run_times`."""
    compute, comm = run_times(global_dims, grid, t_lup_s, bandwidth_MBps, latency_us, periodic)
    return 1e-6 * math.prod(parse_grid(global_dims) if isinstance(global_dims, str) else global_dims) / (compute + comm)


def _shape_of(params: dict, np_: int, t_us: float):
    """(global dims, grid, recorded?) of a run: from grid= and L= when the file recorded them,
    else inferred from its MLUP/s (points = MLUP/s x t): 1200^3 in all (strong) or per process
    (weak), with the grid MPI_Dims_create gives, which is what the course code uses."""
    if "grid" in params and "L" in params:
        return parse_grid(params["L"]), parse_grid(params["grid"]), True
    try:
        points = float(params["mlups"]) * t_us
    except (KeyError, ValueError):
        return None
    grid = dims_create(np_)
    if abs(points / REPORT_L**3 - 1) < 0.02:
        return (REPORT_L,) * 3, grid, False
    if abs(points / (np_ * REPORT_L**3) - 1) < 0.02:
        return tuple(REPORT_L * p for p in grid), grid, False
    return None


def orfeo_comparison(runs, seed, periodic: bool = True):
    """The ORFEO Jacobi runs (tidy rows of benchmark jacobi) next to:

    * report_mlups: the report's tabulated arithmetic (1200^3 runs only, see report_expected_mlups);
    * formula_mlups: the report's formula P(1200, N) with consistent units (1200^3 runs only);
    * model_mlups: :func:`predict_run` for the run's real shape (strong or weak scaling), with
      the time per point T_s / 1200^3 of the same node type.

    The shape comes from the file (grid= and L= in params) or, for files that only recorded
    MLUP/s, is inferred (``grid_recorded`` False). When a run recorded its compute time
    (jacobimin/jacobimax, seconds), ``noncompute_s`` = sweep - slowest compute and
    ``imbalance_s`` = slowest - fastest compute sit next to the model's ``model_Tc_s``.
    Runs on a (machine, mapping) the report gave no link parameters for are left out, and so are
    rows with no recognisable shape (counted in ``df.attrs["skipped"]``).
    """
    import pandas as pd

    from ..data import params_to_dict

    params = seed_parameters(seed)
    rows, skipped = [], 0
    for _, r in runs.iterrows():
        key = (r["machine"], r["mapping"])
        if r["benchmark"] != "jacobi" or key not in params:
            continue
        p = params_to_dict(r["params"])
        N, t_us = int(r["np"]), float(r["t_us"])
        shape = _shape_of(p, N, t_us)
        if shape is None:
            skipped += 1  # not a sweep timing (e.g. a /usr/bin/time line of the same job)
            continue
        G, grid, recorded = shape
        T_s, T_l, B_half = params[key]
        k = faces(grid, periodic)
        cube = G[0] == G[1] == G[2] == REPORT_L
        t_lup = T_s / REPORT_L**3
        compute, comm = run_times(G, grid, t_lup, 2 * B_half, T_l, periodic)
        row = {
            "machine": r["machine"],
            "mapping": r["mapping"],
            "np": N,
            "grid": "x".join(map(str, grid)),
            "grid_recorded": recorded,
            "global": "x".join(map(str, G)),
            "scaling": "strong" if cube else "weak",
            "measured_mlups": 1e-6 * math.prod(G) / (t_us * 1e-6),
            "report_mlups": report_expected_mlups(REPORT_L, N, T_s, k, B_half, T_l) if cube else float("nan"),
            "formula_mlups": performance_mlups(REPORT_L, N, T_s, k, 2 * B_half, T_l) if cube else float("nan"),
            "model_mlups": 1e-6 * math.prod(G) / (compute + comm),
            "model_Tc_s": comm,
            "noncompute_s": float("nan"),
            "imbalance_s": float("nan"),
            "source": r.get("source", ""),
        }
        if "jacobimax" in p and "jacobimin" in p:
            row["noncompute_s"] = t_us * 1e-6 - float(p["jacobimax"])
            row["imbalance_s"] = float(p["jacobimax"]) - float(p["jacobimin"])
        rows.append(row)
    df = pd.DataFrame(rows)
    if len(df):
        df["model_over_measured"] = df["model_mlups"] / df["measured_mlups"]
        df = df.sort_values(["machine", "scaling", "mapping", "np"]).reset_index(drop=True)
    df.attrs["skipped"] = skipped
    return df
