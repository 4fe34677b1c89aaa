"""The topology page (book/topology.md). Its cells call what `figures` and `simulated` hold, re-exported here."""

from .figures import *  # noqa: F403
from .simulated import gap_growth, simulated_allreduce, simulated_source  # noqa: F401
