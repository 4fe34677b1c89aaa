"""The mpi_primer page (book/mpi_primer.md). Its cells call what `figures` holds, re-exported here."""

from .figures import *  # noqa: F403
