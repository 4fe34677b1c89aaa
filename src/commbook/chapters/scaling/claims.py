"""Claims of the scaling page (book/scaling.md): the ORFEO Jacobi runs' speedup, efficiency and
Amdahl fit, the Karp-Flatt serial fraction at several P, the exercises' reference answers."""

from __future__ import annotations

from ...claims import claim, reference_claim

PAGE = "scaling"
SOURCE = "ORFEO Jacobi strong runs (francesc0rtu/jacobi, THIN nodes) via commbook.chapters.scaling.orfeo_jacobi"
KARP_FLATT = SOURCE + " and serial_fraction"

reference_claim("scal-kf-48", PAGE, "", "scal-serial", rel_tol=0.005)


def _karp_flatt(P: int) -> float:
    from .figures import orfeo_jacobi, serial_fraction

    return serial_fraction(float(orfeo_jacobi()[0].set_index("np").speedup.loc[P]), P)


@claim("scal-kf-8", PAGE, source=KARP_FLATT)
def _kf_8():
    return _karp_flatt(8)


@claim("scal-kf-24", PAGE, source=KARP_FLATT)
def _kf_24():
    return _karp_flatt(24)


def _runs():
    from .figures import orfeo_jacobi

    strong, weak = orfeo_jacobi()
    return strong.set_index("np"), weak.set_index("np")


@claim("scal-s12", PAGE, source=SOURCE)
def _speedup_12():
    return float(_runs()[0].speedup.loc[12])


@claim("scal-e48", PAGE, unit="%", source=SOURCE)
def _efficiency_48():
    return 100 * float(_runs()[0].efficiency.loc[48])


@claim("scal-f", PAGE, source=SOURCE + " and fit_serial_fraction")
def _fitted_f():
    from .figures import fit_serial_fraction, orfeo_jacobi

    return fit_serial_fraction(orfeo_jacobi()[0])


@claim("scal-cap", PAGE, source=SOURCE + " and fit_serial_fraction: 1/f")
def _amdahl_cap():
    return 1 / _fitted_f()


@claim("scal-weak-e48", PAGE, unit="%", source=SOURCE.replace("strong", "weak"))
def _weak_efficiency_48():
    return 100 * float(_runs()[1].efficiency.loc[48])


@claim("scal-fg", PAGE, source=SOURCE.replace("strong", "weak") + " and fit_gustafson_fraction")
def _gustafson_f():
    from .figures import fit_gustafson_fraction, orfeo_jacobi

    return fit_gustafson_fraction(orfeo_jacobi()[1])
