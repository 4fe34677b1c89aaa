"""What a self-check or the grader tells the reader: words in ``feedback.toml``, not in code.

Python picks the case key (``"check.too_high"``) and computes the fields (names, numbers); the
file's table of that key holds the words, a ``str.format`` template (``text = "..."``).
:func:`say` fills one; :func:`match` reads a filled one back (tests check keys and numbers, not
phrases)."""

from __future__ import annotations

import functools
import importlib.resources
import re
import string

FILE = "feedback.toml"  # beside this module (package data, in the wheel)


class FeedbackError(Exception):
    """A key the file lacks, a field the code does not pass, or a malformed file."""


def _path():
    return importlib.resources.files(__package__) / FILE


@functools.cache
def templates() -> dict[str, str]:
    """{case key: template}: the file's tables flattened, ``[check.too_high]`` as "check.too_high"."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    path = _path()
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise FeedbackError(f"{path}: {e}") from None
    found: dict[str, str] = {}

    def walk(prefix: str, table: dict) -> None:
        for name, entry in table.items():
            key = prefix + name
            if not isinstance(entry, dict):
                raise FeedbackError(f'{path}: [{key}] must be a table holding text = "...", not {entry!r}')
            if "text" not in entry:
                walk(key + ".", entry)
            elif set(entry) != {"text"} or not isinstance(entry["text"], str):
                raise FeedbackError(f'{path}: [{key}] must hold exactly text = "...", not {entry!r}')
            else:
                found[key] = entry["text"]

    walk("", raw)
    return found


def fields(key: str) -> set[str]:
    """The names of the fields the template of `key` uses."""
    return {f for _, f, _, _ in string.Formatter().parse(_template(key)) if f is not None}


def _template(key: str) -> str:
    try:
        return templates()[key]
    except KeyError:
        raise FeedbackError(f"{_path()} has no table [{key}]") from None


def say(key: str, **values) -> str:
    """The words of case `key` with the code's values filled in."""
    template = _template(key)
    try:
        return template.format(**values)
    except KeyError as e:
        raise FeedbackError(
            f"{_path()}: [{key}] uses the field {{{e.args[0]}}}, which the code does not pass"
            f" (it passes {sorted(values)})"
        ) from None
    except (ValueError, IndexError, TypeError) as e:
        raise FeedbackError(f"{_path()}: [{key}] cannot be filled with {values!r}: {e}") from None


def match(key: str, text: str) -> dict[str, str] | None:
    """The fields (as text) of the first place `text` holds the words of `key`, None if none
    (a field is matched within one line)."""
    parts, seen = [], set()
    pieces = list(string.Formatter().parse(_template(key)))
    for i, (literal, name, _, _) in enumerate(pieces):
        parts.append(re.escape(literal))
        if name is None:
            continue
        if name in seen:
            parts.append(f"(?P={name})")
        else:
            seen.add(name)
            last = i == len(pieces) - 1
            glued = not last and not pieces[i + 1][0]  # another field follows at once: a number, then its unit
            parts.append(f"(?P<{name}>[^\\n]*)" if last else rf"(?P<{name}>\S*)" if glued else f"(?P<{name}>[^\\n]*?)")
    found = re.search("".join(parts), text, re.S)
    return found.groupdict() if found else None
