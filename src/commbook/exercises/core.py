"""Self-checks for the book's exercises: the reader's answer against a reference the page never shows.

A chapter's check cell names only the exercise and the reader's value::

    check("pp-nhalf", n_half_answer)

The expected values live here, computed from the shipped data and the package's models (never
typed into a chapter), so reading the notebook does not give the answer away;
``tests/test_exercises.py`` fails if a chapter's student-visible text holds an expected value or
the call that computes it. A few exercises depend on what the page measured on this machine;
their checks take that measurement as a named input (``check("jac-ts", ts_answer,
copy_MBps=b_copy)``), never the answer.

This module is the registry and the check; the references are in each chapter's package
(``commbook/chapters/<page>/exercises.py``), the C exercises in ``c_checks``. What a wrong answer
is told (the hint, and the method from the third wrong answer) is words for the reader, so it lives
in a data file beside the references, ``commbook/chapters/<page>/hints.toml``, not in code; the
lines a check prints are templates in ``feedback.toml`` (``commbook.exercises.feedback``).
"""

from __future__ import annotations

import functools
import importlib.resources
import inspect
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

from .feedback import say

HINTS_FILE = "hints.toml"  # in the package of an exercise's reference: one table per exercise


class Verdict:
    """True or False for code, nothing extra on the page (the printed line says it all); `case`
    is the case key of what was printed (its words are in ``feedback.toml``), `facts` the numbers
    it was filled with (tests check these, not the words); `said`, a failure's printed line
    (the grader quotes it)."""

    def __init__(self, ok: bool, case: str = "", *, said: str = "", **facts):
        self.ok = bool(ok)
        self.case = case
        self.said = said
        self.facts = facts

    def __bool__(self):
        return self.ok

    def __eq__(self, other):
        return bool(self) == bool(other)

    def __repr__(self):
        return f"Verdict({self.ok}, {self.case!r})"

    def _ipython_display_(self):
        pass


@dataclass(frozen=True)
class Exercise:
    """One self-checked exercise: how to compute its reference value, and how close is close."""

    name: str
    chapter: str  # book/<chapter>.md
    expected: Callable[..., object]  # (**inputs) -> number or choice
    rel_tol: float = 0.02
    unit: str = ""
    hint: str = ""  # after a wrong answer: which way to look (from hints.toml)
    kind: str = "number"  # or "choice"
    method: str = ""  # from the third wrong answer: a worked step, never the value (hints.toml)
    inputs: tuple = ()  # measurements of the page the reference depends on
    giveaways: tuple = field(default=())  # code that computes the answer: never in the chapter


REGISTRY: dict[str, Exercise] = {}


def _register(ex: Exercise) -> Exercise:
    if ex.name in REGISTRY:
        raise ValueError(f"exercise {ex.name!r} registered twice")
    if ex.kind not in ("number", "choice"):
        raise ValueError(f"exercise kind must be 'number' or 'choice', not {ex.kind!r}")
    REGISTRY[ex.name] = ex
    return ex


def exercise(name: str) -> Exercise:
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"no exercise {name!r}; known: {sorted(REGISTRY)}") from None


def expected(name: str, **inputs):
    """The reference value of an exercise (for instructors and tests)."""
    ex = exercise(name)
    missing = set(ex.inputs) - set(inputs)
    extra = set(inputs) - set(ex.inputs)
    if missing or extra:
        raise TypeError(
            f"exercise {name!r} takes the inputs {list(ex.inputs)}"
            + (f"; missing {sorted(missing)}" if missing else "")
            + (f"; unexpected {sorted(extra)}" if extra else "")
        )
    return ex.expected(**inputs)


def normalise_choice(text) -> str:
    """A choice as compared: lower case, no spaces, '×' as 'x' ("2 x 2 x 2" == "2x2x2")."""
    return re.sub(r"\s+", "", str(text)).lower().replace("×", "x")


_wrong_answers: Counter = Counter()  # wrong answers per exercise in this session (graduated hints)


def graduated_hint(name: str) -> str:
    """The help after the reader's latest wrong answer to `name`: the direction (the hint) at
    first, and from the third wrong answer on a worked step of the method too."""
    ex = exercise(name)
    n = _wrong_answers[name]
    if n >= 3 and ex.method:
        return say("check.hint_with_method", hint=ex.hint, method=ex.method).strip()
    return ex.hint


def _told(ok: bool, case: str, text: str) -> Verdict:
    print(text.rstrip())
    return Verdict(ok, case)


def check(name: str, answer, **inputs) -> Verdict:
    """Print whether the reader's `answer` to exercise `name` is right and return the verdict.

    `answer` ... (the placeholder in the exercise cell) or None is reported as not answered yet.
    A wrong answer gets the direction (too high, too low, and the hint); from the third wrong
    answer on, a worked step of the method as well (never the value). The verdict's case is
    correct, too_high, too_low, wrong_choice, not_a_number, not_answered or cannot_check.
    """
    ex = exercise(name)
    if answer is None or answer is Ellipsis:
        choice = ex.kind == "choice"
        return _told(
            False, "not_answered", say("check.not_answered_choice" if choice else "check.not_answered", name=name)
        )
    try:
        ref = expected(name, **inputs)
    except LookupError as e:  # the data the reference is computed from are not at hand
        return _told(False, "cannot_check", say("check.cannot_check", name=name, error=e))
    if ex.kind == "choice":
        if normalise_choice(answer) == normalise_choice(ref):
            return _told(True, "correct", say("check.choice_correct", name=name, answer=answer))
        _wrong_answers[name] += 1
        hint = graduated_hint(name)
        return _told(False, "wrong_choice", say("check.wrong_choice", name=name, answer=answer, hint=hint))
    try:
        a, e = float(answer), float(ref)
    except (TypeError, ValueError):
        return _told(False, "not_a_number", say("check.not_a_number", name=name, answer=answer))
    unit = f" {ex.unit}" if ex.unit else ""
    if math.isclose(a, e, rel_tol=ex.rel_tol, abs_tol=1e-12):
        text = say("check.correct", name=name, answer=a, unit=unit, reference=e, tolerance=ex.rel_tol)
        return _told(True, "correct", text)
    _wrong_answers[name] += 1
    hint = graduated_hint(name)
    if a > e:
        return _told(
            False, "too_high", say("check.too_high", name=name, answer=a, unit=unit, tolerance=ex.rel_tol, hint=hint)
        )
    return _told(
        False, "too_low", say("check.too_low", name=name, answer=a, unit=unit, tolerance=ex.rel_tol, hint=hint)
    )


def _exercise(name: str, chapter: str, **details):
    """Register the decorated function as the reference of exercise `name` of book/<chapter>.md.

    Its parameters are the page's measurements it depends on (the exercise's inputs); what a wrong
    answer is told is the table ``["name"]`` of ``hints.toml`` in the reference's package. Imports
    inside the reference run only when a reference is asked for."""

    def register(reference):
        inputs = tuple(inspect.signature(reference).parameters)
        told = hints_of(reference.__module__.rpartition(".")[0]).get(name, {})
        _register(Exercise(name, chapter, reference, inputs=inputs, **told, **details))
        return reference

    return register


@functools.cache
def hints_of(package: str) -> dict[str, dict[str, str]]:
    """{exercise: {"hint": ..., "method": ...}} from the hints file of `package` ({} if it has none)."""
    path = importlib.resources.files(package) / HINTS_FILE
    return read_hints(path) if path.is_file() else {}


def read_hints(path) -> dict[str, dict[str, str]]:
    """A hints file read and checked: a malformed one raises ValueError naming the file and the line or entry."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ValueError(f"{path}: {e}") from None
    for name, entry in raw.items():
        if not (
            isinstance(entry, dict)
            and set(entry) == {"hint", "method"}
            and all(isinstance(v, str) and v.strip() for v in entry.values())
        ):
            raise ValueError(
                f'{path}: entry ["{name}"] must hold exactly hint = "..." and method = "..." (non-empty strings),'
                f" not {entry!r}"
            )
    return raw
