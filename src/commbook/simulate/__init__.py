"""The book's kernels on simulated clusters: SimGrid's SMPI (see simulate/*.py)."""
