"""The references of the chapters' exercises, computed from the shipped data and the models."""

from __future__ import annotations

from .core import _exercise

# ---------------------------------------------------------------------------------------
# The data the references are computed from


def _link(mapping: str, transport: str):
    from .. import orfeo

    return orfeo.link(mapping, transport)


def _link_time_us(mapping: str, transport: str, n_bytes: int) -> float:
    """Hockney time λ + n/b of one message over an ORFEO link (the seed reports' figures)."""
    link = _link(mapping, transport)
    return link.latency_us + n_bytes / link.asymptotic_MBps


def _thin_ring():
    from .. import orfeo
    from ..models.ring import Placement, links_from_table

    thin = orfeo.node("orfeo-thin")
    links = links_from_table(orfeo.summary_table("pingpong_seed"), "orfeo-thin", "ucx", library="Open MPI")
    return links, Placement(thin.cores_per_socket, thin.sockets, map_by="core")


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


@_exercise("pp-nhalf", "pingpong", rel_tol=0.05, unit="B")
def _pp_nhalf():
    """Hint: n½ = λ·b; convert µs to s and MB/s to B/s first.

    Method: read λ and b of the node/UCX row of the report's table; λ·b with λ in s and b in B/s is a size in bytes.
    """
    link = _link("node", "ucx")
    return link.latency_us * 1e-6 * link.asymptotic_MBps * 1e6


@_exercise("pp-tcp", "pingpong", rel_tol=0.03, unit="µs")
def _pp_tcp():
    """Hint: n/b with n in bytes and b in MB/s is already in µs.

    Method: take the TCP row between nodes; 1 MiB is 1,048,576 bytes; t = λ + n/b.
    """
    return _link_time_us("node", "ob1-tcp", 2**20)


@_exercise("data-gather", "data", kind="choice")
def _data_gather():
    """Which operation the files labelled "gather" measured: the one whose medians at 16, 32
    and 48 processes they are closest to (mean |log ratio|), from the raw ORFEO files.

    Hint: A gather of 1 byte stays below about 1 µs up to 48 processes on THIN.

    Method: compare the medians at 16, 32 and 48 processes with a barrier's and with a linear gather's, on a log scale.
    """
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
    distance = {
        op: float(np.nanmean(np.abs(np.log(labelled / medians(ds, alg)))))
        for op, ds, alg in (
            ("barrier", "giuliofantuzzi/barrier", "default"),
            ("gather", "marcobarrasso1/gather", "basic_linear"),
        )
    }
    return min(distance, key=distance.get)


@_exercise("ring-p25", "ring", rel_tol=0.02, unit="µs", giveaways=("ring_time(25", "ring_time([25]"))
def _ring_p25():
    """Hint: Which link classes does the ring of 25 use? The model charges every step the dearest one.

    Method: list the links of the ring of 25 on THIN mapped by core: which classes appear? Take the dearest λ + 4/b and
    multiply by 2P.
    """
    return _ring_time(25, 4)


@_exercise("ring-epyc", "ring", rel_tol=0, giveaways=("boundaries(300)", "Placement(64, 2).boundaries"))
def _ring_epyc():
    """Hint: Link i joins ranks i and i+1; the wrap-around joins P-1 and 0.

    Method: rank r sits on socket r // 64 of node r // 128; find the first P whose ring has two ranks on different
    sockets.
    """
    from ..models.ring import Placement

    return Placement(64, 2).boundaries(300)[2][0]


@_exercise("ring-1ms", "ring", rel_tol=0.03, unit="B", giveaways=("_ring_size_for", "brentq"))
def _ring_1ms():
    """Hint: Compute λ_c + n/b_c for every class the ring of 48 uses: which one is the dearest at sizes of tens of
    kilobytes? Solve 96·(λ_c + n/b_c) = 1000 µs for that class.

    Method: for each class c used at P = 48 solve 96·(λ_c + n/b_c) = 1000 µs for n; the dearest class at that size is
    the one whose n is smallest.
    """
    return _ring_size_for(48, 1000.0)


@_exercise("mat-orfeo", "matrix_add", rel_tol=0.03, unit="µs")
def _mat_orfeo():
    """Hint: Each block is 100x100x100 doubles; the root sends 23 of them, three times.

    Method: one scatter sends 23 blocks of 8·10^6 bytes: 23·λ + 23·8·10^6/b µs; the addition needs two scatters and one
    gather.
    """
    from ..models import matrix as M
    from ..models.hockney import Hockney

    link = _link("socket", "ucx")
    lam, b = link.latency_us, link.bandwidth_MBps
    blocks = M.block_sizes("2400x100x100", "24x1x1")
    moved = 8 * (int(blocks.sum()) - int(blocks.flat[0]))  # every block but the root's
    return 3 * M.collective_time(24, moved, Hockney(lam, b))


@_exercise(
    "mat-halo", "matrix_add", rel_tol=0, unit="elements", giveaways=('halo_elements("100x100x100", M.best_grid',)
)
def _halo():
    """Hint: Minimise g_x + g_y + g_z with g_x·g_y·g_z = 24.

    Method: for a grid g_x·g_y·g_z the cuts across x number g_x − 1, each of 100·100 elements, crossed in both
    directions; add the three axes.
    """
    from ..models import matrix as M

    return M.halo_elements("100x100x100", M.best_grid("100x100x100", 24))


@_exercise("mat-pay", "matrix_add", rel_tol=0.02, giveaways=("speedup_limit(5420",))
def _mat_pay():
    """Hint: The limit is b / (24 r) with b in B/µs.

    Method: b = 5420 MB/s is 5420 bytes per µs; moving one element costs 24 bytes (two scattered, one gathered).
    """
    from ..models.matrix import speedup_limit

    return speedup_limit(5420, 500)


@_exercise("topo-torus", "topology", rel_tol=0, unit="links", giveaways=("closed_form(T.torus(64))",))
def _topo_torus():
    """Hint: Cutting a torus in two cuts each row (or column) twice: once in the middle, once on the wrap-around.

    Method: an 8 x 8 torus cut between columns 3 and 4 severs every row twice; count the rows.
    """
    from .. import topology as T

    return T.closed_form(T.torus(64))["bisection"]


@_exercise("topo-saf", "topology", rel_tol=0.02, unit="µs", giveaways=("message_time(65536, 5",))
def _topo_saf():
    """Hint: With store-and-forward every hop pays t_h + n/t_w (t_w a bandwidth here).

    Method: each of the 5 hops pays t_h + n/t_w; add the start-up t_s once.
    """
    from .. import topology as T

    return float(T.message_time(65536, 5, 1.0, 0.1, 10000.0, "store-and-forward"))


@_exercise("topo-place", "topology", kind="choice", giveaways=("pair_class(G, place[0], place[2])",))
def _topo_place():
    """Hint: By socket, ranks alternate between socket 0 and socket 1 of the first node.

    Method: with --map-by socket rank r goes to socket r % 2 while a node has room; rank 0 and rank 2 land on the same
    socket or not?
    """
    from .. import orfeo
    from .. import topology as T

    G = T.cluster(**orfeo.node("orfeo-thin").cluster(nodes=2))
    place = T.place(G, 26, "socket")
    return T.pair_class(G, place[0], place[2])


@_exercise("topo-ring16", "topology", rel_tol=0, unit="messages", giveaways=("link_loads(T.ring(16)",))
def _topo_ring16():
    """Hint: Every message goes 8 links the same way round; count the messages crossing one link.

    Method: message from rank i to i + 8 uses links i → i+1, ..., i+7 → i+8; count how many of the 16 messages use link
    0 → 1.
    """
    from .. import topology as T
    from ..models import collective_schedules

    last = collective_schedules.schedule("allreduce", "recursive_doubling", 16)[-1]
    return max(T.link_loads(T.ring(16), [(m.src, m.dst) for m in last]).values())


@_exercise("coll-crossover", "collectives_algorithms", rel_tol=0.15, unit="B", giveaways=("crossover_size(16",))
def _coll_crossover():
    """Hint: Set (P-2+k)(λ + s/b) with k = n/s equal to ⌈log2 P⌉(λ + n/b) and solve for n.

    Method: write both times as functions of n with λ = 0.20 µs, b = 6200 MB/s, s = 16384 B, P = 16, and find where they
    cross (bisection on n).
    """
    from ..models.collective_costs import crossover_size

    link = _link("core", "ucx")
    return crossover_size(16, link.latency_us, link.bandwidth_MBps, 16384)


@_exercise("coll-anomaly", "collectives_library", rel_tol=0, unit="hops", giveaways=("ompi_chain_schedule(48)",))
def _coll_anomaly():
    """Hint: Four chains share the 47 other processes; the root feeds one head per step.

    Method: draw the chains: the root feeds the first rank of each of the four chains; the longest chain holds about
    47/4 ranks.
    """
    from ..models.collective_schedules import ompi_chain_schedule, tree_depth

    return tree_depth(ompi_chain_schedule(48))


@_exercise("jac-decomp bytes", "jacobi", rel_tol=0.01, unit="B", giveaways=("best_decomposition(240",))
def _jac_decomp_bytes():
    """Hint: A face of a block nx*ny*nz normal to x has ny*nz doubles; count neighbours per dimension.

    Method: for a grid (a, b, c) of 240^3 the busiest block sends two faces per split axis; a face normal to x holds
    (240/b)·(240/c) doubles of 8 bytes.
    """
    from ..models.jacobi import best_decomposition

    return best_decomposition(240, 8)[1]


@_exercise("jac-decomp grid", "jacobi", kind="choice", giveaways=("best_decomposition(240",))
def _jac_decomp_grid():
    """Hint: Compare the busiest process's bytes for the three decompositions.

    Method: compute the busiest process's bytes for 8x1x1, 4x2x1 and 2x2x2 and keep the smallest.
    """
    from ..models.jacobi import best_decomposition

    return "x".join(map(str, best_decomposition(240, 8)[0]))


@_exercise("jac-ts", "jacobi_lab", rel_tol=0.05, unit="s", giveaways=("ts_from_roofline(256",))
def _jac_ts(copy_MBps):
    """Hint: T_s = L^3 x (bytes per lattice update) / bandwidth, with MB/s = 1e6 B/s.

    Method: bytes per lattice update from the chapter's code balance (with write-allocate), times 256^3, divided by the
    copy bandwidth in B/s.
    """
    from ..models import jacobi as jm

    return jm.ts_from_roofline(256, copy_MBps, jm.code_balance(True, True))


@_exercise("jac-orfeo", "jacobi", rel_tol=0.01, unit="MLUP/s", giveaways=("performance_mlups(1200, 24",))
def _jac_orfeo():
    """Hint: c = 1200^2 x 6 x 2 x 8 B; c/B with B in B/s; T_l in s.

    Method: P = L^3·N / (T_s + c/B + k·T_l) with L = 1200, N = 24, k = 6, B = 2·(B/2) in B/s, T_l in s; divide by 10^6.
    """
    from ..models import jacobi as jm

    T_s, T_l, B_half = _jacobi_thin_nodes()
    return jm.performance_mlups(1200, 24, T_s, 6, 2 * B_half, T_l)
