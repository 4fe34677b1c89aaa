"""The scan: every number with a unit in a chapter's prose is glued from the run, a checked
{claim}, or a cited literature constant (data/literature_constants.toml)."""

from __future__ import annotations

import re

import pytest
from conftest import REPO

from commbook.claims import prose
from commbook.pages import chapter_files

# pages whose numbers are still being given a home (their owner removes them from here)
PENDING: dict[str, str] = {}
# every page of the book, in the order of _toc.yml (a new page is scanned without being listed)
PAGES = [p.stem for p in chapter_files(REPO)]


@pytest.fixture(scope="module")
def constants(repo):
    return prose.load_constants(repo / "data" / "literature_constants.toml")


def test_literature_constants_are_few_and_cited(repo, constants):
    assert len(constants) < 40
    bib = (repo / "references.bib").read_text(encoding="utf-8")
    keys = set(re.findall(r"@\w+\{([^,\s]+),", bib))
    for c in constants:
        assert c.cite in keys, f"literature constant {c.text!r}: citation {c.cite!r} not in references.bib"
        assert len(c.reason) > 10, f"literature constant {c.text!r}: say why it is a constant"
        assert prose.QUANTITY.fullmatch(c.text), f"{c.text!r} is not a number with a unit"


@pytest.mark.parametrize(
    "page",
    [pytest.param(p, marks=pytest.mark.xfail(reason=PENDING[p], strict=False)) if p in PENDING else p for p in PAGES],
)
def test_no_unchecked_number_in_the_prose(repo, constants, page):
    path = repo / "book" / f"{page}.md"
    if not path.exists():
        pytest.skip(f"book/{page}.md does not exist in this checkout")
    found = prose.unchecked_numbers(path.read_text(encoding="utf-8"), page, constants)
    assert not found, (
        f"{len(found)} numbers with a unit that are neither glued, nor a claim, "
        "nor a cited constant:\n" + "\n".join(map(str, found))
    )


@pytest.mark.parametrize(
    "text, expected",
    [
        ("costs 4.8 to 16 µs here", ["4.8", "16 µs"]),
        ("UCX 6220 against mlx\n6290 MB/s", ["6220", "6290 MB/s"]),
        ("$\\lambda = 0.99$ µs and $b$ in MB/s", ["0.99 µs"]),
        ("glued {glue:text}`lat:.2f` µs, claimed {claim}`3 µs <x>`, code `4 KiB`", []),
        ("a factor ×1.5, 3 times, 97 %", ["×1.5", "3 times", "97 %"]),
        ("IMB-MPI1 on 24 cores, section 2.1, x86-64", []),
    ],
)
def test_the_scan_finds_numbers_with_units(text, expected):
    assert [q for _, q, _ in prose.scan_text(text, "p")] == expected


def test_the_scan_skips_code_math_and_directive_options():
    text = (
        "---\nkernelspec: 1 s\n---\n```{code-cell} ipython3\nx = '5 µs'\n```\n"
        "$$\nt = 3\\,\\mu s\n$$\n```{exercise} Title\n:label: 4 KiB\n\nSend 8 KiB.\n```\n"
        "```{literalinclude} a.c\n:lines: 2 s\n```\n"
    )
    found = prose.scan_text(text, "p")
    assert [(line, q) for line, q, _ in found] == [(13, "8 KiB")]
