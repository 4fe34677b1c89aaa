"""The three collectives pages (book/collectives_algorithms.md, collectives_library.md,
collectives_orfeo.md): what they share is in ``common`` (re-exported here), each page's own figures
and verdicts in ``collectives_<page>``, the library's exchange of messages in ``exchange``."""

from .common import *  # noqa: F403
