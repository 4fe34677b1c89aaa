"""Collectives I (book/collectives_algorithms.md): the verdicts its prose takes from the runs.

Every sentence of the page that judges a measurement is chosen here from the measured values,
so the page cannot say what its own figures contradict on another machine or another day."""

from __future__ import annotations

import pandas as pd

# A ratio of two timings inside this band counts as "no difference" on a shared machine.
SAME_BAND = 0.10


def ratio_words(ratio: float, band: float = SAME_BAND) -> str:
    """'the same time (within 10 %)', 'x.xx times slower' or 'x.xx times faster'."""
    if not ratio > 0:
        raise ValueError(f"a time ratio must be positive, not {ratio!r}")
    if abs(ratio - 1) <= band:
        return f"the same time within {band * 100:.0f} %"
    if ratio > 1:
        return f"{ratio:.2f} times slower"
    return f"{1 / ratio:.2f} times faster"


def bit_order_verdict(order: pd.DataFrame, band: float = SAME_BAND) -> str:
    """The sentence on the measured bit orders (a commbook.chapters.collectives.ratio_table of
    low-to-high over high-to-low), from the median over sizes of the fastest repetitions."""
    r = float(order.ratio_of_minima.median())
    if abs(r - 1) <= band:
        return (
            f"here the two orders took the same time within {band * 100:.0f} % (median ratio of the "
            f"fastest repetitions {r:.2f}), as the model says"
        )
    slower = "low-to-high" if r > 1 else "high-to-low"
    return (
        f"here the {slower} order was slower by a factor {max(r, 1 / r):.2f} (median ratio "
        f"of the fastest repetitions): more than the {band * 100:.0f} % this page counts as noise, "
        "and the model has no term for it"
    )


def bandwidth_term_ratio(P: int) -> float:
    """The butterfly's n-beta coefficient over a bandwidth-optimal (Rabenseifner) allreduce's."""
    from ...models import collective_costs as mc

    return mc.coefficients("allreduce", "recursive_doubling", P)[1] / mc.coefficients("allreduce", "rabenseifner", P)[1]


def bit_order_setting(P: int, cores: int) -> str:
    """How the P processes of the bit-order timing sit on this machine's cores, and what the
    order of the steps can change there."""
    if P > cores:
        return (
            f"this machine has {cores} cores, so they are oversubscribed: processes share cores, and "
            "the order does decide *which pairs* share a core in which step"
        )
    return f"this machine has {cores} cores, so each process has a core of its own"


def bit_order_cause(P: int, cores: int) -> str:
    """Where a measured difference between the two bit orders can come from on this machine."""
    if P > cores:
        return "On this machine any difference comes from which processes share a core, not from the order as such"
    return (
        "Both orders make the same exchanges, each process on its own core, so any difference "
        "comes from effects the model leaves out, not from the order as such"
    )
