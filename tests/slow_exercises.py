"""Correct but slow solutions of the C exercises, each made from the shipped solution by one small
edit: the same result and the same message counts (the harnesses' counters cannot tell them
apart), but more time on simulated ORFEO. tests/test_exercises.py checks they lose the performance
point and tests/test_course.py that nbgrader takes it away."""

from __future__ import annotations

from pathlib import Path

from commbook import config

# (exercise, the solution's text, the slow text, what makes it slow)
EDITS = {
    "butterfly": (
        """            MPI_Sendrecv(recvbuf, count, MPI_DOUBLE, partner, 2, tmp, count, MPI_DOUBLE,
                         partner, 2, comm, MPI_STATUS_IGNORE);""",
        """            if (rank < partner) {   /* serialised: the lower rank sends, then receives */
                MPI_Send(recvbuf, count, MPI_DOUBLE, partner, 2, comm);
                MPI_Recv(tmp, count, MPI_DOUBLE, partner, 2, comm, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(tmp, count, MPI_DOUBLE, partner, 2, comm, MPI_STATUS_IGNORE);
                MPI_Send(recvbuf, count, MPI_DOUBLE, partner, 2, comm);
            }""",
        "each pairwise exchange serialised: two transfers per step instead of one",
    ),
    "gather": (
        """    for (int mask = 1; mask < P; mask <<= 1) {
        if (v & mask) {
            MPI_Send(held, have * n, MPI_CHAR, (v - mask + root) % P, 0, comm);
            break;
        }
        if (v + mask < P) {
            int blocks = mask < P - (v + mask) ? mask : P - (v + mask);
            MPI_Recv(held + (size_t)have * (size_t)n, blocks * n, MPI_CHAR,
                     (v + mask + root) % P, 0, comm, MPI_STATUS_IGNORE);
            have += blocks;
        }
    }""",
        """    int top = 1; /* the children are v + mask for every mask below v's lowest set bit */
    while (top < P && !(v & top)) top <<= 1;
    for (int mask = top >> 1; mask >= 1; mask >>= 1) /* fixed order: the largest subtree first */
        if (v + mask < P) {
            int blocks = mask < P - (v + mask) ? mask : P - (v + mask);
            MPI_Recv(held + (size_t)mask * (size_t)n, blocks * n, MPI_CHAR,
                     (v + mask + root) % P, 0, comm, MPI_STATUS_IGNORE);
            have += blocks;
        }
    if (v != 0) MPI_Send(held, have * n, MPI_CHAR, (v - top + root) % P, 0, comm);""",
        "waits for its children largest subtree first: the small ones wait instead of overlapping",
    ),
    "ring": (
        """    if (rank % 2 == 0) {""",
        """    if (rank == 0) { /* only rank 0 sends first: the others wait in a chain */""",
        "only rank 0 sends first: every step is a chain of P transfers",
    ),
}


def slow_variant(name: str, folder: Path) -> Path:
    """Write the slow variant of exercise `name` in `folder` and return its path."""
    old, new, _ = EDITS[name]
    text = (config.kernels_dir() / "exercises" / f"{name}_solution.c").read_text()
    assert old in text, f"{name}_solution.c changed: the slow variant's edit no longer applies"
    path = Path(folder) / f"{name}_slow.c"
    path.write_text(text.replace(old, new))
    return path
