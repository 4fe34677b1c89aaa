"""What Sphinx does for the HTML book and a plain notebook cannot: the chapters'
`{literalinclude}` C excerpts as code (the same file and markers, read by Sphinx's own reader,
so the notebook shows exactly what the HTML book shows), and the `{exercise}` directives as
plain Markdown (a notebook would show them as a code block)."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

_OPEN = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|:{3,})\{literalinclude\}(?P<argument>.*)$")
_SPHINX_CONFIG = SimpleNamespace(source_encoding="utf-8-sig")  # Sphinx's default


def excerpt(page_dir: Path, argument: str, block: str) -> tuple[str, str, str]:
    """(code, language, caption) of one literalinclude directive."""
    from myst_parser.parsers.directives import parse_directive_text
    from sphinx.directives.code import LiteralInclude, LiteralIncludeReader

    parsed = parse_directive_text(LiteralInclude, argument, block)
    path = page_dir / parsed.arguments[0]
    code, _ = LiteralIncludeReader(str(path), parsed.options, _SPHINX_CONFIG).read()
    return code, parsed.options.get("language", ""), parsed.options.get("caption", "")


def inline_literalincludes(text: str, page_dir: Path) -> str:
    """The MyST text with every literalinclude replaced by a fenced code block holding the
    excerpt (its caption, if any, as an italic line above it)."""
    lines = text.splitlines(keepends=True)
    out, i = [], 0
    while i < len(lines):
        m = _OPEN.match(lines[i].rstrip("\n"))
        if not m:
            out.append(lines[i])
            i += 1
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == m["fence"]), None)
        if end is None:
            raise ValueError(f"line {i + 1}: literalinclude never closed")
        code, language, caption = excerpt(page_dir, m["argument"].strip(), "".join(lines[i + 1 : end]))
        indent = m["indent"]
        if caption:
            out.append(f"{indent}*{caption}*\n\n")
        out.append(f"{indent}```{language}\n")
        out.extend(indent + l if l.strip() else l for l in code.rstrip("\n").splitlines(keepends=True))
        out.append(f"\n{indent}```\n")
        i = end + 1
    return "".join(out)


_EXERCISE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{exercise\}(?P<title>.*)$")


def plain_exercises(text: str) -> str:
    """Every `{exercise}` directive as a bold "Exercise: title" line and its text."""
    lines = text.splitlines(keepends=True)
    out, i = [], 0
    while i < len(lines):
        m = _EXERCISE.match(lines[i].rstrip("\n"))
        end = m and next((j for j in range(i + 1, len(lines)) if lines[j].strip() == m["fence"]), None)
        if not end:
            out.append(lines[i])
            i += 1
            continue
        body = [l for l in lines[i + 1 : end] if not re.match(r"^:\w[\w-]*:", l)]
        title = m["title"].strip()
        out.append(f"**Exercise{': ' + title if title else ''}**\n\n")
        out.extend(body)
        out.append("\n")
        i = end + 1
    return "".join(out)
