"""Self-check cells for the exercises: compare a reader's answer with the reference."""
from __future__ import annotations

import math


class Verdict:
    """True or False for code, nothing extra on the page (the printed line says it all)."""

    def __init__(self, ok: bool):
        self.ok = bool(ok)

    def __bool__(self):
        return self.ok

    def __eq__(self, other):
        return bool(self) == bool(other)

    def __repr__(self):
        return f"Verdict({self.ok})"

    def _ipython_display_(self):
        pass


def check(name: str, answer, expected, rel_tol: float = 0.1, unit: str = "", hint: str = "") -> Verdict:
    """Print whether `answer` is within rel_tol of `expected` and return the verdict.

    `answer` None (the placeholder in the exercise cell) is reported as not yet answered.
    """
    if answer is None or answer is Ellipsis:
        print(f"[{name}] not answered yet: replace the ... with your value.")
        return Verdict(False)
    try:
        a, e = float(answer), float(expected)
    except (TypeError, ValueError):
        print(f"[{name}] {answer!r} is not a number.")
        return Verdict(False)
    ok = math.isclose(a, e, rel_tol=rel_tol, abs_tol=1e-12)
    if ok:
        print(f"[{name}] correct: {a:.4g} {unit} (reference {e:.4g} {unit}, tolerance {rel_tol:.0%}).")
    else:
        direction = "high" if a > e else "low"
        print(f"[{name}] not yet: {a:.4g} {unit} is too {direction} (tolerance {rel_tol:.0%}). {hint}")
    return Verdict(ok)


def check_choice(name: str, answer, expected, hint: str = "") -> Verdict:
    if answer is None or answer is Ellipsis:
        print(f"[{name}] not answered yet: replace the ... with your choice.")
        return Verdict(False)
    ok = str(answer).strip().lower() == str(expected).strip().lower()
    print(f"[{name}] {'correct' if ok else 'not yet'}: {answer!r}. {'' if ok else hint}")
    return Verdict(ok)
