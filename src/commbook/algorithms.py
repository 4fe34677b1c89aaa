"""What the MPI libraries call their collective algorithms: one table per library.

Everything else (the importers of ORFEO files, ``commbook.collective_runs``' library selection,
the models' names for a library's algorithm) reads these tables; nothing writes them again.

Open MPI: ``coll_tuned``'s algorithm numbers, as in the ``mca_base_var_enum_value_t`` tables of
``ompi/mca/coll/tuned/coll_tuned_<op>_decision.c``, identical in Open MPI 4.1.0-4.1.8 and
5.0.0-5.0.10 (checked against the tags v4.1.5 and v5.0.9 of open-mpi/ompi; the main branch
adds allreduce 7 ``allgather_reduce`` and reduce 8 ``knomial``, not in any release used here).
The names are Open MPI's own, so ``ompi_info --param coll tuned --level 9`` prints them;
0 (``ignore``) means "no forced algorithm: coll_tuned's decision rules choose".

MPICH: the values of ``MPIR_CVAR_<OP>_INTRA_ALGORITHM`` (MPICH 5.0.2, ``mpivars``), "auto"
excluded.
"""
from __future__ import annotations

OMPI_COLL_TUNED: dict[str, dict[int, str]] = {
    "bcast": {0: "ignore", 1: "basic_linear", 2: "chain", 3: "pipeline", 4: "split_binary_tree",
              5: "binary_tree", 6: "binomial", 7: "knomial", 8: "scatter_allgather",
              9: "scatter_allgather_ring"},
    "reduce": {0: "ignore", 1: "linear", 2: "chain", 3: "pipeline", 4: "binary", 5: "binomial",
               6: "in-order_binary", 7: "rabenseifner"},
    "gather": {0: "ignore", 1: "basic_linear", 2: "binomial", 3: "linear_sync"},
    "scatter": {0: "ignore", 1: "basic_linear", 2: "binomial", 3: "linear_nb"},
    "barrier": {0: "ignore", 1: "linear", 2: "double_ring", 3: "recursive_doubling", 4: "bruck",
                5: "two_proc", 6: "tree"},
    "allreduce": {0: "ignore", 1: "basic_linear", 2: "nonoverlapping", 3: "recursive_doubling",
                  4: "ring", 5: "segmented_ring", 6: "rabenseifner"},
}

# Parameters of a forced algorithm: OMPI_MCA_coll_tuned_<op>_algorithm_<key>.
OMPI_PARAMETERS = {
    "bcast": ("segmentsize", "tree_fanout", "chain_fanout", "knomial_radix"),
    "gather": ("segmentsize", "tree_fanout", "chain_fanout"),
    "allreduce": ("segmentsize", "tree_fanout", "chain_fanout"),
}

MPICH_ALGORITHMS: dict[str, tuple[str, ...]] = {
    "bcast": ("binomial", "nb", "smp", "scatter_recursive_doubling_allgather",
              "scatter_ring_allgather", "pipelined_tree", "tree"),
    "gather": ("binomial", "nb"),
    "allreduce": ("nb", "smp", "recursive_doubling", "recursive_multiplying",
                  "reduce_scatter_allgather", "tree", "recexch", "ring",
                  "k_reduce_scatter_allgather", "ccl"),
}

# commbook's label for coll_tuned 0 in tidy data: the library's default decision.
DEFAULT_LABEL = "default"

# A library algorithm -> the commbook.models.collective_schedules name of the same message pattern.
# Open MPI's scatter_allgather (8) gathers by recursive doubling, its _ring (9) as our model.
MODEL_NAMES = {
    ("openmpi", "bcast"): {"basic_linear": "linear", "chain": "chain", "pipeline": "pipeline",
                           "binary_tree": "binary_tree", "binomial": "binomial",
                           "scatter_allgather_ring": "scatter_allgather"},
    ("openmpi", "gather"): {"basic_linear": "linear", "binomial": "binomial"},
    ("openmpi", "scatter"): {"basic_linear": "linear", "binomial": "binomial"},
    ("openmpi", "reduce"): {"linear": "linear", "binomial": "binomial"},
    ("openmpi", "allreduce"): {"recursive_doubling": "recursive_doubling", "ring": "ring",
                               "rabenseifner": "rabenseifner"},
    ("mpich", "bcast"): {"binomial": "binomial", "scatter_ring_allgather": "scatter_allgather"},
    ("mpich", "gather"): {"binomial": "binomial"},
    ("mpich", "allreduce"): {"recursive_doubling": "recursive_doubling", "ring": "ring",
                             "reduce_scatter_allgather": "rabenseifner"},
}


def coll_tuned_labels(op: str) -> list[str]:
    """coll_tuned's names for `op` as commbook labels, indexed by algorithm number: 0 is
    DEFAULT_LABEL, '-' becomes '_' (Open MPI's 'in-order_binary' -> 'in_order_binary')."""
    table = OMPI_COLL_TUNED[op]
    return [DEFAULT_LABEL if k == 0 else table[k].replace("-", "_") for k in sorted(table)]


def ompi_variable(op: str) -> str:
    """The MCA variable that forces an Open MPI coll_tuned algorithm (as an environment variable)."""
    return f"OMPI_MCA_coll_tuned_{op}_algorithm"


def mpich_variable(op: str) -> str:
    """The MPICH control variable that selects an intra-communicator algorithm."""
    return f"MPIR_CVAR_{op.upper()}_INTRA_ALGORITHM"


def model_name(flavour: str, op: str, name: str) -> str | None:
    """The commbook model of library algorithm `name` (Open MPI name or number, MPICH name),
    or None when commbook has no model of it."""
    if flavour == "openmpi" and str(name).isdigit():
        name = OMPI_COLL_TUNED.get(op, {}).get(int(name), "")
    return MODEL_NAMES.get((flavour, op), {}).get(str(name))


# The variable that moves the shared-memory eager limit (the largest message MPI_Send may copy
# out and return before the receive is posted), set in the environment of mpiexec:
# Open MPI 5 btl/sm (btl_vader_* in 4.x), default 4096 bytes including the fragment header
# (`ompi_info --param btl sm --level 9`); MPICH ch4 (default device of MPICH 4 and 5): the size
# above which intranode messages go by CMA rendezvous, as long as the POSIX shared-memory queue's
# cells (MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE) can hold them: commbook.protocols.eager_env
# moves both; MPICH ch3:nemesis used MPIR_CVAR_NEMESIS_SHM_EAGER_MAX_SZ.
EAGER_LIMIT_VARIABLES = {
    "openmpi": "OMPI_MCA_btl_sm_eager_limit",
    "mpich": "MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD",
}
