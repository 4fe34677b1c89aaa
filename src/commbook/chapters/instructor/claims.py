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


@claim(
    "course-perf-np",
    page="instructor",
    unit="",
    source="commbook/exercises/performance.py: NP, the processes of the simulated run that grades a C exercise's speed",
)
def _():
    from ...exercises.performance import NP

    return NP


@claim(
    "course-perf-slower",
    page="instructor",
    unit="%",
    source="commbook/exercises/performance.py: TOLERANCE, how much slower than the reference solution a C exercise may be",
)
def _():
    from ...exercises.performance import TOLERANCE

    return round((TOLERANCE - 1) * 100)
