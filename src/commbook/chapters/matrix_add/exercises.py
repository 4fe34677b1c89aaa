"""The references of the exercises of the matrix-add page (book/matrix_add.md): computed from the scatter model and the report's figures."""

from __future__ import annotations

from ...exercises.core import _exercise
from ...exercises.sources import link as _link


@_exercise("mat-orfeo", "matrix_add", rel_tol=0.03, unit="µs")
def _mat_orfeo():
    from ...models import matrix as M
    from ...models.hockney import Hockney

    link = _link("socket", "ucx")
    lam, b = link.latency_us, link.bandwidth_MBps
    blocks = M.block_sizes("2400x100x100", "24x1x1")
    moved = 8 * (int(blocks.sum()) - int(blocks.flat[0]))  # every block but the root's
    return 3 * M.collective_time(24, moved, Hockney(lam, b))


@_exercise(
    "mat-halo", "matrix_add", rel_tol=0, unit="elements", giveaways=('halo_elements("100x100x100", M.best_grid',)
)
def _halo():
    from ...models import matrix as M

    return M.halo_elements("100x100x100", M.best_grid("100x100x100", 24))


@_exercise("mat-pay", "matrix_add", rel_tol=0.02, giveaways=("speedup_limit(5420",))
def _mat_pay():
    from ...models.matrix import speedup_limit

    return speedup_limit(5420, 500)


@_exercise("mat-live", "matrix_add_lab", rel_tol=0.02)
def _mat_live(serial_us, total_us):
    return float(serial_us) / float(total_us)
