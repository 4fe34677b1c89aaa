"""Claims of the measuring page (book/measuring.md): the exercises' reference answers."""

from __future__ import annotations

from ...claims import reference_claim

reference_claim("meas-osu-factor", "measuring", "", "meas-osu", rel_tol=0.005)
