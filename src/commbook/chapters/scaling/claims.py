"""Claims of the scaling page (book/scaling.md): the exercises' reference answers."""

from __future__ import annotations

from ...claims import reference_claim

reference_claim("scal-kf-48", "scaling", "", "scal-serial", rel_tol=0.005)
