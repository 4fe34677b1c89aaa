"""Claims of the instructor page (book/instructor.md): the grader's settings, read from the
course package that applies them."""

from __future__ import annotations

from ...claims import claim


@claim(
    "course-c-time-limit",
    page="instructor",
    unit="s",
    source="commbook/exercises/c_checks.py: DEFAULT_TIME_LIMIT, the time limit of one graded C check",
)
def _():
    from ...exercises.c_checks import DEFAULT_TIME_LIMIT

    return DEFAULT_TIME_LIMIT
