"""Claims of the measuring page (book/measuring.md): the exercises' reference answers."""

from __future__ import annotations

from ...claims import claim, reference_claim
from . import figures as M

reference_claim("meas-osu-factor", "measuring", "", "meas-osu", rel_tol=0.005)

ORFEO_PINGPONG = "data/orfeo (matteoscorcia/pingpong, THIN rows with more than one run)"


@claim("meas-orfeo-runs", page="measuring", source=ORFEO_PINGPONG)
def _():
    return int(M.orfeo_run_spread()[0].runs.max())


@claim("meas-orfeo-small-max", page="measuring", unit="B", source="commbook.chapters.measuring.SPREAD_SMALL_MAX")
def _():
    return M.SPREAD_SMALL_MAX


@claim("meas-orfeo-large-min", page="measuring", unit="B", source="commbook.chapters.measuring.SPREAD_LARGE_MIN")
def _():
    return M.SPREAD_LARGE_MIN


@claim("meas-orfeo-spread-small", page="measuring", unit="%", source=ORFEO_PINGPONG)
def _():
    return M.orfeo_spreads()[0]


@claim("meas-orfeo-spread-large", page="measuring", unit="%", source=ORFEO_PINGPONG)
def _():
    return M.orfeo_spreads()[1]
