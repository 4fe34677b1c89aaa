"""The references of the exercises of scaling (book/scaling.md): computed from the scaling laws and the ORFEO Jacobi data."""

from __future__ import annotations

from ...exercises.core import _exercise


@_exercise("scal-amdahl", "scaling", rel_tol=0.01, giveaways=("amdahl_speedup(0.05",))
def _scal_amdahl():
    from ...chapters.scaling import amdahl_speedup

    return float(amdahl_speedup(0.05, 48))


@_exercise("scal-serial", "scaling", rel_tol=0.05, giveaways=("S.serial_fraction(", "serial_fraction(s.loc"))
def _scal_serial():
    from ...chapters.scaling import orfeo_jacobi, serial_fraction

    strong = orfeo_jacobi()[0]
    s = strong.set_index("np").speedup
    return float(serial_fraction(s.loc[48], 48))


@_exercise("scal-local", "scaling", rel_tol=0.02)
def _scal_local(t1_s, t2_s):
    return float(t1_s) / (2 * float(t2_s))
