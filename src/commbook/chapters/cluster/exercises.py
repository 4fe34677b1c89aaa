"""The references of the exercises of the cluster page (book/cluster.md): computed from the ORFEO data, the models and this MPI."""

from __future__ import annotations

from ...exercises.core import _exercise

CLUSTER_HANG_BYTES = 64 * 1024


@_exercise("clu-hang", "cluster", kind="choice", giveaways=("reference_eager_limit",))
def _clu_hang():
    from ...exercises.c_checks import reference_eager_limit

    return "hung" if CLUSTER_HANG_BYTES > reference_eager_limit() else "finished"


@_exercise("clu-node-links", "cluster", rel_tol=0, unit="links", giveaways=("link_classes(48)",))
def _clu_node_links():
    from ... import orfeo

    return orfeo.placement("orfeo-thin", map_by="core").link_classes(48).count("node")


@_exercise("clu-sbatch", "cluster", rel_tol=0.03, unit="µs")
def _clu_sbatch():
    from ...exercises.sources import link_time_us as _link_time_us

    return _link_time_us("node", "ucx", 2**20)
