"""The references of the exercises of the ring page (book/ring.md): computed from the ring model over ORFEO's THIN links."""

from __future__ import annotations

from ...exercises.core import _exercise


def _thin_ring():
    from ... import orfeo

    return orfeo.links("ucx"), orfeo.placement("orfeo-thin", map_by="core")


def _ring_time(P: int, n: float) -> float:
    from ...models.ring import ring_time

    links, thin = _thin_ring()
    return float(ring_time([P], n, links, thin)[0])


def _ring_size_for(P: int, target_us: float) -> float:
    """The message size at which the THIN ring of P ranks takes target_us in the ring model."""
    from scipy.optimize import brentq

    return float(brentq(lambda n: _ring_time(P, n) - target_us, 0.0, 1e9, xtol=1e-3))


@_exercise("ring-p25", "ring", rel_tol=0.02, unit="µs", giveaways=("ring_time(25", "ring_time([25]"))
def _ring_p25():
    return _ring_time(25, 4)


@_exercise("ring-epyc", "ring", rel_tol=0, giveaways=("boundaries(300)", "Placement(64, 2).boundaries"))
def _ring_epyc():
    from ...models.ring import Placement

    return Placement(64, 2).boundaries(300)[2][0]


@_exercise("ring-1ms", "ring", rel_tol=0.03, unit="B", giveaways=("_ring_size_for", "brentq"))
def _ring_1ms():
    return _ring_size_for(48, 1000.0)
