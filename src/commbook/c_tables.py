"""String tables read out of the kernels' C sources, so their contents live once, in C.

A kernel's options (``static const cb_optspec CB_OPTIONS[] = {{"name", "default", "help"}, ...}``)
and a collective kernel's hand-written algorithms (``static const cc_algo ALGOS[] =
{{"name", "description"}, ...}``) are rows of string literals ended by a NULL row.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


@lru_cache(maxsize=None)
def string_rows(
    path: Path, type_name: str, table: str, columns: tuple[str, ...], what: str
) -> tuple[tuple[str, ...], ...]:
    """The rows of `TYPE TABLE[] = {{"a", "b", ...}, ..., {NULL, ...}}` in a C file, each a tuple
    of len(columns) strings. Adjacent string literals are joined as the C compiler joins them."""
    text = Path(path).read_text()
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
