"""The course map on the intro page: the exercises of every page, read from the pages themselves
(which of them run code: their cell calls more than the self-check)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

_EXERCISE = re.compile(r"^(`{3,}|:{3,})\{exercise\}\s*(?P<title>.*?)\n(?P<body>.*?)^\1\s*$", re.S | re.M)
_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(?P<code>.*?)^```\s*$", re.S | re.M)
_LABEL = re.compile(r"^:label:\s*(\S+)", re.M)
PASSIVE_CALLS = {"check", "check_choice", "print"}


def _calls(code: str) -> set[str]:
    code = "\n".join(l for l in code.splitlines() if not l.startswith(":"))
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Call):
            f = node.func
            names.add(f.id if isinstance(f, ast.Name) else getattr(f, "attr", ""))
    return names


def exercises_of(page: Path) -> list[dict]:
    """[{label, title, runs_code}] of a MyST page: an exercise runs code when the first code
    cell after it (before its solution) calls anything but the self-check and print (a kernel, a
    cluster, a compiler)."""
    text = page.read_text()
    found = []
    for m in _EXERCISE.finditer(text):
        label = _LABEL.search(m["body"])
        # its own cell sits between the exercise and its solution, not after the solution
        solution = text.find("{solution}", m.end())
        cell = _CELL.search(text, m.end(), solution if solution != -1 else len(text))
        calls = _calls(cell["code"]) if cell else set()
        found.append(
            {
                "label": label.group(1) if label else "",
                "title": m["title"].strip(),
                "runs_code": bool(calls - PASSIVE_CALLS),
            }
        )
    return found


def exercise_table(book_dir: Path, pages: list[str]):
    """Per page: number of exercises and the labels of those that run code."""
    import pandas as pd

    rows = []
    for p in pages:
        ex = exercises_of(Path(book_dir) / f"{p}.md")
        rows.append(
            {"page": p, "exercises": len(ex), "run code": ", ".join(e["label"] for e in ex if e["runs_code"]) or "—"}
        )
    return pd.DataFrame(rows)


def toc_pages(toc: Path) -> list[str]:
    """The pages of _toc.yml in order (root first), as names under book/."""
    from ..pages import chapter_files

    return [md.stem for md in chapter_files(Path(toc).parent)]
