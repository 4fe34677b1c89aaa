"""What Sphinx does for the HTML book and a plain notebook cannot: the `{exercise}` directives
as plain Markdown (a notebook would show them as a code block). The `{literalinclude}` C
excerpts are expanded by commbook.notebook_code.expand_text, the one expander."""

from __future__ import annotations

import re

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
