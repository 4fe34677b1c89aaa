"""Self-checks for the book's exercises (see ``core`` for how a check works).

``from commbook.exercises import check`` is what a chapter's check cell calls; the C exercises'
checks are :func:`check_ring`, :func:`check_gather`, :func:`check_eager` and
:func:`check_exercise` (the butterfly); the first, second and last also grade the program's
speed on simulated ORFEO against the reference solution (``performance``).
"""

from .. import chapters
from .c_checks import (
    C_EXERCISES,
    c_exercise_path,
    check_eager,
    check_exercise,
    check_gather,
    check_ring,
    eager_range,
    exercise_path,
    reference_eager_limit,
)
from .core import REGISTRY, Exercise, Verdict, check, exercise, expected, graduated_hint, normalise_choice
from .performance import check_performance, simulated_performance

chapters.modules("exercises")  # each chapter's exercises register themselves

__all__ = [
    "C_EXERCISES",
    "REGISTRY",
    "Exercise",
    "Verdict",
    "c_exercise_path",
    "check",
    "check_eager",
    "check_performance",
    "eager_range",
    "check_exercise",
    "check_gather",
    "check_ring",
    "exercise",
    "exercise_path",
    "expected",
    "graduated_hint",
    "normalise_choice",
    "reference_eager_limit",
    "simulated_performance",
]
