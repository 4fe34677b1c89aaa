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


@pytest.fixture(scope="module")
def math_allowed(repo):
    from commbook.claims import math_numbers

    return math_numbers.load_allowed(repo / "data" / "math_numbers.toml")


@pytest.mark.parametrize("page", PAGES)
def test_no_unchecked_number_in_the_math(repo, math_allowed, page):
    from commbook.claims import math_numbers

    text = (repo / "book" / f"{page}.md").read_text(encoding="utf-8")
    found = math_numbers.unchecked_math(text, page, math_numbers.claim_values(page), math_allowed.get(page, set()))
    assert not found, (
        "numbers in the math that nothing checks (a claim, plain arithmetic, data/math_numbers.toml):\n"
        + "\n".join(map(str, found))
    )


def test_a_changed_number_in_a_solutions_math_fails(repo, math_allowed):
    from commbook.claims import math_numbers

    text = (repo / "book" / "ring.md").read_text(encoding="utf-8")
    assert "(0.99 + 4/12090)" in text
    values, allowed = math_numbers.claim_values("ring"), math_allowed.get("ring", set())
    assert not math_numbers.unchecked_math(text, "ring", values, allowed)
    # an input that is no claim of the page: 0.77 (the step that follows no longer holds either)
    broken = math_numbers.unchecked_math(text.replace("(0.99 + 4/12090)", "(0.77 + 4/99999)"), "ring", values, allowed)
    assert {f.text for f in broken} >= {"0.77", "99999"}
    # the inputs right, the result of a step wrong
    wrong_step = text.replace("50 \\cdot 0.9903", "50 \\cdot 0.9703")
    assert any("is not" in f.why for f in math_numbers.unchecked_math(wrong_step, "ring", values, allowed))


def test_every_allowed_math_number_is_on_its_page(repo, math_allowed):
    for page, numbers in math_allowed.items():
        text = re.sub(r"(\d)\\,(?=\d{3})", r"\1", (repo / "book" / f"{page}.md").read_text(encoding="utf-8"))
        for n in numbers:
            assert n in text, f"data/math_numbers.toml: {n!r} is not on {page}.md any more: remove it"
