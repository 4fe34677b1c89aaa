"""Models of the distributed matrix addition C = A + B (kernels_c/matrix_add.c), and of the halo
exchange the same decomposition would need in a stencil code.

The kernel scatters A and B from the root, adds blocks, gathers C. With a linear (root sends to
each rank in turn) scatter over a link of latency λ (µs) and bandwidth b (MB/s = B/µs):

    T_scatter = (P − 1)·λ + (bytes not kept by the root) / b         per matrix
    T_gather  = the same, towards the root
    T_add     = (elements of the largest block) / r_add               r_add in elements/µs
    T         = 2·T_scatter + T_add + T_gather (+ the root's packing, a memory copy)

Open MPI's MPI_Scatterv and MPI_Gatherv are linear (coll/base ``*_intra_linear``); the binomial
tree variant, ⌈log₂P⌉·λ + (P−1)/P · N·8/b, is here for comparison. The data term does not depend
on the grid shape at all: whatever the grid, the root sends every byte but its own block once.
That is why the ORFEO students found 1-D, 2-D and 3-D distributions equally fast.

The shape would matter for a stencil code, which exchanges halos between neighbours at every
step: the halo of a block is its surface, so the grid that minimises the cut area (most cubic
blocks) wins. :func:`halo_elements` counts it; :func:`best_grid` picks it.

Blocks follow the kernel: an extent n over p parts gives part i n//p + (i < n % p) points; grids
are 3-D (a 1-D grid is Px1x1). Everything here is a model.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from .hockney import Hockney

ALGORITHMS = ("linear", "binomial")
BYTES_PER_ELEMENT = 8  # doubles


def _dims(name: str, value) -> tuple[int, int, int]:
    """'2x3x1', (2, 3), [4] -> (2, 3, 1); refuses non-positive or non-integer entries."""
    if isinstance(value, str):
        parts = value.lower().split("x")
        try:
            vals = [int(p) for p in parts]
        except ValueError:
            raise ValueError(f"{name} {value!r} is not of the form AxBxC") from None
    else:
        vals = list(value)
    if not 1 <= len(vals) <= 3:
        raise ValueError(f"{name} {value!r} must have 1 to 3 dimensions")
    for v in vals:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} {value!r}: every dimension must be a whole number >= 1")
    vals = [int(v) for v in vals] + [1] * (3 - len(vals))
    return tuple(vals)


def split(n: int, p: int) -> list[int]:
    """Lengths of the p parts of n points, the first n % p one longer (as the kernel does)."""
    if p < 1 or n < p:
        raise ValueError(f"cannot split {n} points into {p} non-empty parts")
    q, r = divmod(n, p)
    return [q + (i < r) for i in range(p)]


def check_grid(shape, grid) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    s, g = _dims("shape", shape), _dims("grid", grid)
    for d in range(3):
        if g[d] > s[d]:
            raise ValueError(
                f"grid {'x'.join(map(str, g))} splits axis {d} (extent {s[d]}) into "
                f"{g[d]} parts: some blocks would be empty"
            )
    return s, g


def block_sizes(shape, grid) -> np.ndarray:
    """Elements of every block, in Cartesian rank order (last grid dimension fastest)."""
    s, g = check_grid(shape, grid)
    parts = [split(s[d], g[d]) for d in range(3)]
    return np.array([a * b * c for a, b, c in itertools.product(*parts)], dtype=np.int64)


def elements(shape) -> int:
    return math.prod(_dims("shape", shape))


@dataclass(frozen=True)
class MatrixAddTimes:
    """Model times in µs of the kernel's phases (scatter is for both A and B)."""

    scatter: float
    add: float
    gather: float
    pack: float
    serial: float

    @property
    def total(self) -> float:
        return self.scatter + self.add + self.gather

    @property
    def speedup(self) -> float:
        """Serial add time / distributed total: below 1 means distributing does not pay."""
        return self.serial / self.total


def collective_time(P: int, bytes_moved: float, link: Hockney, algorithm: str = "linear") -> float:
    """One scatter (or gather) moving `bytes_moved` bytes between the root and the others."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; valid: {ALGORITHMS}")
    if P < 1:
        raise ValueError(f"P must be >= 1, not {P}")
    if P == 1:
        return 0.0
    msgs = P - 1 if algorithm == "linear" else math.ceil(math.log2(P))
    return msgs * link.lambda_us + bytes_moved / link.bandwidth_MBps


def predict(
    shape, grid, link: Hockney, add_rate: float, copy_rate: float | None = None, algorithm: str = "linear"
) -> MatrixAddTimes:
    """Model of one C = A + B with the kernel's phases.

    add_rate: elements per µs one core adds (measure it: the kernel's t_serial_add_us).
    copy_rate: bytes per µs of a memory copy at the root (packing blocks, and MPI's copy of the
    root's own block); None leaves copies out.
    """
    if not (add_rate > 0 and math.isfinite(add_rate)):
        raise ValueError(f"add_rate must be a positive number of elements per µs, not {add_rate!r}")
    if copy_rate is not None and not (copy_rate > 0 and math.isfinite(copy_rate)):
        raise ValueError(f"copy_rate must be a positive number of bytes per µs, not {copy_rate!r}")
    blocks = block_sizes(shape, grid)
    P, N = len(blocks), int(blocks.sum())
    moved = float(N - blocks[0]) * BYTES_PER_ELEMENT
    one = collective_time(P, moved, link, algorithm)
    pack = 0.0
    if copy_rate is not None:  # the root packs every block, and MPI copies its own block locally
        pack = N * BYTES_PER_ELEMENT / copy_rate
        one += float(blocks[0]) * BYTES_PER_ELEMENT / copy_rate
    return MatrixAddTimes(
        scatter=2 * (one + pack), add=float(blocks.max()) / add_rate, gather=one + pack, pack=pack, serial=N / add_rate
    )


# ---------------------------------------------------------------------------------------
# Where the grid shape does matter: halo exchange


def halo_elements(shape, grid, width: int = 1) -> int:
    """Elements sent in one halo exchange of a stencil code on this decomposition (all ranks,
    both directions, non-periodic): each of the g_d − 1 cuts across axis d has area N / n_d and
    is crossed twice."""
    s, g = check_grid(shape, grid)
    N = math.prod(s)
    return int(2 * width * sum((g[d] - 1) * (N // s[d]) for d in range(3)))


def max_halo_per_rank(shape, grid, width: int = 1) -> int:
    """Elements the busiest rank sends per halo exchange (an interior block: two faces per
    split axis, one when the axis has only two parts)."""
    s, g = check_grid(shape, grid)
    big = [max(split(s[d], g[d])) for d in range(3)]
    total = 0
    for d in range(3):
        if g[d] > 1:
            face = math.prod(big) // big[d]
            total += width * face * (2 if g[d] > 2 else 1)
    return int(total)


def grids(P: int, ndims: int = 3) -> list[tuple[int, int, int]]:
    """Every ordered grid (a, b, c) with a·b·c = P using at most `ndims` split axes."""
    if isinstance(P, bool) or not isinstance(P, (int, np.integer)) or P < 1:
        raise ValueError(f"P must be a whole number >= 1, not {P!r}")
    out = []
    for a in range(1, P + 1):
        if P % a:
            continue
        for b in range(1, P // a + 1):
            if (P // a) % b:
                continue
            g = (a, b, P // a // b)
            if sum(x > 1 for x in g) <= ndims:
                out.append(g)
    return out


def best_grid(shape, P: int, ndims: int = 3) -> tuple[int, int, int]:
    """The grid of P processes with the least halo traffic for this matrix (ties: the first in
    grids() order). Grids that would leave a block empty are skipped."""
    s = _dims("shape", shape)
    ok = [g for g in grids(P, ndims) if all(g[d] <= s[d] for d in range(3))]
    if not ok:
        raise ValueError(f"no grid of {P} processes fits shape {'x'.join(map(str, s))}")
    return min(ok, key=lambda g: halo_elements(s, g))


def grid_name(grid) -> str:
    g = _dims("grid", grid)
    return "x".join(map(str, g))


def grid_dimensionality(grid) -> int:
    """1, 2 or 3: how many axes the grid splits (a 1x1x1 grid counts as 1-D)."""
    return max(1, sum(x > 1 for x in _dims("grid", grid)))


def speedup_limit(bandwidth_MBps: float, add_rate: float) -> float:
    """Speedup of scatter-add-gather as P grows, without latency and copies: the root moves
    3·8·N·(P−1)/P bytes at b B/µs, each core adds N/P elements at r per µs, so

        speedup(P) = P / (a·(P − 1) + 1),   a = 24·r / b,   -> 1/a = b / (24 r).

    If the limit is below 1 (moving an element's 24 bytes takes longer than adding it),
    distributing never pays, at any P > 1; otherwise speedup(P) climbs towards the limit."""
    if not (bandwidth_MBps > 0 and add_rate > 0):
        raise ValueError("bandwidth and add rate must be positive")
    return bandwidth_MBps / (3 * BYTES_PER_ELEMENT * add_rate)


def grid_rows(tidy):
    """Matrix-addition rows of a tidy table (e.g. ORFEO data from commbook.orfeo.load) with
    their process grid and matrix shape as columns ``grid``, ``matrix`` (both AxBxC) and the
    repository owner as ``source_label``. Rows that do not name both are dropped. The students
    called them grid/matrix or topology/distribution in their params."""
    import pandas as pd

    from ..data import params_to_dict

    rows = []
    for r in tidy.itertuples(index=False):
        p = params_to_dict(r.params)
        grid, shape = p.get("grid") or p.get("topology"), p.get("matrix") or p.get("distribution")
        if not grid or not shape:
            continue
        rows.append(
            {
                "grid": grid_name(grid),
                "matrix": grid_name(shape),
                "np": r.np,
                "t_us": r.t_us,
                "algorithm": r.algorithm,
                "source_label": str(r.source).split("/")[0],
            }
        )
    return pd.DataFrame(rows, columns=["grid", "matrix", "np", "t_us", "algorithm", "source_label"])
