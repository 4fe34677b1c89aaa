"""The references of the exercises of the MPI primer (book/mpi_primer.md): computed from MPI's rules."""

from __future__ import annotations

import itertools
import math

from ...exercises.core import _exercise


def dims_create(P: int, d: int) -> tuple:
    """The grid MPI_Dims_create(P, d) chooses: the factors of P closest to each other, in
    non-increasing order."""
    if P < 1 or d < 1:
        raise ValueError(f"P and d must be at least 1, not {P} and {d}")
    divisors = [k for k in range(1, P + 1) if P % k == 0]
    best = None
    for combo in itertools.combinations_with_replacement(sorted(divisors, reverse=True), d):
        if math.prod(combo) == P:
            key = (max(combo) - min(combo), combo)
            best = key if best is None or key < best else best
    return best[1]


PRIMER_P = 12  # the grid of the primer's exercises


@_exercise("prim-dims", "mpi_primer", kind="choice", giveaways=("dims_create(",))
def _prim_dims():
    return "x".join(map(str, dims_create(PRIMER_P, 2)))


@_exercise("prim-edges", "mpi_primer", rel_tol=0, unit="ranks", giveaways=("dims_create(",))
def _prim_edges():
    rows, cols = dims_create(PRIMER_P, 2)
    return rows * min(cols, 2)


@_exercise("prim-standard", "mpi_primer", kind="choice")
def _prim_standard(standard_ms, delay_ms):
    from ...chapters.mpi_primer import waited_for_receiver

    return "yes" if waited_for_receiver(float(standard_ms), float(delay_ms)) else "no"
