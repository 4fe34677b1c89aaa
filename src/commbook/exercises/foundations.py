"""The references of the exercises of the foundation pages: the MPI primer, measuring well and
scaling (computed from MPI's rules, the statistics, the ORFEO data or this machine's runs)."""

from __future__ import annotations

import itertools
import math

from .core import _exercise


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


# ---- book/mpi_primer.md

PRIMER_P = 12  # the grid of the primer's exercises


@_exercise("prim-dims", "mpi_primer", kind="choice", giveaways=("dims_create(",))
def _prim_dims():
    """Hint: MPI_Dims_create makes the dimensions as equal as it can, largest first.

    Method: list the ways to write P as a product of two factors and keep the pair whose factors differ least.
    """
    return "x".join(map(str, dims_create(PRIMER_P, 2)))


@_exercise("prim-edges", "mpi_primer", rel_tol=0, unit="ranks", giveaways=("dims_create(",))
def _prim_edges():
    """Hint: Only the non-periodic dimension has edges; count the columns that lie on one.

    Method: a rank in the first column has no left neighbour, one in the last column no right neighbour; multiply the
    number of such columns by the ranks per column.
    """
    rows, cols = dims_create(PRIMER_P, 2)
    return rows * min(cols, 2)


@_exercise("prim-standard", "mpi_primer", kind="choice")
def _prim_standard(standard_ms, delay_ms):
    """Hint: Compare the return time with the receiver's delay: a send that waited took about as long as the delay.

    Method: a send that returned in less than half the receiver's delay did not wait for it (the library buffered the
    message: eager); one that took about the delay waited (rendezvous).
    """
    from ..chapters.mpi_primer import waited_for_receiver

    return "yes" if waited_for_receiver(float(standard_ms), float(delay_ms)) else "no"


# ---- book/measuring.md

MEAS_N = 200  # repetitions in the confidence-interval exercise
MEAS_RANK_TIMES = (3.1, 2.8, 3.0, 9.5)  # µs, the four ranks of the collective exercise


@_exercise("meas-ci", "measuring", rel_tol=0, unit="", giveaways=("median_ci(", "binom.ppf"))
def _meas_ci():
    """Hint: The number of samples below the median follows a binomial law with p = 1/2.

    Method: take the 2.5 % quantile of Binomial(n, 1/2): that many samples may lie below the median by chance; the next
    order statistic is the lower bound.
    """
    from scipy.stats import binom

    return int(binom.ppf(0.025, MEAS_N, 0.5))


@_exercise("meas-skew", "measuring", kind="choice")
def _meas_skew(times_us):
    """Hint: Compare np.mean and np.median of your run's times.

    Method: a long tail of slow repetitions on one side moves the mean, not the median.
    """
    import numpy as np

    t = np.asarray(times_us, float)
    return "above" if t.mean() > np.median(t) else "below"


@_exercise("meas-osu", "measuring", rel_tol=0.01)
def _meas_osu():
    """Hint: The book's kernels report the slowest rank; OSU the mean over ranks.

    Method: add the four times and divide by four for OSU's figure; take the largest for the slowest rank; divide the
    second by the first.
    """
    return max(MEAS_RANK_TIMES) / (sum(MEAS_RANK_TIMES) / len(MEAS_RANK_TIMES))


# ---- book/scaling.md


@_exercise("scal-amdahl", "scaling", rel_tol=0.01, giveaways=("amdahl_speedup(0.05",))
def _scal_amdahl():
    """Hint: Amdahl: S(P) = 1 / (f + (1 - f) / P).

    Method: with f = 0.05 the parallel part 0.95 is divided by 48; add the serial 0.05 and invert.
    """
    from ..chapters.scaling import amdahl_speedup

    return float(amdahl_speedup(0.05, 48))


@_exercise("scal-serial", "scaling", rel_tol=0.05, giveaways=("S.serial_fraction(", "serial_fraction(s.loc"))
def _scal_serial():
    """Hint: Solve Amdahl's law for f given the measured speedup S at P processes.

    Method: from S = 1 / (f + (1 - f)/P) follows f = (P/S - 1) / (P - 1); read S at 48 from the strong-scaling table.
    """
    from ..chapters.scaling import orfeo_jacobi, serial_fraction

    strong = orfeo_jacobi()[0]
    s = strong.set_index("np").speedup
    return float(serial_fraction(s.loc[48], 48))


@_exercise("scal-local", "scaling", rel_tol=0.02)
def _scal_local(t1_s, t2_s):
    """Hint: Efficiency is the speedup divided by the number of processes.

    Method: speedup = t1 / t2; divide it by 2.
    """
    return float(t1_s) / (2 * float(t2_s))
