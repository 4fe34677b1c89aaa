"""The intro page (book/intro.md): its course map (``course_map``, re-exported here)."""

from .course_map import *  # noqa: F403
