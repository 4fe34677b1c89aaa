"""The references of the exercises of the Jacobi page (book/jacobi.md): computed from the Jacobi model and the report's figures."""

from __future__ import annotations

from ...exercises.core import _exercise


def _jacobi_thin_nodes():
    """(T_s, T_l, B/2) of the report's 2-THIN-node runs, from data/orfeo/jacobi_seed.csv."""
    from ... import orfeo
    from ...models import jacobi as jm

    return jm.seed_parameters(orfeo.summary_table("jacobi_seed"))[("orfeo-thin", "node")]


@_exercise("jac-decomp bytes", "jacobi", rel_tol=0.01, unit="B", giveaways=("best_decomposition(240",))
def _jac_decomp_bytes():
    from ...models.jacobi import best_decomposition

    return best_decomposition(240, 8)[1]


@_exercise("jac-decomp grid", "jacobi", kind="choice", giveaways=("best_decomposition(240",))
def _jac_decomp_grid():
    from ...models.jacobi import best_decomposition

    return "x".join(map(str, best_decomposition(240, 8)[0]))


@_exercise("jac-ts", "jacobi_lab", rel_tol=0.05, unit="s", giveaways=("ts_from_roofline(256",))
def _jac_ts(copy_MBps):
    from ...models import jacobi as jm

    return jm.ts_from_roofline(256, copy_MBps, jm.code_balance(True, True))


@_exercise("jac-orfeo", "jacobi", rel_tol=0.01, unit="MLUP/s", giveaways=("performance_mlups(1200, 24",))
def _jac_orfeo():
    from ...models import jacobi as jm

    T_s, T_l, B_half = _jacobi_thin_nodes()
    return jm.performance_mlups(1200, 24, T_s, 6, 2 * B_half, T_l)


def face_bytes(L: int, grid: tuple) -> int:
    """The largest face (bytes of doubles) of a block of an L^3 grid split as `grid`."""
    block = [-(-L // g) for g in grid]  # the largest block along each axis
    return max(8 * block[(d + 1) % 3] * block[(d + 2) % 3] for d in range(3) if grid[d] > 1)


@_exercise("jac-face", "jacobi_lab", rel_tol=0, unit="B", giveaways=("face_bytes(",))
def _jac_face():
    return face_bytes(96, (2, 2, 1))
