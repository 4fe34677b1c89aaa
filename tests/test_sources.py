"""Sources are cited, never pointed at: no seed file name and no machine path in book/ or data/,
every {cite} key exists in references.bib, and the bibliography holds every agreed key."""

from __future__ import annotations

import re

import pytest

REQUIRED_KEYS = {
    "hockney1994",
    "culler1993logp",
    "alexandrov1995loggp",
    "thakur2005",
    "chan2007",
    "pjesivac2007",
    "vandegeijn1994",
    "bruck1997",
    "hoefler2015",
    "williams2009roofline",
    "hager2010",
    "grama2003",
    "leiserson1985",
    "osu",
    "imb",
    "amdahl1967",
    "gustafson1988",
    "eijkhout-mpi",
    "scorcia-report",
    "verardo-report",
    "loletti-report",
    "malakar-lecture",
    "rappl-homework",
}
# a seed document by file name, or an absolute path of some machine
FORBIDDEN = re.compile(r"seeds/00|/work/|/home/\w|/Users/\w|/tmp/\w|shared/seeds")


def _bib_keys(repo):
    return set(re.findall(r"^@\w+\{([^,\s]+),", (repo / "references.bib").read_text(), re.M))


def test_the_bibliography_holds_every_agreed_source(repo):
    assert REQUIRED_KEYS <= _bib_keys(repo), f"missing: {sorted(REQUIRED_KEYS - _bib_keys(repo))}"


def test_every_citation_names_an_entry(repo):
    keys = _bib_keys(repo)
    for page in sorted((repo / "book").glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for m in re.finditer(r"\{cite(?::\w+)?\}`([^`]+)`", text):
            for key in m.group(1).split(","):
                line = text.count("\n", 0, m.start()) + 1
                assert key.strip() in keys, f"{page.name}:{line}: {{cite}} of unknown key {key.strip()!r}"


def test_the_citation_list_is_a_list_of_list_items(repo):
    """commbook.bibliography (a Sphinx extension of _config.yml): no deprecated ARIA role."""
    from commbook.bibliography import aria_bibliography

    context = {"body": '<div role="list"><div role="doc-biblioentry">Loletti</div></div>'}
    aria_bibliography(None, "references", "page.html", context, None)
    assert context["body"] == '<div role="list"><div role="listitem">Loletti</div></div>'
    assert "commbook.bibliography" in (repo / "_config.yml").read_text()


def _forbidden_lines(repo, paths):
    bad = []
    for path in paths:
        if not path.is_file() or "_static" in path.parts or path.suffix in {".gz", ".png", ".pdf"}:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for k, line in enumerate(text.splitlines(), 1):
            if FORBIDDEN.search(line):
                bad.append(f"{path.relative_to(repo)}:{k}: {line.strip()[:100]}")
    return bad


def test_no_seed_file_name_and_no_machine_path_in_data(repo):
    bad = _forbidden_lines(repo, sorted((repo / "data").rglob("*")))
    assert not bad, "seed file names or machine paths:\n" + "\n".join(bad)


from test_prose_numbers import PAGES, PENDING  # noqa: E402  the pages still being cited


@pytest.mark.parametrize(
    "page",
    [
        pytest.param(p, marks=pytest.mark.xfail(reason=PENDING[p], strict=False)) if p in PENDING else p
        for p in PAGES + ["scripts"]
    ],
)
def test_no_seed_file_name_and_no_machine_path_in_the_book(repo, page):
    paths = sorted((repo / "book" / "scripts").rglob("*")) if page == "scripts" else [repo / "book" / f"{page}.md"]
    bad = _forbidden_lines(repo, paths)
    assert not bad, "seed file names or machine paths:\n" + "\n".join(bad)


@pytest.mark.parametrize("folder", ["src", "kernels_c", "benchmarks"])
def test_no_seed_file_name_and_no_machine_path_in_the_code(repo, folder):
    paths = [p for p in sorted((repo / folder).rglob("*")) if "__pycache__" not in p.parts]
    bad = _forbidden_lines(repo, paths)
    assert not bad, "seed file names or machine paths:\n" + "\n".join(bad)


def test_every_package_name_the_book_gives_exists(repo):
    """A `commbook.module.name` the prose names (a module, function, constant) is in the package:
    the book must not send a reader to code that was renamed or removed."""
    import importlib

    named = re.compile(r"`(commbook(?:\.[A-Za-z_]\w*)+)(?:\(\))?`")
    missing = []
    for path in sorted((repo / "book").glob("*.md")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for name in named.findall(line):
                parts = name.split(".")
                k = len(parts)
                while k > 1:  # the longest importable prefix is the module
                    try:
                        obj = importlib.import_module(".".join(parts[:k]))
                        break
                    except ImportError:
                        k -= 1
                else:
                    obj = importlib.import_module("commbook")
                for attribute in parts[k:]:
                    obj = getattr(obj, attribute, None)
                if obj is None:
                    missing.append(f"book/{path.name}:{number}: {name}")
    assert not missing, "the book names code that does not exist:\n" + "\n".join(missing)


def test_every_import_a_page_makes_resolves(repo):
    """A page's `from commbook.x import y` names a module or attribute that exists (a moved module
    would otherwise fail only when the page is executed)."""
    import importlib

    bad = []
    pattern = re.compile(
        r"^\s*from (commbook[\w.]*) import ([\w, ]+?)(?: as \w+)?\s*$|^\s*import (commbook[\w.]*)", re.M
    )
    for page in sorted((repo / "book").glob("*.md")):
        for m in pattern.finditer(page.read_text(encoding="utf-8")):
            module = importlib.import_module(m.group(1) or m.group(3))
            for name in [n.strip() for n in (m.group(2) or "").split(",") if n.strip()]:
                if not hasattr(module, name) and importlib.util.find_spec(f"{module.__name__}.{name}") is None:
                    bad.append(f"{page.name}: from {module.__name__} import {name}")
    assert not bad, "imports that no longer resolve:\n" + "\n".join(bad)
