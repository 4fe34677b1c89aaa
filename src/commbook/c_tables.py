"""String tables read out of the kernels' C sources, so their contents live once, in C.

A kernel's options (``static const cb_optspec CB_OPTIONS[] = {{"name", "default", "help"}, ...}``)
and a collective kernel's hand-written algorithms (``static const cc_algo ALGOS[] =
{{"name", "description", function}, ...}``) are rows of string literals (anything after them,
such as the function that runs an algorithm, is not read) ended by a NULL row. A macro of rows
(``CC_BENCH_OPTIONS``: options several kernels share), defined in the file or in a header it
includes, is expanded where a table names it, as the compiler does.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
_DEFINE = re.compile(r"^\s*#\s*define\s+([A-Z_][A-Z0-9_]*)[ \t]+((?:.*\\\n)*.*)$", re.M)


def _macros(path: Path, seen: set[Path]) -> dict[str, str]:
    """Object-like macros whose body is table rows (starts with '{'), from `path` and the
    headers it includes (found beside it or in kernels_c/)."""
    from . import config

    seen.add(path.resolve())
    text = path.read_text()
    found = {}
    for name in _INCLUDE.findall(text):
        for folder in (path.parent, config.kernels_dir()):
            header = folder / name
            if header.is_file() and header.resolve() not in seen:
                found.update(_macros(header, seen))
                break
    for name, body in _DEFINE.findall(text):
        body = re.sub(r"\\\n", " ", body).strip()
        if body.startswith("{"):
            found[name] = body
    return found


def _expanded(path: Path) -> str:
    """The file's text with its row macros replaced by their rows (not on #define lines)."""
    text = Path(path).read_text()
    macros = _macros(Path(path), set())
    if not macros:
        return text
    word = re.compile(r"\b(" + "|".join(map(re.escape, macros)) + r")\b")
    return "\n".join(
        line if line.lstrip().startswith("#") else word.sub(lambda m: macros[m.group(1)], line)
        for line in text.split("\n")
    )


@lru_cache(maxsize=None)
def string_rows(
    path: Path, type_name: str, table: str, columns: tuple[str, ...], what: str
) -> tuple[tuple[str, ...], ...]:
    """The rows of `TYPE TABLE[] = {{"a", "b", ...}, ..., {NULL, ...}}` in a C file, each a tuple
    of len(columns) strings. Adjacent string literals are joined as the C compiler joins them."""
    text = _expanded(Path(path))
    m = re.search(rf"{re.escape(type_name)}\s+{re.escape(table)}\s*\[\s*\]\s*=\s*\{{", text)
    if not m:
        raise ValueError(f"{path}: no {what} table {table}")
    rows, i = [], m.end()
    while True:
        start = text.index("{", i)
        end = text.index("}", start)
        body = text[start + 1 : end]
        if re.match(r"\s*(NULL|0)\b", body):
            return tuple(rows)
        parts = [[]]
        for piece in re.split(r"(\"(?:[^\"\\]|\\.)*\")", body):
            if piece.startswith('"'):
                parts[-1].append(_STRING.fullmatch(piece).group(1).encode().decode("unicode_escape"))
            elif "," in piece:
                parts.append([])
        values = tuple("".join(p) for p in parts if p)
        if len(values) != len(columns):
            raise ValueError(f"{path}: {what} row {{{body.strip()}}} is not {{{', '.join(columns)}}}")
        rows.append(values)
        i = end + 1
