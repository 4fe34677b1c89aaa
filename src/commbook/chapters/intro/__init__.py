"""The intro page (book/intro.md): its course map (``course_map``, re-exported here) and what
this machine can show (``scope``)."""

from .course_map import *  # noqa: F403
from .scope import scope  # noqa: F401
