"""The references of the exercises of the three collectives pages (book/collectives_algorithms.md, collectives_library.md,
collectives_orfeo.md): computed from the models and the shipped ORFEO data."""

from __future__ import annotations

from ...exercises.core import _exercise
from ...exercises.sources import link as _link


def _orfeo_link_classes() -> dict:
    """{class: (λ µs, b MB/s)} as the ORFEO page calibrates them: Hockney fits of osu_bcast at
    P = 2 mapped by core, socket and node (the shipped derived table)."""
    from ... import fit
    from . import common as chapter

    bcast, _ = chapter.orfeo_or_empty("giuliofantuzzi/bcast")
    if not len(bcast):
        raise LookupError("the ORFEO broadcast data are not available")
    return fit.calibrate_link_classes(bcast)


def _thin_latency_matrix(P: int):
    """Class latencies between the first P ranks of two THIN nodes mapped by core."""
    from ... import topology as topo
    from ...models import latency_maps
    from . import common as chapter

    G = topo.cluster(**chapter.ORFEO_THIN)
    lam = {k: v[0] for k, v in _orfeo_link_classes().items()}
    return latency_maps.class_latency_matrix(G, topo.place(G, 48, "core"), lam)


@_exercise("coll-rd-fallback", "collectives_library", rel_tol=0, unit="messages", giveaways=("model_messages(",))
def _coll_rd_fallback():
    """Hint: Recursive doubling pairs rank r with r xor d; look at what happens when P is not a power of two.

    Method: Open MPI's recursive-doubling allgather needs P = 2^k and otherwise runs another algorithm with ceil(log2 P)
    steps, one message per rank per step.
    """
    from .exchange import model_messages

    return model_messages("allgather", "recursive_doubling", 6)


@_exercise("coll-rs-predict", "collectives_library_lab", rel_tol=0.02, unit="µs")
def _coll_rs_predict(lambda_us: float, bandwidth_MBps: float):
    """Hint: At P = 2 a reduce-scatter is one step: each process sends the half of the vector the other keeps.

    Method: t = λ + (n/P)/b with n = 65536 B, P = 2, λ in µs and b in MB/s (bytes per µs); leave the additions out.
    """
    from ...models.collective_costs import predict

    return predict("reduce_scatter", "ring", 2, 65536.0, lambda_us, bandwidth_MBps)


@_exercise("coll-ring-measured", "collectives_library_lab", rel_tol=0.03, unit="")
def _coll_ring_measured(measured_us: float, lambda_us: float, bandwidth_MBps: float):
    """Hint: At P = 2 the ring allreduce is a reduce-scatter and an allgather: two exchanges of half the vector each.

    Method: the model is 2(P-1)(λ + n/(P b)) = 2λ + n/b at P = 2, n = 1,048,576 B, b in MB/s (bytes per µs); divide
    your measured time by it.
    """
    from ...models.collective_costs import predict

    return measured_us / predict("allreduce", "ring", 2, float(1 << 20), lambda_us, bandwidth_MBps)


@_exercise(
    "coll-orfeo-critical-path",
    "collectives_orfeo",
    rel_tol=0.03,
    unit="µs",
    giveaways=("binomial_gather_critical_path(L, 20)",),
)
def _coll_orfeo_critical_path():
    """Hint: One latency per level of the tree, the slowest pair of that level; not every level crosses the sockets.

    Method: levels at distance 1, 2, 4, 8, 16 pair rank j with j + d (j a multiple of 2d, j + d < 20); ranks 0-11 are on
    socket 0 and 12-19 on socket 1: for each level, is there a pair with one rank below 12 and one above 11?
    """
    from ...models import latency_maps

    return latency_maps.binomial_gather_critical_path(_thin_latency_matrix(20), 20)


@_exercise(
    "coll-orfeo-root", "collectives_orfeo", rel_tol=0.03, unit="µs", giveaways=("linear_gather_latency_model(L, 48)",)
)
def _coll_orfeo_root():
    """Hint: The root receives the 47 messages one after the other: add one latency per sender, of the sender's link
    class.

    Method: ranks 1-11 share the root's socket, 12-23 are on the other socket, 24-47 on the other node: 11 λ_core + 12
    λ_socket + 24 λ_node with the λ of the calibration table.
    """
    from ...models import latency_maps

    return latency_maps.linear_gather_latency_model(_thin_latency_matrix(48), 48)


@_exercise("coll-orfeo-alltoall", "collectives_orfeo", rel_tol=0.05, unit="B", giveaways=('crossover("alltoall"',))
def _coll_orfeo_alltoall():
    """Hint: Write both costs as A λ + B n/b with the node link's λ and b, and solve for the n where they are equal.

    Method: at P = 32 Bruck's alltoall takes log2 P = 5 steps of P/2 = 16 blocks (A = 5, B = 80), pairwise P - 1 = 31
    steps of one block (A = B = 31): n* = (31 - 5) λ b / (80 - 31), λ b in bytes.
    """
    from ...models.collective_costs import crossover

    lam, b = _orfeo_link_classes()["node"]
    return crossover("alltoall", "bruck", "pairwise", 32, lam, b)


@_exercise("coll-orfeo-gap", "collectives_orfeo", rel_tol=0.03, unit="µs", giveaways=("polyfit(",))
def _coll_orfeo_gap():
    """Hint: OSU's mean over ranks of the linear broadcast grows by g/2 for every process added; fit a straight line.

    Method: keep the 1-byte basic_linear rows mapped by core with 14 <= P <= 24, fit t_us against np with
    numpy.polyfit(np, t_us, 1), and double the slope.
    """
    import numpy as np

    from . import common as chapter

    bcast, _ = chapter.orfeo_or_empty("giuliofantuzzi/bcast")
    rows = bcast[
        (bcast.mapping == "core")
        & (bcast.algorithm == "basic_linear")
        & (bcast.size_bytes == 1)
        & bcast.np.between(14, 24)
    ]
    return 2 * float(np.polyfit(rows.np.to_numpy(float), rows.t_us.to_numpy(float), 1)[0])


@_exercise("coll-crossover", "collectives_algorithms", rel_tol=0.15, unit="B", giveaways=("crossover_size(16",))
def _coll_crossover():
    """Hint: Set (P-2+k)(λ + s/b) with k = n/s equal to ⌈log2 P⌉(λ + n/b) and solve for n.

    Method: write both times as functions of n with λ = 0.20 µs, b = 6200 MB/s, s = 16384 B, P = 16, and find where they
    cross (bisection on n).
    """
    from ...models.collective_costs import crossover_size

    link = _link("core", "ucx")
    return crossover_size(16, link.latency_us, link.bandwidth_MBps, 16384)


@_exercise("coll-anomaly", "collectives_library", rel_tol=0, unit="hops", giveaways=("ompi_chain_schedule(48)",))
def _coll_anomaly():
    """Hint: Four chains share the 47 other processes; the root feeds one head per step.

    Method: draw the chains: the root feeds the first rank of each of the four chains; the longest chain holds about
    47/4 ranks.
    """
    from ...models.collective_schedules import ompi_chain_schedule, tree_depth

    return tree_depth(ompi_chain_schedule(48))
