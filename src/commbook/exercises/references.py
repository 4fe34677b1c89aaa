"""The references of the chapters' exercises, computed from the shipped data and the models."""
from __future__ import annotations

import functools
import math

from .core import _exercise

# ---------------------------------------------------------------------------------------
# The data the references are computed from


@functools.lru_cache(maxsize=None)
def _pingpong(mapping: str, transport: str, machine: str = "orfeo-thin", library: str = "Open MPI",
              bandwidth: str = "bandwidth_asymptotic_MBps"):
    """(λ µs, b MB/s) of one ping-pong row of data/orfeo/pingpong_seed.csv (b: the plateau, or
    the report's fit with bandwidth="bandwidth_fit_MBps")."""
    from .. import orfeo
    t = orfeo.summary_table("pingpong_seed")
    row = t[(t.machine == machine) & (t.mapping == mapping) & (t.transport == transport)
            & t.mpi_library.str.startswith(library)]
    if len(row) != 1:
        raise LookupError(f"pingpong_seed.csv: {len(row)} rows for {machine} {mapping} {transport}")
    r = row.iloc[0]
    return float(r.latency_us), float(r[bandwidth])


def _thin_ring():
    from .. import orfeo
    from ..models.ring import Placement, links_from_table
    hw = orfeo.summary_table("hardware_seed").set_index("node_type").loc["THIN (Xeon Gold 6126)"]
    links = links_from_table(orfeo.summary_table("pingpong_seed"), "orfeo-thin", "ucx",
                             library="Open MPI")
    return links, Placement(int(hw.cores_per_socket), int(hw.sockets), map_by="core")


def _ring_time(P: int, n: float) -> float:
    from ..models.ring import ring_time
    links, thin = _thin_ring()
    return float(ring_time([P], n, links, thin)[0])


def _ring_size_for(P: int, target_us: float) -> float:
    """The message size at which the THIN ring of P ranks takes target_us in the ring model."""
    from scipy.optimize import brentq
    return float(brentq(lambda n: _ring_time(P, n) - target_us, 0.0, 1e9, xtol=1e-3))


def _jacobi_thin_nodes():
    """(T_s, T_l, B/2) of the report's 2-THIN-node runs, from data/orfeo/jacobi_seed.csv."""
    from .. import orfeo
    from ..models import jacobi as jm
    return jm.seed_parameters(orfeo.summary_table("jacobi_seed"))[("orfeo-thin", "node")]



# ---------------------------------------------------------------------------------------
# The exercises of the book, chapter by chapter


@_exercise("pp-nhalf", "pingpong", rel_tol=0.05, unit="B",
           hint="n½ = λ·b; convert µs to s and MB/s to B/s first.")
def _pp_nhalf():
    return math.prod(_pingpong("node", "ucx")) * 1e-6 * 1e6


@_exercise("pp-tcp", "pingpong", rel_tol=0.03, unit="µs",
           hint="n/b with n in bytes and b in MB/s is already in µs.")
def _pp_tcp():
    lam, b = _pingpong("node", "ob1-tcp")
    return lam + 2**20 / b


@_exercise("data-gather", "data", kind="choice",
           hint="A gather of 1 byte stays below about 1 µs up to 48 processes on THIN.")
def _data_gather():
    """Which operation the files labelled "gather" measured: the one whose medians at 16, 32
    and 48 processes they are closest to (mean |log ratio|), from the raw ORFEO files."""
    import numpy as np
    from .. import orfeo

    def medians(dataset, algorithm=None):
        df = orfeo.load(dataset)[0]
        if "mapping" in df and algorithm is not None:
            df = df[(df.mapping == "core") & (df.algorithm == algorithm)]
        if not len(df):
            raise orfeo.DataUnavailable(f"no raw rows for {dataset} (fetch the ORFEO files)")
        return df.groupby("np").t_us.median().reindex([16, 32, 48]).to_numpy(float)

    labelled = medians("barbaralol/barrier")
    distance = {op: float(np.nanmean(np.abs(np.log(labelled / medians(ds, alg)))))
                for op, ds, alg in (("barrier", "giuliofantuzzi/barrier", "default"),
                                    ("gather", "marcobarrasso1/gather", "basic_linear"))}
    return min(distance, key=distance.get)


@_exercise("ring-p25", "ring", rel_tol=0.02, unit="µs",
           hint="Which link classes does the ring of 25 use? The model charges every step the dearest one.",
           giveaways=("ring_time(25", "ring_time([25]"))
def _ring_p25():
    return _ring_time(25, 4)


@_exercise("ring-epyc", "ring", rel_tol=0,
           hint="Link i joins ranks i and i+1; the wrap-around joins P-1 and 0.",
           giveaways=("boundaries(300)", "Placement(64, 2).boundaries"))
def _ring_epyc():
    from ..models.ring import Placement
    return Placement(64, 2).boundaries(300)[2][0]


@_exercise("ring-1ms", "ring", rel_tol=0.03, unit="B",
           hint="Compute λ_c + n/b_c for every class the ring of 48 uses: which one is the dearest "
                "at sizes of tens of kilobytes? Solve 96·(λ_c + n/b_c) = 1000 µs for that class.",
           giveaways=("_ring_size_for", "brentq"))
def _ring_1ms():
    return _ring_size_for(48, 1000.0)


@_exercise("mat-orfeo", "matrix_add", rel_tol=0.03, unit="µs",
           hint="Each block is 100x100x100 doubles; the root sends 23 of them, three times.")
def _mat_orfeo():
    from ..models import matrix as M
    from ..models.hockney import Hockney
    lam, b = _pingpong("socket", "ucx", bandwidth="bandwidth_fit_MBps")
    blocks = M.block_sizes("2400x100x100", "24x1x1")
    moved = 8 * (int(blocks.sum()) - int(blocks.flat[0]))  # every block but the root's
    return 3 * M.collective_time(24, moved, Hockney(lam, b))


@_exercise("mat-halo", "matrix_add", rel_tol=0, unit="elements",
           hint="Minimise g_x + g_y + g_z with g_x·g_y·g_z = 24.",
           giveaways=("halo_elements(\"100x100x100\", M.best_grid",))
def _halo():
    from ..models import matrix as M
    return M.halo_elements("100x100x100", M.best_grid("100x100x100", 24))


@_exercise("mat-pay", "matrix_add", rel_tol=0.02, hint="The limit is b / (24 r) with b in B/µs.",
           giveaways=("speedup_limit(5420",))
def _mat_pay():
    from ..models.matrix import speedup_limit
    return speedup_limit(5420, 500)


@_exercise("topo-torus", "topology", rel_tol=0, unit="links",
           hint="Cutting a torus in two cuts each row (or column) twice: once in the middle, once "
                "on the wrap-around.",
           giveaways=("closed_form(T.torus(64))",))
def _topo_torus():
    from .. import topology as T
    return T.closed_form(T.torus(64))["bisection"]


@_exercise("topo-saf", "topology", rel_tol=0.02, unit="µs",
           hint="With store-and-forward every hop pays t_h + n/t_w (t_w a bandwidth here).",
           giveaways=("message_time(65536, 5",))
def _topo_saf():
    from .. import topology as T
    return float(T.message_time(65536, 5, 1.0, 0.1, 10000.0, "store-and-forward"))


@_exercise("topo-place", "topology", kind="choice",
           hint="By socket, ranks alternate between socket 0 and socket 1 of the first node.",
           giveaways=("pair_class(G, place[0], place[2])",))
def _topo_place():
    from .. import topology as T
    G = T.cluster(nodes=2, sockets=2, cores=12)
    place = T.place(G, 26, "socket")
    return T.pair_class(G, place[0], place[2])


@_exercise("topo-ring16", "topology", rel_tol=0, unit="messages",
           hint="Every message goes 8 links the same way round; count the messages crossing one link.",
           giveaways=("link_loads(T.ring(16)",))
def _topo_ring16():
    from .. import topology as T
    from ..models import collectives as coll
    last = coll.schedule("allreduce", "recursive_doubling", 16)[-1]
    return max(T.link_loads(T.ring(16), [(m.src, m.dst) for m in last]).values())


@_exercise("coll-crossover", "collectives", rel_tol=0.15, unit="B",
           hint="Set (P-2+k)(λ + s/b) with k = n/s equal to ⌈log2 P⌉(λ + n/b) and solve for n.",
           giveaways=("crossover_size(16",))
def _coll_crossover():
    from ..chapters.collectives import crossover_size
    return crossover_size(16, 0.20, 6200.0, 16384)


@_exercise("coll-anomaly", "collectives", rel_tol=0, unit="hops",
           hint="Four chains share the 47 other processes; the root feeds one head per step.",
           giveaways=("ompi_chain_schedule(48)",))
def _coll_anomaly():
    from ..chapters.collectives import ompi_chain_schedule, tree_depth
    return tree_depth(ompi_chain_schedule(48))


@_exercise("jac-decomp bytes", "jacobi", rel_tol=0.01, unit="B",
           hint="A face of a block nx*ny*nz normal to x has ny*nz doubles; count neighbours per dimension.",
           giveaways=("best_decomposition(240",))
def _jac_decomp_bytes():
    from ..models.jacobi import best_decomposition
    return best_decomposition(240, 8)[1]


@_exercise("jac-decomp grid", "jacobi", kind="choice",
           hint="Compare the busiest process's bytes for the three decompositions.",
           giveaways=("best_decomposition(240",))
def _jac_decomp_grid():
    from ..models.jacobi import best_decomposition
    return "x".join(map(str, best_decomposition(240, 8)[0]))


@_exercise("jac-ts", "jacobi", rel_tol=0.05, unit="s", inputs=("copy_MBps",),
           hint="T_s = L^3 x (bytes per lattice update) / bandwidth, with MB/s = 1e6 B/s.",
           giveaways=("ts_from_roofline(256",))
def _jac_ts(copy_MBps):
    from ..models import jacobi as jm
    return jm.ts_from_roofline(256, copy_MBps, jm.code_balance(True, True))


@_exercise("jac-orfeo", "jacobi", rel_tol=0.01, unit="MLUP/s",
           hint="c = 1200^2 x 6 x 2 x 8 B; c/B with B in B/s; T_l in s.",
           giveaways=("performance_mlups(1200, 24",))
def _jac_orfeo():
    from ..models import jacobi as jm
    T_s, T_l, B_half = _jacobi_thin_nodes()
    return jm.performance_mlups(1200, 24, T_s, 6, 2 * B_half, T_l)


