"""The references of the exercises of the practice pages: the ORFEO data, the validation
tables and running on a cluster (computed from the shipped tables, the models or this MPI)."""

from __future__ import annotations

from .core import _exercise

# ---- book/data.md


@_exercise(
    "data-bcast-files",
    "data",
    rel_tol=0,
    unit="files",
    giveaways=('catalog().benchmark == "bcast"', 'cat.benchmark == "bcast"'),
)
def _data_bcast_files():
    """Hint: The catalogue has one row per raw file; select the broadcast rows.

    Method: orfeo.catalog() is a DataFrame: filter on the benchmark column and count rows.
    """
    from .. import orfeo

    cat = orfeo.catalog()
    return int((cat.benchmark == "bcast").sum())


@_exercise("data-runs", "data", rel_tol=0, unit="runs")
def _data_runs():
    """Hint: The derived tables merge repeated runs; their 'runs' column says how many.

    Method: load the derived ping-pong table with orfeo.load('pingpong') and take the largest value of its runs column.
    """
    from .. import orfeo

    return int(orfeo.load("pingpong")[0].runs.max())


# ---- book/validation.md


@_exercise("val-5pct", "validation", rel_tol=0.03, giveaways=("pred_us / pts.t_us - 1) <= 0.05",))
def _val_5pct():
    """Hint: Compare pred_us with t_us point by point: |pred_us / t_us - 1| <= 0.05.

    Method: build the boolean column (abs(pts.pred_us / pts.t_us - 1) <= 0.05) and take its mean: the fraction of points
    within 5 %.
    """
    from .. import validate

    pts = validate.load_table("pingpong_points")
    return float(((pts.pred_us / pts.t_us - 1).abs() <= 0.05).mean())


@_exercise("val-jacobi-over", "validation", rel_tol=0, unit="runs", giveaways=("model_over_measured > 1.15",))
def _val_jacobi_over():
    """Hint: The column model_over_measured is the model's MLUP/s over the measured MLUP/s.

    Method: count the rows of the jacobi table whose model_over_measured is above 1.15.
    """
    from .. import validate

    return int((validate.load_table("jacobi").model_over_measured > 1.15).sum())


@_exercise(
    "val-runs",
    "validation",
    rel_tol=0.03,
    giveaways=("err_model > runs_table.diff_measured", "err_model > r.diff_measured"),
)
def _val_runs():
    """Hint: Compare err_model with diff_measured row by row, not their medians.

    Method: build the boolean column runs_table.err_model > runs_table.diff_measured and take its mean.
    """
    from .. import validate

    r = validate.load_table("pingpong_runs")
    return float((r.err_model > r.diff_measured).mean())


# ---- book/cluster.md

CLUSTER_HANG_BYTES = 64 * 1024


@_exercise("clu-hang", "cluster", kind="choice", giveaways=("reference_eager_limit",))
def _clu_hang():
    """Hint: Compare the message size with the eager limit of shared memory on this MPI.

    Method: a send-first ring hangs when every MPI_Send waits for a receive nobody has posted, that is above the eager
    limit (the ping-pong chapter's probe).
    """
    from .c_checks import reference_eager_limit

    return "hung" if CLUSTER_HANG_BYTES > reference_eager_limit() else "finished"


@_exercise("clu-node-links", "cluster", rel_tol=0, unit="links", giveaways=("link_classes(48)",))
def _clu_node_links():
    """Hint: Ranks fill node 0 first (map by core); only links between ranks on different nodes count, the wrap-around
    included.

    Method: with 24 cores per node, rank r is on node r // 24; check each link r -> r+1 and the link 47 -> 0.
    """
    from .. import orfeo
    from ..models.ring import Placement

    thin = orfeo.node("orfeo-thin")
    return Placement(thin.cores_per_socket, thin.sockets, map_by="core").link_classes(48).count("node")


@_exercise("clu-sbatch", "cluster", rel_tol=0.03, unit="µs")
def _clu_sbatch():
    """Hint: Two ranks on two nodes: the node row of the report's UCX ping-pong figures.

    Method: t = λ + n/b with n = 1,048,576 bytes and b in MB/s (bytes per µs).
    """
    from .references import _link_time_us

    return _link_time_us("node", "ucx", 2**20)


# ---- running code in the chapters (book/matrix_add.md, book/jacobi.md, book/topology.md)


@_exercise("mat-live", "matrix_add", rel_tol=0.02)
def _mat_live(serial_us, total_us):
    """Hint: The chapter's speedup is the serial addition's time over the distributed total.

    Method: divide t_serial_add_us by t_median_us (the total of scatter, add and gather).
    """
    return float(serial_us) / float(total_us)


def face_bytes(L: int, grid: tuple) -> int:
    """The largest face (bytes of doubles) of a block of an L^3 grid split as `grid`."""
    block = [-(-L // g) for g in grid]  # the largest block along each axis
    return max(8 * block[(d + 1) % 3] * block[(d + 2) % 3] for d in range(3) if grid[d] > 1)


@_exercise("jac-face", "jacobi_lab", rel_tol=0, unit="B", giveaways=("face_bytes(",))
def _jac_face():
    """Hint: A face normal to x of a block nx*ny*nz holds ny*nz doubles of 8 bytes.

    Method: the grid 2x2x1 splits 96 into 48 along x and y; list the faces normal to the split axes and multiply their
    two extents by 8.
    """
    return face_bytes(96, (2, 2, 1))


@_exercise("topo-chord", "topology", rel_tol=0, unit="links")
def _topo_chord():
    """Hint: A balanced cut of a ring cuts two ring links; does it cut the chord too?

    Method: the halves of a minimal cut are arcs of 6 processors; check whether any such arc holds both ends of the
    chord.
    """
    from .. import topology as T

    G = T.ring(12)
    G.add_edge(0, 6)
    return T.bisection(G).width
