"""Every `{literalinclude}` of the book finds its file and its markers, without a book build.

The chapters show their C excerpts by `literalinclude` with `start-at`/`end-before` markers (C
comments, function names). Sphinx reports a missing file or marker as a warning only; the
strict build (`-W`) turns it into an error, but only minutes into tests/test_book.py. Here a
renamed comment fails in a second, naming the page, the line, the file and the marker. The
directive is parsed by MyST's own parser and read by Sphinx's own reader, so what passes here
is what the book shows."""
import re
from pathlib import Path
from types import SimpleNamespace

from myst_parser.parsers.directives import parse_directive_text
from sphinx.directives.code import LiteralInclude, LiteralIncludeReader

_OPEN = re.compile(r"^(?P<fence>`{3,}|:{3,})\{literalinclude\}(?P<argument>.*)$")
_SPHINX_CONFIG = SimpleNamespace(source_encoding="utf-8-sig")  # Sphinx's default


def literalincludes(page: Path) -> list[tuple[int, str, str]]:
    """(line, first line, option block) of every literalinclude in a MyST page, those nested in
    other directives (solutions) included."""
    lines = page.read_text().splitlines()
    found = []
    for i, line in enumerate(lines):
        m = _OPEN.match(line.strip())
        if not m:
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == m["fence"]), None)
        assert end is not None, f"{page.name}:{i + 1}: literalinclude never closed"
        found.append((i + 1, m["argument"], "\n".join(lines[i + 1:end])))
    return found


def include_problems(page: Path) -> list[str]:
    """What is wrong with the page's literalincludes: a file that is not there, a marker that
    is not in it (or not after the start marker), an empty excerpt."""
    problems = []
    for line, argument, block in literalincludes(page):
        where = f"{page.name}:{line}"
        parsed = parse_directive_text(LiteralInclude, argument, block, line=line)
        problems += [f"{where}: {w.msg}" for w in parsed.warnings]
        path = page.parent / parsed.arguments[0]
        if not path.is_file():
            problems.append(f"{where}: {parsed.arguments[0]} does not exist")
            continue
        try:
            text, _ = LiteralIncludeReader(str(path), parsed.options, _SPHINX_CONFIG).read()
        except ValueError as e:  # what Sphinx would only warn about
            problems.append(f"{where}: {parsed.arguments[0]}: {e}")
            continue
        if not text.strip():
            problems.append(f"{where}: {parsed.arguments[0]}: the excerpt is empty")
    return problems


def test_every_include_of_the_book_finds_its_file_and_markers(repo):
    pages = sorted((repo / "book").glob("*.md"))
    problems = [p for page in pages for p in include_problems(page)]
    assert not problems, "\n".join(problems)
    counted = {page.name: len(literalincludes(page)) for page in pages}
    # the parser found every directive (none skipped as malformed)
    assert counted == {page.name: page.read_text().count("{literalinclude}") for page in pages}
    # the chapters' kernel excerpts are among them
    for chapter in ("pingpong", "ring", "matrix_add", "collectives_algorithms", "jacobi"):
        assert "../kernels_c/" in (repo / "book" / f"{chapter}.md").read_text(), chapter


def test_a_renamed_marker_or_missing_file_is_reported(tmp_path):
    (tmp_path / "k.c").write_text("/* One step */\nstatic void step(void)\n{\n}\n\n/* Next */\n")
    page = tmp_path / "page.md"
    good = "```{literalinclude} k.c\n:language: c\n:start-at: /* One step\n:end-before: /* Next\n```\n"
    page.write_text(good)
    assert include_problems(page) == []
    page.write_text(good.replace("/* One step", "/* One stride"))
    assert "start-at pattern not found: /* One stride" in include_problems(page)[0]
    page.write_text(good.replace("/* Next", "/* Last"))
    assert "end-before pattern not found: /* Last" in include_problems(page)[0]
    # markers out of order: the end marker only before the start
    page.write_text(good.replace(":start-at: /* One step", ":start-at: /* Next")
                    .replace(":end-before: /* Next", ":end-before: /* One step"))
    assert "end-before pattern not found" in include_problems(page)[0]
    page.write_text(good.replace("k.c", "gone.c"))
    assert include_problems(page) == ["page.md:1: gone.c does not exist"]
    # nested in a solution, four-backtick fence
    page.write_text("````{solution} ex\n" + good.replace("/* Next", "/* Last") + "````\n")
    assert len(include_problems(page)) == 1
