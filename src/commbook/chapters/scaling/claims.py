"""Claims of the scaling page (book/scaling.md): the exercises' reference answers and the
Karp-Flatt serial fraction of the ORFEO strong runs at other P."""

from __future__ import annotations

from ...claims import claim, reference_claim

PAGE = "scaling"
SOURCE = "ORFEO Jacobi strong runs (francesc0rtu/jacobi, THIN) through commbook.chapters.scaling.serial_fraction"

reference_claim("scal-kf-48", PAGE, "", "scal-serial", rel_tol=0.005)


def _karp_flatt(P: int) -> float:
    from .figures import orfeo_jacobi, serial_fraction

    return serial_fraction(float(orfeo_jacobi()[0].set_index("np").speedup.loc[P]), P)


@claim("scal-kf-8", PAGE, source=SOURCE)
def _kf_8():
    return _karp_flatt(8)


@claim("scal-kf-24", PAGE, source=SOURCE)
def _kf_24():
    return _karp_flatt(24)
