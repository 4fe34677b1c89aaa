"""The C excerpts of a chapter as code wherever the chapter is opened as a notebook.

The HTML book shows kernel excerpts with MyST ``{literalinclude}`` directives whose
``:start-at:``/``:end-before:`` options name a comment or a function of the C file; those
directives are the one place the markers live. A notebook has no Sphinx to read them (JupyterLab
shows the directive's text), so here each directive becomes a fenced ``c`` block holding the
excerpt, cut by Sphinx's own reader from the options MyST's own parser read: what the notebook
shows is what the HTML shows.

* :func:`expand_text` / :func:`expand_notebook`: the student edition's notebooks
  (``booktools.build_student``) and ``commbook notebooks``;
* :mod:`commbook.lab_contents`: JupyterLab (``make lab``) expands on opening and puts the
  directives back on saving, so the ``.md`` files keep ``literalinclude``;
* :func:`include_problems`: a missing file or marker, named by page and line
  (``tests/test_literalinclude.py``).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

from . import config

_OPEN = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|:{3,})\{literalinclude\}(?P<argument>.*)$")
_SPHINX_CONFIG = SimpleNamespace(source_encoding="utf-8-sig")  # Sphinx's default
METADATA_KEY = "commbook_literalinclude"  # a cell's original source, kept while it is expanded


class ExcerptError(ValueError):
    """A literalinclude whose file or markers cannot be found."""


@dataclass
class Include:
    first: int  # index of the opening line
    last: int  # index of the closing fence
    indent: str
    fence: str
    argument: str
    options: str  # the option block, as written


def literalincludes(text: str, where: str = "page") -> list[Include]:
    """Every literalinclude of a MyST text, those nested in other directives included."""
    lines = text.splitlines()
    found = []
    for i, line in enumerate(lines):
        m = _OPEN.match(line)
        if not m:
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == m["fence"]), None)
        if end is None:
            raise ExcerptError(f"{where}:{i + 1}: literalinclude never closed")
        found.append(
            Include(
                i,
                end,
                m["indent"],
                m["fence"],
                m["argument"].strip(),
                "\n".join(l[len(m["indent"]) :] for l in lines[i + 1 : end]),
            )
        )
    return found


def _parse(inc: Include, where: str):
    from myst_parser.parsers.directives import parse_directive_text
    from sphinx.directives.code import LiteralInclude

    parsed = parse_directive_text(LiteralInclude, inc.argument, inc.options, line=inc.first + 1)
    if parsed.warnings:
        raise ExcerptError(f"{where}:{inc.first + 1}: {parsed.warnings[0].msg}")
    return parsed


def resolve(argument: str, base: Path) -> Path:
    """The included file: beside the page as written, else (a copy of book/ alone, a wheel)
    the same path under the package's kernels_c/."""
    path = base / argument
    if not path.is_file() and "kernels_c/" in argument:
        path = config.kernels_dir() / argument.split("kernels_c/", 1)[1]
    return path


def excerpt(inc: Include, base: Path, where: str = "page") -> tuple[str, str, str]:
    """(language, caption, code) of one literalinclude, read by Sphinx's LiteralIncludeReader."""
    from sphinx.directives.code import LiteralIncludeReader

    parsed = _parse(inc, where)
    path = resolve(parsed.arguments[0], base)
    if not path.is_file():
        raise ExcerptError(f"{where}:{inc.first + 1}: {parsed.arguments[0]} does not exist")
    try:
        code, _ = LiteralIncludeReader(str(path), parsed.options, _SPHINX_CONFIG).read()
    except ValueError as e:  # a marker not found: Sphinx would only warn
        raise ExcerptError(f"{where}:{inc.first + 1}: {parsed.arguments[0]}: {e}") from None
    if not code.strip():
        raise ExcerptError(f"{where}:{inc.first + 1}: {parsed.arguments[0]}: the excerpt is empty")
    return parsed.options.get("language", ""), parsed.options.get("caption", ""), code


def include_problems(page: Path) -> list[str]:
    """What is wrong with a page's literalincludes, one line each."""
    problems = []
    try:
        includes = literalincludes(page.read_text(), page.name)
    except ExcerptError as e:
        return [str(e)]
    for inc in includes:
        try:
            excerpt(inc, page.parent, page.name)
        except ExcerptError as e:
            problems.append(str(e))
    return problems


def expand_text(text: str, base: Path, where: str = "page") -> str:
    """Markdown with every literalinclude replaced by its code in a fenced block (the caption,
    or the file's name, as a line above it)."""
    includes = literalincludes(text, where)
    if not includes:
        return text
    lines = text.splitlines()
    out, at = [], 0
    for inc in includes:
        language, caption, code = excerpt(inc, base, where)
        out += lines[at : inc.first]
        fence = inc.fence if inc.fence.startswith("`") else "```"
        while fence in code:
            fence += "`"
        title = caption or Path(_parse(inc, where).arguments[0]).name
        out += [f"{inc.indent}*{title}*", "", f"{inc.indent}{fence}{language}"]
        out += [inc.indent + l if l else l for l in code.rstrip("\n").splitlines()]
        out.append(f"{inc.indent}{fence}")
        at = inc.last + 1
    out += lines[at:]
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def expand_notebook(nb, base: Path, where: str = "notebook", keep_original: bool = False):
    """The notebook's markdown cells expanded (in place; returned). keep_original stores each
    changed cell's source in its metadata so restore_notebook can put the directive back."""
    for i, cell in enumerate(nb["cells"]):
        if cell.get("cell_type") != "markdown":
            continue
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        if "{literalinclude}" not in source:
            continue
        cell["source"] = expand_text(source, base, f"{where} cell {i + 1}")
        if keep_original:
            cell.setdefault("metadata", {})[METADATA_KEY] = source
    return nb


def restore_notebook(nb):
    """A copy of the notebook with every expanded cell's directive source put back."""
    nb = copy.deepcopy(nb)
    for cell in nb["cells"]:
        meta = cell.get("metadata", {})
        if METADATA_KEY in meta:
            cell["source"] = meta.pop(METADATA_KEY)
    return nb


def write_notebooks(root: Path, out: Path, kernel: str) -> list[Path]:
    """Every page of the book's table of contents as an .ipynb in `out`, excerpts as code,
    asking for `kernel`."""
    import jupytext
    import yaml

    from .pages import toc_files

    toc = yaml.safe_load((root / "_toc.yml").read_text())
    names = toc_files(toc)
    written = []
    for md in (root / f"{name}.md" for name in names):
        if not md.is_file():
            continue
        nb = expand_notebook(jupytext.reads(md.read_text(), fmt="md:myst"), md.parent, md.name)
        nb.metadata["kernelspec"] = {"name": kernel, "display_name": kernel, "language": "python"}
        jupytext.write(nb, out / f"{md.stem}.ipynb", fmt="ipynb")
        written.append(out / f"{md.stem}.ipynb")
    return written
