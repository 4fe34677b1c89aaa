"""Collective algorithms: one record per algorithm, the table every module reads (its rows are
in data/collective_algorithms.csv, read by :mod:`commbook.algorithms_csv`).

A record ties together what one message pattern is called everywhere: its operation, the
commbook model (``commbook.models.collective_schedules``), the label of the hand-written kernel
that runs it (the ``cc_algo`` tables of ``kernels_c/``; their descriptions are read from the C
source, :func:`kernel_algorithms`), Open MPI's ``coll_tuned`` number and name, MPICH's
``MPIR_CVAR_<OP>_INTRA_ALGORITHM`` value, a description, the colour of its curves, and the other
names students gave it in their files.

Open MPI: ``coll_tuned``'s numbers and names, as in the ``mca_base_var_enum_value_t`` tables of
``ompi/mca/coll/tuned/coll_tuned_<op>_decision.c``, identical in Open MPI 4.1.0-4.1.8 and
5.0.0-5.0.10 (checked against the tags v4.1.5 and v5.0.9 of open-mpi/ompi; the main branch adds
allreduce 7 ``allgather_reduce`` and reduce 8 ``knomial``, not in any release used here;
allgather, alltoall and reduce_scatter as ``ompi_info`` of Open MPI 5.0.11 lists them). The
names are Open MPI's own, so ``ompi_info --param coll tuned --level 9`` prints them; 0
(``ignore``) means "no forced algorithm: coll_tuned's decision rules choose" and is labelled
:data:`DEFAULT_LABEL` in tidy data.

MPICH: the values of ``MPIR_CVAR_<OP>_INTRA_ALGORITHM`` (MPICH 5.0.2, ``mpivars``), "auto"
excluded, with their position in MPICH's list: MPICH reports the variable as that index.
"""

from __future__ import annotations

from functools import lru_cache

from .algorithms_csv import ALGORITHMS, Algorithm

__all__ = ["ALGORITHMS", "Algorithm"]

# commbook's label for coll_tuned 0 in tidy data: the library's default decision; what
# students wrote for it.
DEFAULT_LABEL = "default"
DEFAULT_ALIASES = ("def", "ignore", "fixed")
# Colour of the library's own choice (no forced algorithm).
DEFAULT_COLOUR = "k"

# Parameters of a forced algorithm: OMPI_MCA_coll_tuned_<op>_algorithm_<key>.
OMPI_PARAMETERS = {
    "bcast": ("segmentsize", "tree_fanout", "chain_fanout", "knomial_radix"),
    "gather": ("segmentsize", "tree_fanout", "chain_fanout"),
    "allreduce": ("segmentsize", "tree_fanout", "chain_fanout"),
}

# Where each collective kernel's cc_algo table is: (file in kernels_c/, table name).
KERNEL_TABLES = {
    "bcast": ("bcast.c", "ALGOS"),
    "gather": ("gather.c", "ALGOS"),
    "allreduce": ("collectives_algos.c", "CC_ALLREDUCE_ALGOS"),
}


def of(operation: str) -> list[Algorithm]:
    return [a for a in ALGORITHMS if a.operation == operation]


OPERATIONS = tuple(dict.fromkeys(a.operation for a in ALGORITHMS))


def ompi_coll_tuned(operation: str) -> dict[int, str]:
    """{coll_tuned number: Open MPI's name}, 0 = 'ignore'."""
    table = {a.ompi_id: a.ompi_name for a in of(operation) if a.ompi_id is not None}
    return {0: "ignore", **dict(sorted(table.items()))} if table else {}


OMPI_COLL_TUNED: dict[str, dict[int, str]] = {op: ompi_coll_tuned(op) for op in OPERATIONS if ompi_coll_tuned(op)}
MPICH_ALGORITHMS: dict[str, tuple[str, ...]] = {
    op: names
    for op in OPERATIONS
    if (names := tuple(a.mpich for a in sorted(of(op), key=lambda a: a.mpich_index or 0) if a.mpich))
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


def library_record(flavour: str, op: str, name) -> Algorithm | None:
    """The record of a library algorithm: Open MPI's name or number, or MPICH's name."""
    for a in of(op):
        if flavour == "openmpi" and (str(name) == str(a.ompi_id) or name == a.ompi_name):
            return a
        if flavour == "mpich" and name == a.mpich:
            return a
    return None


def model_name(flavour: str, op: str, name) -> str | None:
    """The commbook model of library algorithm `name` (Open MPI name or number, MPICH name),
    or None when commbook has no model of it."""
    a = library_record(flavour, op, name)
    return a.model if a else None


def model_descriptions() -> dict[str, dict[str, str]]:
    """{operation: {model name: description}} of every modelled algorithm."""
    out: dict[str, dict[str, str]] = {}
    for a in ALGORITHMS:
        if a.model:
            out.setdefault(a.operation, {}).setdefault(a.model, a.description)
    return out


def kernel_model_names(op: str) -> dict[str, str]:
    """{kernel label: model name} of the hand-written algorithms of `op`."""
    return {a.kernel: a.model for a in of(op) if a.kernel}


@lru_cache(maxsize=None)
def kernel_algorithms(op: str) -> dict[str, str]:
    """{label: description} of the hand-written algorithms of `op`, read from the kernel's C
    table, in its order; labels without a record (the reader's exercise, "mine") left out."""
    from . import c_tables, config

    file, table = KERNEL_TABLES[op]
    rows = c_tables.string_rows(config.kernels_dir() / file, "cc_algo", table, ("name", "description"), "algorithm")
    known = {a.kernel for a in of(op) if a.kernel}
    return {name: text for name, text in rows if name in known}


def by_label(op: str | None, label: str) -> Algorithm | None:
    """The record a curve's label names: a kernel label, a model name, a tidy-data label, or
    ``library:ID`` (an Open MPI number or name, an MPICH name); None for the library's default."""
    ops = [op] if op else list(OPERATIONS)
    ident = label.split(":")[1] if label.startswith("library:") else None
    for o in ops:
        for a in of(o):
            if ident is not None:
                if ident in (str(a.ompi_id), a.ompi_name, a.mpich):
                    return a
            elif label in (a.kernel, a.label, a.ompi_name):
                return a
    if ident is None:
        for o in ops:
            for a in of(o):
                if label == a.model:
                    return a
    return None


def colour(label: str, op: str | None = None, i: int = 0) -> str:
    """The colour of an algorithm's curves, the same for its kernel, model and library names;
    the library's default in black; an algorithm without one gets a colour by position i."""
    if label in ("library", DEFAULT_LABEL):
        return DEFAULT_COLOUR
    a = by_label(op, str(label))
    return a.colour if a and a.colour else f"C{(i + 7) % 10}"


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
