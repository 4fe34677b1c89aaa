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

from . import mpi_env
from .algorithms_csv import ALGORITHMS, Algorithm

__all__ = ["ALGORITHMS", "Algorithm"]

# commbook's label for coll_tuned 0 in tidy data: the library's default decision; what
# students wrote for it.
DEFAULT_LABEL = "default"
DEFAULT_ALIASES = ("def", "ignore", "fixed")
# Colour of the library's own choice (no forced algorithm).
DEFAULT_COLOUR = "k"

# Where each collective kernel's cc_algo table is: (file in kernels_c/, table name).
KERNEL_TABLES = {
    "bcast": ("bcast.c", "ALGOS"),
    "gather": ("gather.c", "ALGOS"),
    "allreduce": ("collectives_algos.c", "CC_ALLREDUCE_ALGOS"),
}


def of(operation: str) -> list[Algorithm]:
    return [a for a in ALGORITHMS if a.operation == operation]


OPERATIONS = tuple(dict.fromkeys(a.operation for a in ALGORITHMS))


def library_table(family: mpi_env.MPIFamily | str, operation: str) -> dict[int, str]:
    """{number: the family's name} of the algorithms `family` can force for `operation`, read
    from the table's columns of that family (mpi_env.MPIFamily.algorithm_columns), 0 = its
    default; {} when it can force none."""
    family = mpi_env.family(family)
    if family.algorithm_columns is None:
        return {}
    number, name = family.algorithm_columns
    table = {getattr(a, number): getattr(a, name) for a in of(operation) if getattr(a, number) is not None}
    return {0: family.default_algorithm, **dict(sorted(table.items()))} if table else {}


def library_ident(family: mpi_env.MPIFamily | str, a: Algorithm) -> int | str | None:
    """What `library:ID` says to force record `a` on `family`: its number or its name (None: not in it)."""
    family = mpi_env.family(family)
    if family.algorithm_columns is None:
        return None
    return getattr(a, family.algorithm_columns[0 if family.selects_by_number else 1])


OMPI_COLL_TUNED: dict[str, dict[int, str]] = {
    op: library_table("openmpi", op) for op in OPERATIONS if library_table("openmpi", op)
}


def coll_tuned_labels(op: str) -> list[str]:
    """coll_tuned's names for `op` as commbook labels, indexed by algorithm number: 0 is
    DEFAULT_LABEL, '-' becomes '_' (Open MPI's 'in-order_binary' -> 'in_order_binary')."""
    table = OMPI_COLL_TUNED[op]
    return [DEFAULT_LABEL if k == 0 else table[k].replace("-", "_") for k in sorted(table)]


def library_record(family: mpi_env.MPIFamily | str, op: str, name) -> Algorithm | None:
    """The record of a library algorithm by the family's name for it (or number, where the
    family forces by number)."""
    family = mpi_env.family(family)
    if family.algorithm_columns is None:
        return None
    number, named = family.algorithm_columns
    for a in of(op):
        if getattr(a, named) is None:
            continue
        if name == getattr(a, named) or (family.selects_by_number and str(name) == str(getattr(a, number))):
            return a
    return None


def model_name(family: mpi_env.MPIFamily | str, op: str, name) -> str | None:
    """The commbook model of library algorithm `name` (Open MPI name or number, MPICH name),
    or None when commbook has no model of it."""
    a = library_record(family, op, name)
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


# The variable that moves each family's shared-memory eager limit (the largest message MPI_Send
# may copy out and return before the receive is posted), set in the environment of mpiexec; each
# family says why (mpi_env.MPIFamily.eager_limit_variable), commbook.protocols.eager_env moves it.
EAGER_LIMIT_VARIABLES = mpi_env.eager_limit_variables()
