"""Every `{literalinclude}` of the book finds its file and its markers, without a book build;
and wherever the book is a notebook, the excerpts are the C code itself.

The chapters show their C excerpts by `literalinclude` with `start-at`/`end-before` markers (C
comments, function names). Sphinx reports a missing file or marker as a warning only; the
strict build (`-W`) turns it into an error, but only minutes into tests/test_book.py. Here a
renamed comment fails in a second, naming the page, the line, the file and the marker. The
directive is parsed by MyST's own parser and read by Sphinx's own reader
(commbook.notebook_code), so what passes here is what the book shows, and the notebooks
(student edition, JupyterLab) show the same lines."""

import json

import pytest

from commbook import booktools, notebook_code


def test_every_include_of_the_book_finds_its_file_and_markers(repo):
    pages = sorted((repo / "book").glob("*.md"))
    problems = [p for page in pages for p in notebook_code.include_problems(page)]
    assert not problems, "\n".join(problems)


def test_a_renamed_marker_is_named_by_page_and_line(tmp_path, repo):
    page = tmp_path / "book" / "page.md"
    page.parent.mkdir()
    page.write_text(
        "Text\n\n```{literalinclude} ../kernels_c/pingpong.c\n:language: c\n"
        ":start-at: static void no_such_function\n```\n"
    )
    (tmp_path / "kernels_c").symlink_to(repo / "kernels_c")
    [problem] = notebook_code.include_problems(page)
    assert problem.startswith("page.md:3: ../kernels_c/pingpong.c:") and "no_such_function" in problem


def test_student_notebooks_hold_the_c_code_not_the_directive(repo):
    import nbformat

    for md in booktools.chapter_files(repo):
        nb = booktools.student_notebook(md)
        text = nbformat.writes(nb)
        assert text.count("literalinclude") == 0, md.name
        wanted = notebook_code.literalincludes(booktools.split_solutions(md.read_text())[0])
        for inc in wanted:
            _, _, code = notebook_code.excerpt(inc, md.parent)
            assert json.dumps(code.strip().splitlines()[0])[1:-1] in text, (md.name, inc.argument)


def test_lab_view_expands_and_saving_puts_the_directive_back(repo):
    jupytext = pytest.importorskip("jupytext", reason="jupytext comes with the book extra")
    original = (repo / "book" / "pingpong_lab.md").read_text()
    nb = jupytext.reads(original, fmt="md:myst")
    notebook_code.expand_notebook(nb, repo / "book", keep_original=True)
    shown = [c.source for c in nb.cells if c.cell_type == "markdown"]
    assert not any("{literalinclude}" in s for s in shown)
    assert any("```c\nstatic void round_trips" in s for s in shown)
    back = jupytext.writes(notebook_code.restore_notebook(nb), fmt="md:myst")
    assert back == jupytext.writes(jupytext.reads(original, fmt="md:myst"), fmt="md:myst")


def test_lab_contents_manager_opens_with_code_and_saves_the_directive(repo, tmp_path):
    pytest.importorskip("jupyter_server", reason="JupyterLab comes with the lab extra (make lab)")
    import asyncio
    import shutil
    from concurrent.futures import ThreadPoolExecutor

    from commbook.lab_contents import CodeInNotebooksContentsManager

    shutil.copytree(repo / "book", tmp_path / "book")
    shutil.copytree(repo / "kernels_c", tmp_path / "kernels_c")
    manager = CodeInNotebooksContentsManager(root_dir=str(tmp_path))

    async def round_trip():
        model = await manager.get("book/ring_lab.md", content=True, type="notebook")
        cells = model["content"]["cells"]
        assert not any("{literalinclude}" in c["source"] for c in cells)
        assert any("```c\nstatic void ring_shift" in c["source"] for c in cells)
        await manager.save({"type": "notebook", "format": "json", "content": model["content"]}, "book/ring_lab.md")

    # in a thread of its own: the session's Playwright keeps an event loop running in this one
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, round_trip()).result()
    saved = (tmp_path / "book" / "ring_lab.md").read_text()
    assert saved.replace("    jupytext_version:", "").count("{literalinclude}") == (
        repo / "book" / "ring_lab.md"
    ).read_text().count("{literalinclude}")
    assert [l for l in saved.splitlines() if "jupytext_version" not in l] == (
        repo / "book" / "ring_lab.md"
    ).read_text().splitlines()


def test_commbook_notebooks_writes_every_chapter_with_its_code(repo, tmp_path):
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "commbook.cli", "notebooks", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    written = sorted(tmp_path.glob("*.ipynb"))
    assert [p.stem for p in written] == sorted(p.stem for p in booktools.chapter_files(repo))
    for nb in written:
        text = nb.read_text()
        assert text.count("literalinclude") == 0, nb.name
        assert json.loads(text)["metadata"]["kernelspec"]["name"] == "commbook"
    assert "static void round_trips" in (tmp_path / "pingpong_lab.ipynb").read_text()
