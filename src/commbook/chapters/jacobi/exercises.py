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
    """Hint: A face of a block nx*ny*nz normal to x has ny*nz doubles; count neighbours per dimension.

    Method: for a grid (a, b, c) of 240^3 the busiest block sends two faces per split axis; a face normal to x holds
    (240/b)·(240/c) doubles of 8 bytes.
    """
    from ...models.jacobi import best_decomposition

    return best_decomposition(240, 8)[1]


@_exercise("jac-decomp grid", "jacobi", kind="choice", giveaways=("best_decomposition(240",))
def _jac_decomp_grid():
    """Hint: Compare the busiest process's bytes for the three decompositions.

    Method: compute the busiest process's bytes for 8x1x1, 4x2x1 and 2x2x2 and keep the smallest.
    """
    from ...models.jacobi import best_decomposition

    return "x".join(map(str, best_decomposition(240, 8)[0]))


@_exercise("jac-ts", "jacobi_lab", rel_tol=0.05, unit="s", giveaways=("ts_from_roofline(256",))
def _jac_ts(copy_MBps):
    """Hint: T_s = L^3 x (bytes per lattice update) / bandwidth, with MB/s = 1e6 B/s.

    Method: bytes per lattice update from the chapter's code balance (with write-allocate), times 256^3, divided by the
    copy bandwidth in B/s.
    """
    from ...models import jacobi as jm

    return jm.ts_from_roofline(256, copy_MBps, jm.code_balance(True, True))


@_exercise("jac-orfeo", "jacobi", rel_tol=0.01, unit="MLUP/s", giveaways=("performance_mlups(1200, 24",))
def _jac_orfeo():
    """Hint: c = 1200^2 x 6 x 2 x 8 B; c/B with B in B/s; T_l in s.

    Method: P = L^3·N / (T_s + c/B + k·T_l) with L = 1200, N = 24, k = 6, B = 2·(B/2) in B/s, T_l in s; divide by 10^6.
    """
    from ...models import jacobi as jm

    T_s, T_l, B_half = _jacobi_thin_nodes()
    return jm.performance_mlups(1200, 24, T_s, 6, 2 * B_half, T_l)


def face_bytes(L: int, grid: tuple) -> int:
    """The largest face (bytes of doubles) of a block of an L^3 grid split as `grid`."""
    block = [-(-L // g) for g in grid]  # the largest block along each axis
    return max(8 * block[(d + 1) % 3] * block[(d + 2) % 3] for d in range(3) if grid[d] > 1)


@_exercise("jac-face", "jacobi_lab", rel_tol=0, unit="B", giveaways=("face_bytes(",))
def _jac_face():
    """Hint: A face normal to x of a block nx*ny*nz holds ny*nz doubles of 8 bytes.

    Method: the grid 2x2x1 splits 96 into 48 along x and y; list the faces normal to the split axes and multiply their
    two extents by 8.
    """
    return face_bytes(96, (2, 2, 1))
