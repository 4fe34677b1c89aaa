"""Collectives I (book/collectives_algorithms.md): the verdicts the page words from the models and
from this machine's core count (case keys and numbers; the sentences are in the page)."""

from __future__ import annotations

from ...models import collective_costs as mc
from ...verdict import Verdict, cases

# A ratio of two timings inside this band counts as "no difference" on a shared machine.
SAME_BAND = 0.10


def bandwidth_term_ratio(P: int) -> float:
    """The butterfly's n-beta coefficient over a bandwidth-optimal (Rabenseifner) allreduce's."""
    return mc.coefficients("allreduce", "recursive_doubling", P)[1] / mc.coefficients("allreduce", "rabenseifner", P)[1]


@cases("oversubscribed", "own_cores")
def oversubscription(cores: int, P_max: int) -> Verdict:
    """Whether the correctness runs (up to P_max processes) share cores on this machine."""
    if cores < 1 or P_max < 1:
        raise ValueError(f"cores and P_max must be positive, not {cores!r}, {P_max!r}")
    return Verdict("oversubscribed" if P_max > cores else "own_cores", {"cores": cores, "P_max": P_max})


@cases("meets", "misses")
def allgather_bruck_bounds(P_first: int = 2, P_last: int = 64) -> Verdict:
    """Whether Bruck's allgather's model coefficients equal the lower bounds' at every P of the
    range; `missed` counts the P where they do not."""
    bound = mc.LOWER_BOUNDS["allgather"]
    missed = [
        P for P in range(P_first, P_last + 1) if mc.coefficients("allgather", "bruck", P) != bound.coefficients(P)
    ]
    return Verdict("misses" if missed else "meets", {"P_first": P_first, "P_last": P_last, "missed": len(missed)})
