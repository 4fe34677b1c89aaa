"""The student edition (`make book EDITION=student`): no solution text reaches its pages or its
notebooks, and every exercise is still there.

The HTML edition is built here with execution off (`--execute off`): solutions are markdown, so
whether cells run changes nothing about what is removed, and a sphinx-only build takes seconds
where an executed one takes minutes. The executed student edition reuses the default build's
cache (`--execute cache`, the default of `build --student`)."""

import json
import re
import subprocess
import sys
from html import unescape

import pytest
from once import once

from commbook.booktools import chapter_files, split_solutions, student_notebook


def phrases(block: str) -> list[str]:
    """Distinctive plain-text runs of a solution block (what would show if it leaked)."""
    body = "\n".join(l for l in block.splitlines()[1:] if not l.startswith((":", "`")))
    runs = re.findall(r"[A-Za-z][A-Za-z ,'-]{30,}", body)
    return [" ".join(r.split()) for r in runs]


def plain(html: str) -> str:
    text = re.sub(r"<[^>]+>", " ", html)
    return " ".join(unescape(text).split())


def test_split_solutions_removes_whole_directives_with_nested_fences():
    text = (
        "intro\n\n```{exercise} E\n:label: e\n\nQuestion?\n```\n\n"
        "````{solution} e\n:class: dropdown\n\nAnswer.\n```python\nx = 42\n```\nMore answer.\n````\n\n"
        ":::{solution} e\nColon answer.\n:::\n\n"
        "```{solution-start} e\n```\nGated answer.\n```{code-cell} ipython3\ny = 1\n```\n"
        "```{solution-end}\n```\n\noutro\n"
    )
    kept, removed = split_solutions(text)
    assert len(removed) == 3
    for gone in ("Answer.", "x = 42", "More answer.", "Colon answer.", "Gated answer.", "y = 1"):
        assert gone not in kept
    assert "Question?" in kept and "intro" in kept and "outro" in kept


def test_split_solutions_refuses_an_unclosed_solution():
    with pytest.raises(ValueError, match="line 3"):
        split_solutions("a\n\n````{solution} x\nhalf an answer\n```\n")


def test_every_chapter_keeps_its_exercises_and_loses_its_solutions(repo):
    total = 0
    for md in chapter_files(repo):
        text = md.read_text()
        kept, removed = split_solutions(text)
        total += len(removed)
        assert kept.count("{exercise}") == text.count("{exercise}")
        assert "{solution" not in kept, md.name
        for block in removed:
            for p in phrases(block):
                assert p not in " ".join(kept.split()), f"{md.name}: solution text outside the solution: {p}"
        nb = json.dumps(student_notebook(md))
        assert "{solution" not in nb
    assert total >= 20  # the book's solutions, all found


def test_the_instructor_page_is_not_a_student_page(repo):
    import yaml

    from commbook.booktools import INSTRUCTOR_PAGES, student_toc

    pages = {p.relative_to(repo).with_suffix("").as_posix() for p in chapter_files(repo)}
    student = {p.relative_to(repo).with_suffix("").as_posix() for p in chapter_files(repo, student=True)}
    assert set(INSTRUCTOR_PAGES) <= pages and not set(INSTRUCTOR_PAGES) & student
    assert pages - student == set(INSTRUCTOR_PAGES)
    toc = student_toc(yaml.safe_load((repo / "_toc.yml").read_text()))
    assert "For instructors" not in [p["caption"] for p in toc["parts"]]  # no empty part left


@pytest.fixture(scope="module")
def student_build(repo, tmp_path_factory):
    def build(_):
        proc = subprocess.run(
            [sys.executable, "-m", "commbook.booktools", "build", "--student", "--execute", "off"],
            cwd=repo,
            capture_output=True,
            text=True,
            timeout=1200,
        )
        return proc.returncode, proc.stdout + proc.stderr

    rc, output = once(tmp_path_factory, "student-build", build)  # its two tests may run side by side
    if rc != 0:
        pytest.fail(f"student edition build failed (exit {rc}):\n{output[-5000:]}")
    return repo / "_build" / "student"


@pytest.mark.slow
def test_student_html_and_notebooks_hold_no_solution(repo, student_build):
    checked = 0
    for md in chapter_files(repo, student=True):
        page = student_build / "html" / md.relative_to(repo).with_suffix(".html")
        html = page.read_text()
        assert 'class="solution' not in html and "solution-title" not in html, page.name
        nb_text = " ".join((student_build / "notebooks" / f"{md.stem}.ipynb").read_text().split())
        text = plain(html)
        _, removed = split_solutions(md.read_text())
        for block in removed:
            for p in phrases(block):
                assert p not in text, f"{page.name}: solution text in the student edition: {p}"
                assert p not in nb_text, f"{md.stem}.ipynb: solution text in the notebook: {p}"
                checked += 1
        if removed:  # the exercises are still there, their questions and self-check cells too
            assert "exercise" in html
    assert checked > 50
    # the instructor page is left out: not built, not handed out, not in the navigation
    assert not (student_build / "html" / "book" / "instructor.html").exists()
    assert not (student_build / "notebooks" / "instructor.ipynb").exists()
    assert "instructor" not in (student_build / "source" / "_toc.yml").read_text()
    assert "instructor.html" not in (student_build / "html" / "index.html").read_text()
    # the reference C solutions were only ever included by solutions
    for page in (student_build / "html" / "book").glob("*.html"):
        assert "rank % 2 == 0" not in unescape(page.read_text())


@pytest.mark.slow
def test_student_notebooks_are_valid_and_complete(repo, student_build):
    import nbformat

    for md in chapter_files(repo, student=True):
        nb = nbformat.read(student_build / "notebooks" / f"{md.stem}.ipynb", as_version=4)
        nbformat.validate(nb)
        code = [c for c in nb.cells if c.cell_type == "code"]
        assert len(code) == md.read_text().count("```{code-cell}"), md.name
        assert all(not c.get("outputs") for c in code)


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.starts_first  # long: under pytest-xdist it must not end the pass alone
def test_student_pdf_holds_no_solution(repo, student_build, browser, tmp_path):
    """`make pdf EDITION=student`: the student pages printed into one PDF, every chapter in it,
    no solution's text."""
    import unicodedata

    from pypdf import PdfReader

    from commbook import pdf

    out = pdf.build_pdf(repo, student=True, browser=browser, out=tmp_path / "student.pdf")
    text = " ".join(
        " ".join(unicodedata.normalize("NFKC", p.extract_text() or "").split()) for p in PdfReader(out).pages
    )
    checked = 0
    for md in chapter_files(repo):
        for block in split_solutions(md.read_text())[1]:
            for p in phrases(block):
                assert p not in text, f"{md.stem}: solution text in the student PDF: {p}"
                checked += 1
    assert checked > 50
    assert "student edition" in text
