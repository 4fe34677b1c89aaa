"""The references of the exercises of the cluster page (book/cluster.md): computed from the ORFEO data, the models and this MPI."""

from __future__ import annotations

from ...exercises.core import _exercise

CLUSTER_HANG_BYTES = 64 * 1024


@_exercise("clu-hang", "cluster", kind="choice", giveaways=("reference_eager_limit",))
def _clu_hang():
    """Hint: Compare the message size with the eager limit of shared memory on this MPI.

    Method: a send-first ring hangs when every MPI_Send waits for a receive nobody has posted, that is above the eager
    limit (the ping-pong chapter's probe).
    """
    from ...exercises.c_checks import reference_eager_limit

    return "hung" if CLUSTER_HANG_BYTES > reference_eager_limit() else "finished"


@_exercise("clu-node-links", "cluster", rel_tol=0, unit="links", giveaways=("link_classes(48)",))
def _clu_node_links():
    """Hint: Ranks fill node 0 first (map by core); only links between ranks on different nodes count, the wrap-around
    included.

    Method: with 24 cores per node, rank r is on node r // 24; check each link r -> r+1 and the link 47 -> 0.
    """
    from ... import orfeo

    return orfeo.placement("orfeo-thin", map_by="core").link_classes(48).count("node")


@_exercise("clu-sbatch", "cluster", rel_tol=0.03, unit="µs")
def _clu_sbatch():
    """Hint: Two ranks on two nodes: the node row of the report's UCX ping-pong figures.

    Method: t = λ + n/b with n = 1,048,576 bytes and b in MB/s (bytes per µs).
    """
    from ...exercises.sources import link_time_us as _link_time_us

    return _link_time_us("node", "ucx", 2**20)
