"""The topology page (book/topology.md). Its cells call what `figures` holds, re-exported here."""

from .figures import *  # noqa: F403
