"""The book's pages as files: their table-of-contents order, those of the student edition (the
instructor pages left out), and a chapter's text split from its solutions. Used by the book
build (booktools) and by the course tools (commbook.course); imports nothing of the package."""

from __future__ import annotations

import re
from pathlib import Path

_SOLUTION_OPEN = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<kind>solution|solution-start)\}")
_SOLUTION_END = re.compile(r"^(`{3,}|:{3,})\{solution-end\}")


def split_solutions(text: str) -> tuple[str, list[str]]:
    """(the MyST text without its sphinx-exercise solution directives, the removed blocks).

    A `{solution}` directive ends at the closing fence of its own kind and length (so nested
    code fences inside it stay inside); a `{solution-start}` ends after its `{solution-end}`.
    An unclosed solution is an error naming its line: half a solution must not leak."""
    lines = text.splitlines(keepends=True)
    kept, removed, i = [], [], 0
    while i < len(lines):
        m = _SOLUTION_OPEN.match(lines[i])
        if not m:
            kept.append(lines[i])
            i += 1
            continue
        start, fence = i, m.group("fence")
        if m.group("kind") == "solution-start":
            end = next((j for j in range(i + 1, len(lines)) if _SOLUTION_END.match(lines[j])), None)
            if end is not None:  # the end directive's own closing fence
                close = re.match(r"^(`{3,}|:{3,})", lines[end]).group(1)
                end = next((j for j in range(end + 1, len(lines)) if lines[j].strip() == close), end)
        else:
            end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == fence), None)
        if end is None:
            raise ValueError(f"line {start + 1}: solution directive never closed")
        removed.append("".join(lines[start : end + 1]))
        i = end + 1
        while i < len(lines) and not lines[i].strip() and kept and not kept[-1].strip():
            i += 1  # no run of blank lines where the solution was
    return "".join(kept), removed


def chapter_files(root: Path, student: bool = False) -> list[Path]:
    """The book's pages in table-of-contents order (student=True: those of the student edition)."""
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text())
    if student:
        toc = student_toc(toc)
    return [root / f"{p}.md" for p in toc_files(toc)]


def toc_files(toc: dict) -> list[str]:
    """The files of a parsed _toc.yml in order: the root, each chapter, then its sections (a
    chapter's lab page)."""

    def walk(entries):
        for entry in entries:
            yield entry["file"]
            yield from walk(entry.get("sections", []))

    return [toc["root"]] + list(walk(c for part in toc.get("parts", []) for c in part["chapters"]))


INSTRUCTOR_PAGES = ("book/instructor",)  # for teachers only: left out of the student edition


def student_toc(toc: dict) -> dict:
    """The table of contents without the instructor pages (and without parts left empty)."""
    parts = [
        {**part, "chapters": [c for c in part["chapters"] if c["file"] not in INSTRUCTOR_PAGES]}
        for part in toc.get("parts", [])
    ]
    return {**toc, "parts": [p for p in parts if p["chapters"]]}
