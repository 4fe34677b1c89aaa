"""commbook: measure MPI communication for real and model it (the package behind the book)."""

__version__ = "0.1.0"
