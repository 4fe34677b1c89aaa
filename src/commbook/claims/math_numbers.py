"""Numbers inside a page's math are checked too.

In every math span of a page's prose (``$...$``, ``$$...$$``, ``{math}`` blocks, solutions
included), a chain ``a = b \\approx c`` whose sides are plain arithmetic must hold (each side
within 1 % of the one before, or within half a unit of its last stated digit). A number that is
an input, not the result of such a step, must be a value of a claim the page may state, a
definition (``P = 128``), a small integer (fewer than three significant digits, no decimal point)
or an entry of ``data/math_numbers.toml`` (page, text, reason). :func:`unchecked_math` returns
the others and the chains that do not hold.
"""

from __future__ import annotations

import math
import re
import warnings

from .prose import HTML_COMMENT, INLINE_MATH, Finding, prose_lines
from .quantity import NUMBER, parse_number

_RELATION = re.compile(r"\\approx|\\simeq|≈|(?<![<>!\\])=")
_STATEMENT = re.compile(r"\\q?quad|;|\\\\|&|\\text\{[^}]*\}|,\s(?=[A-Za-z\\])")
_NUM = re.compile(rf"(?<![\w.\\^_{{])(?:{NUMBER})(?![\w.])")
_SYMBOL = re.compile(r"^\s*(?:\\[A-Za-z]+|[A-Za-z])(?:_\{?[\w,\\]+\}?)?(?:\^\{?[\w*]+\}?)?\s*$")
_SCALES = (1.0, 1e3, 1e-3, 1e6, 1e-6, 100.0, 0.01)


def math_spans(text: str) -> list[tuple[int, str]]:
    """(line, body) of every math span in the page's prose (display math may span lines)."""
    text = HTML_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    lines = text.splitlines()
    prose = {n for n, _ in prose_lines(text)}
    spans, block, start = [], None, 0
    for n, line in enumerate(lines, 1):
        s = line.strip()
        if block is not None:
            if s.endswith("$$") or s.startswith("```"):
                spans.append((start, " ".join(block + [s.rstrip("$`")])))
                block = None
            else:
                block.append(s)
            continue
        if s.startswith("$$"):
            inner = s[2:]
            if inner.endswith("$$") and inner:
                spans.append((n, inner[:-2]))
            else:
                block, start = [inner], n
            continue
        if s.startswith("```{math}"):
            block, start = [], n
            continue
        if n in prose:
            spans += [(n, m.group("body")) for m in INLINE_MATH.finditer(line)]
    return spans


def _python(side: str) -> str | None:
    """A side of plain arithmetic in LaTeX as a Python expression; None if it has a symbol."""
    s = side.replace("\\,", "").replace("\\!", "").replace("\\;", "").replace("\\left", "").replace("\\right", "")
    s = re.sub(r"(\d)\s+(?=\d{3}\b)", r"\1", s)  # 28 800 -> 28800
    for _ in range(3):
        s = re.sub(r"\\[dt]?frac\{([^{}]*)\}\{([^{}]*)\}", r"((\1)/(\2))", s)
        s = re.sub(r"\\sqrt\{([^{}]*)\}", r"((\1)**0.5)", s)
    s = s.replace("\\cdot", "*").replace("\\times", "*").replace("\\pi", "(3.141592653589793)")
    s = re.sub(r"\^\{([^{}]*)\}", r"**(\1)", s).replace("^", "**").replace("{", "(").replace("}", ")")
    s = s.replace("−", "-")
    if not s.strip() or re.search(r"[A-Za-z\\_]", s):
        return None
    return s


def _value(side: str) -> float | None:
    expr = _python(side)
    if expr is None:
        return None
    try:
        with warnings.catch_warnings():  # '4(0.2)' is not Python: not plain arithmetic, no warning
            warnings.simplefilter("ignore")
            v = float(eval(expr, {"__builtins__": {}}, {}))  # digits and operators only (checked above)
    except Exception:
        return None
    return v if math.isfinite(v) else None


def _last_half(side: str) -> float:
    found = _NUM.findall(side.replace("\\,", ""))
    return parse_number(found[-1])[1] if found else 0.0


def _numbers(side: str) -> list[str]:
    clean = re.sub(r"(\d)\\,(?=\d{3})", r"\1", side)
    clean = re.sub(r"[\^_]\{[^}]*\}|[\^_]\w", " ", clean)  # exponents and subscripts
    return _NUM.findall(clean)


def _small(text: str) -> bool:
    """Fewer than three significant digits and no decimal point (2, 24, 1000), or a power of
    two (a size: 4096, 256): the shape of a formula, not a measured value."""
    clean = text.replace(",", "").lstrip("-−+")
    if "." in clean or "e" in clean.lower():
        return False
    return len(clean.rstrip("0") or "0") < 3 or (int(clean) & (int(clean) - 1)) == 0


def unchecked_math(text: str, page: str, values: list[float], allowed: set[str]) -> list[Finding]:
    """Math numbers the page states without a check, and chains that do not hold."""
    findings = []

    def known(number: str) -> bool:
        if _small(number) or re.sub(r"[ ,\\]", "", number) in allowed:
            return True
        v, half = parse_number(number)
        return any(abs(v - x * k) <= half * (1 + 1e-9) for x in values for k in _SCALES)

    for line, body in math_spans(text):
        for statement in _STATEMENT.split(body):
            sides = _RELATION.split(statement)
            if len(sides) == 2 and _SYMBOL.match(sides[0]) and _value(sides[1]) is not None:
                continue  # a definition: P = 128
            before = None  # value of the previous side, when it was plain arithmetic
            for k, side in enumerate(sides):
                v = _value(side)
                if v is not None and before is not None:
                    tol = max(0.01 * abs(v), _last_half(side) * (1 + 1e-9))
                    if abs(v - before) > tol:
                        findings.append(
                            Finding(page, line, statement.strip(), f"{before:.6g} is not {v:.6g}", "in math")
                        )
                else:
                    findings += [
                        Finding(page, line, n, "an input that is no claim of the page, no definition", "in math")
                        for n in _numbers(side)
                        if not known(n)
                    ]
                before = v
    return findings


def load_allowed(path) -> dict[str, set[str]]:
    """page -> the numbers data/math_numbers.toml allows there; a malformed entry names the file."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    allowed: dict[str, set[str]] = {}
    for k, entry in enumerate(tomllib.loads(path.read_text(encoding="utf-8")).get("number", []), 1):
        missing = {"text", "pages", "reason"} - set(entry)
        if missing:
            raise ValueError(f"{path}: number {k}: missing {sorted(missing)}")
        for page in entry["pages"]:
            allowed.setdefault(page, set()).add(entry["text"])
    return allowed


def claim_values(page: str) -> list[float]:
    """The numeric values of every claim registered for `page` (claims whose function fails are
    left out: tests/test_claims.py reports them)."""
    from . import REGISTRY, load_all

    load_all()
    values = []
    for c in REGISTRY.values():
        if page in c.pages:
            try:
                v = c.value()
            except Exception:
                continue
            if not isinstance(v, str):
                values.append(float(v))
    return values
