"""Words of sentence-length strings in the chapters' code (the words a reader reads that live in
Python instead of the page): every string constant of five words or more under
src/commbook/chapters/ (f-strings counted by their literal parts), except docstrings, the
messages of exceptions (a developer's, not a reader's) and the claims modules (their `source=`
strings say where a number comes from; a reader never sees them), and strings that are code, not
words: Vega expressions (`datum.`, comparisons, `?:`), regular expressions and file paths.

    python benchmarks/code_sentences.py [--list] [ROOT]
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

_WORD = re.compile(r"[^\W\d_](?:[\w'’.-]*\w)?")
MIN_WORDS = 5
# code in a string: a Vega expression, a regular expression, a path (never read as prose)
_CODE = re.compile(r"datum\.|==|&&|\|\||\?\s.*\s:\s|\(\?P<|\\[{ns]|^/sys/|\bformat\(|' \+ |\+ '")


def _text(node) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return " ".join(v.value for v in node.values if isinstance(v, ast.Constant)) + " x" * sum(
            isinstance(v, ast.FormattedValue) for v in node.values
        )
    return None


def sentence_strings(path: Path) -> list[tuple[int, int, str]]:
    """(line, words, text) of each sentence-length string of one module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                skip.add(id(first.value))
        if isinstance(node, ast.Raise) and node.exc is not None:
            skip.update(id(n) for n in ast.walk(node.exc))
    found = []
    for node in ast.walk(tree):
        if id(node) in skip or isinstance(getattr(node, "parent", None), ast.JoinedStr):
            continue
        if isinstance(node, ast.JoinedStr):
            for v in node.values:
                skip.add(id(v))
        text = _text(node)
        if text is None or _CODE.search(text):
            continue
        words = len(_WORD.findall(text))
        if words >= MIN_WORDS:
            found.append((node.lineno, words, text.strip()[:90]))
    return found


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    show = "--list" in args
    roots = [Path(a) for a in args if not a.startswith("--")] or [Path("src/commbook/chapters")]
    total = 0
    for root in roots:
        for path in sorted(p for p in root.rglob("*.py") if p.name != "claims.py"):
            found = sentence_strings(path)
            n = sum(w for _, w, _ in found)
            total += n
            if n:
                print(f"{str(path):60s} {n:5d}")
            if show:
                for line, w, text in found:
                    print(f"    {line:4d} {w:3d} {text}")
    print(f"{'total':60s} {total:5d} words in strings of {MIN_WORDS} words or more")
    return 0


if __name__ == "__main__":
    sys.exit(main())
