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
    from .exchange import model_messages

    return model_messages("allgather", "recursive_doubling", 6)


@_exercise("coll-rs-predict", "collectives_library_lab", rel_tol=0.02, unit="µs")
def _coll_rs_predict(lambda_us: float, bandwidth_MBps: float):
    from ...models.collective_costs import predict

    return predict("reduce_scatter", "ring", 2, 65536.0, lambda_us, bandwidth_MBps)


@_exercise("coll-ring-measured", "collectives_library_lab", rel_tol=0.03, unit="")
def _coll_ring_measured(measured_us: float, lambda_us: float, bandwidth_MBps: float):
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
    from ...models import latency_maps

    return latency_maps.binomial_gather_critical_path(_thin_latency_matrix(20), 20)


@_exercise(
    "coll-orfeo-root", "collectives_orfeo", rel_tol=0.03, unit="µs", giveaways=("linear_gather_latency_model(L, 48)",)
)
def _coll_orfeo_root():
    from ...models import latency_maps

    return latency_maps.linear_gather_latency_model(_thin_latency_matrix(48), 48)


@_exercise("coll-orfeo-alltoall", "collectives_orfeo", rel_tol=0.05, unit="B", giveaways=('crossover("alltoall"',))
def _coll_orfeo_alltoall():
    from ...models.collective_costs import crossover

    lam, b = _orfeo_link_classes()["node"]
    return crossover("alltoall", "bruck", "pairwise", 32, lam, b)


@_exercise("coll-orfeo-gap", "collectives_orfeo", rel_tol=0.03, unit="µs", giveaways=("polyfit(",))
def _coll_orfeo_gap():
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
    from ...models.collective_costs import crossover_size

    link = _link("core", "ucx")
    return crossover_size(16, link.latency_us, link.bandwidth_MBps, 16384)


@_exercise("coll-anomaly", "collectives_library", rel_tol=0, unit="hops", giveaways=("ompi_chain_schedule(48)",))
def _coll_anomaly():
    from ...models.collective_schedules import ompi_chain_schedule, tree_depth

    return tree_depth(ompi_chain_schedule(48))
