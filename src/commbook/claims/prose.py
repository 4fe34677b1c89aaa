"""Find the numbers with a unit in a page's prose that nobody checks.

A chapter's prose is its Markdown outside code cells, code blocks, math, code spans, roles and
directive options. A number followed by a unit (µs, MiB, GB/s, %, ...) or written as a factor
(×1.5, 3 times) must be glued from the run (`{glue:text}`), a checked `{claim}`, or a literature
constant in data/literature_constants.toml (with its citation). :func:`unchecked_numbers`
returns the others with their line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .quantity import NUMBER

# units the scan looks for after a number (longest first, word-bounded)
SCAN_UNITS = [
    "GB/s",
    "GiB/s",
    "MB/s",
    "MiB/s",
    "KB/s",
    "kB/s",
    "Gb/s",
    "Mb/s",
    "Gbit/s",
    "Mbit/s",
    "Mbps",
    "Gbps",
    "bps",
    "B/s",
    "GT/s",
    "MLUP/s",
    "MLUPs",
    "GFLOP/s",
    "flop/s",
    "Flop/s",
    "flop/B",
    "GHz",
    "MHz",
    "ns",
    "µs",
    "μs",
    "us",
    "ms",
    "s",
    "sec",
    "seconds",
    "second",
    "minutes",
    "min",
    "KiB",
    "MiB",
    "GiB",
    "TiB",
    "KB",
    "kB",
    "MB",
    "GB",
    "TB",
    "B",
    "bytes",
    "byte",
    "%",
    "×",
    "times",
    "percent",
]
_UNIT_RE = "|".join(re.escape(u) for u in sorted(SCAN_UNITS, key=len, reverse=True))
# a number (not inside a word or an identifier) and its unit; or ×number; or number× / numberx
_WITH_UNIT = rf"(?<![\w./])(?P<number>{NUMBER})\s?(?P<unit>{_UNIT_RE})(?![\w/])"
# the first numbers of '4.8 to 16 µs', '0.26 and 0.55 µs', '6220 against mlx 6290 MB/s'
_BEFORE = (
    rf"(?<![\w./])(?P<first>{NUMBER})(?=\s*(?:to|and|or|against|vs\.?|–|-|,|/)\s*"
    rf"(?:[A-Za-z]+\s)?(?:{NUMBER})\s?(?:{_UNIT_RE})(?![\w/]))"
)
QUANTITY = re.compile(rf"{_WITH_UNIT}|{_BEFORE}|(?P<times>×)\s?(?P<factor>{NUMBER})")
ROLE = re.compile(r"\{[\w:.-]+\}`[^`]*`")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)(?P<body>(?:[^$\n]|\n(?!\s*\n))+?)\$(?!\$)")
LINK_TARGET = re.compile(r"\]\([^)]*\)")
HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
PLACEHOLDER = "⟨checked⟩"
# fences whose content is not prose
_CODE_DIRECTIVES = {
    "code-cell",
    "literalinclude",
    "code",
    "code-block",
    "math",
    "raw",
    "glue:figure",
    "glue",
    "csv-table",
    "bibliography",
    "toctree",
    "image",
    "figure-md",
    "mermaid",
}
_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,}|:{3,})(?P<info>.*)$")


@dataclass(frozen=True)
class Finding:
    """A number of a page that nothing checks: where, the number, and its line (or, in math,
    why: `where` says which)."""

    page: str
    line: int
    text: str
    context: str
    where: str = "in"

    @property
    def why(self) -> str:
        return self.context

    def __str__(self) -> str:
        return f"{self.page}.md:{self.line}: {self.text!r} {self.where}: {self.context.strip()[:110]}"


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) of the page's prose: front matter, code and math blocks, directive
    options and comments removed."""
    lines = text.splitlines()
    out, i, stack = [], 0, []  # stack of (fence, is_code)
    if lines and lines[0].strip() == "---":
        i = next((j for j in range(1, len(lines)) if lines[j].strip() == "---"), 0) + 1
    in_math = False
    options_open = False
    while i < len(lines):
        line = lines[i]
        i += 1
        m = _FENCE.match(line)
        if m and stack and m.group("fence") == stack[-1][0] and not m.group("info").strip():
            stack.pop()
            options_open = False
            continue
        if stack and stack[-1][1]:
            continue  # inside code
        if m:  # a fence opens: code unless it is a directive with prose inside
            directive = re.match(r"\{([\w:.-]+)\}", m.group("info").strip())
            is_code = not directive or directive.group(1) in _CODE_DIRECTIVES
            stack.append((m.group("fence"), is_code))
            options_open = not is_code
            continue
        if options_open:
            if re.match(r"^\s*:[\w-]+:", line) or (line.strip() == "---"):
                continue  # directive option
            options_open = False
        if line.strip().startswith("$$"):
            if not (line.strip().endswith("$$") and len(line.strip()) > 2):
                in_math = not in_math
            continue
        if in_math or line.strip().startswith("%") or re.match(r"^\(\S+\)=\s*$", line):
            continue
        out.append((i, line))
    return out


def _flatten(text: str) -> str:
    """Roles, code spans, link targets and math replaced by a placeholder (keeping the line
    breaks), except the number a math span states before a unit ('$0.99$ µs' is typed)."""

    def keep_lines(repl):
        return lambda m: repl + "\n" * m.group(0).count("\n")

    text = ROLE.sub(keep_lines(PLACEHOLDER), text)
    text = CODE_SPAN.sub(keep_lines(PLACEHOLDER), text)
    text = LINK_TARGET.sub(keep_lines("]"), text)

    def math(m):
        rest = text[m.end() : m.end() + 12]
        last = re.search(rf"({NUMBER})(?:\\[,;!]?)*\s*$", m.group("body").replace("\\,", ""))
        keep = last.group(1) if last and re.match(rf"\s?(?:{_UNIT_RE})(?![\w/])", rest) else PLACEHOLDER
        return keep + "\n" * m.group(0).count("\n")

    return INLINE_MATH.sub(math, text)


def scan_text(text: str, page: str) -> list[tuple[int, str, str]]:
    """(line, quantity text, line) for every number with a unit in the prose (a quantity may
    run over a line break: '6220 against mlx' / '6290 MB/s')."""
    text = HTML_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    lines = prose_lines(text)
    flat = _flatten("\n".join(line for _, line in lines))
    found = []
    for q in QUANTITY.finditer(flat):
        k = flat.count("\n", 0, q.start())
        found.append((lines[k][0], re.sub(r"\s+", " ", q.group(0).strip()), lines[k][1]))
    return found


@dataclass(frozen=True)
class Constant:
    text: str
    pages: tuple[str, ...]
    cite: str
    reason: str


def load_constants(path: Path) -> list[Constant]:
    """The literature constants' allow-list; a malformed entry names the file and the entry."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    out = []
    for k, entry in enumerate(raw.get("constant", []), 1):
        missing = {"text", "pages", "cite", "reason"} - set(entry)
        if missing:
            raise ValueError(f"{path}: constant {k}: missing {sorted(missing)}")
        out.append(Constant(entry["text"], tuple(entry["pages"]), entry["cite"], entry["reason"]))
    return out


def normalise(quantity: str) -> str:
    return re.sub(r"[\s\u2009\u202f]+", " ", quantity.replace("μ", "µ")).strip()


def unchecked_numbers(text: str, page: str, constants: list[Constant]) -> list[Finding]:
    allowed = {}
    for c in constants:
        if "*" in c.pages or page in c.pages:
            allowed[normalise(c.text)] = c
    return [Finding(page, lineno, q, line) for lineno, q, line in scan_text(text, page) if normalise(q) not in allowed]
