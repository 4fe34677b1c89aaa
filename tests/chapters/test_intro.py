"""The intro page (commbook.chapters.intro): the course map read from the pages."""

from commbook.chapters import intro as course


def test_course_map_reads_exercises_and_which_run_code(repo):
    ex = {e["label"]: e["runs_code"] for e in course.exercises_of(repo / "book" / "mpi_primer.md")}
    assert ex == {"prim-dims": True, "prim-edges": False, "prim-standard": True}
    pages = course.toc_pages(repo / "_toc.yml")
    assert pages[0] == "intro" and {"mpi_primer", "measuring", "scaling", "glossary"} <= set(pages)
    assert pages.index("mpi_primer") < pages.index("pingpong")
    assert pages.index("scaling") < pages.index("jacobi")


def test_every_chapter_has_three_exercises_one_running_code(repo):
    """Every chapter of _toc.yml (a page with its lab page, if it has one) except the intro and the
    appendix/instructor pages has at least three exercises, and at least one of them runs code
    (its cell calls more than the self-check)."""
    pages = course.toc_pages(repo / "_toc.yml")[1:]
    without = {"how_it_works", "data_catalogue", "cluster_operations", "glossary", "references", "instructor"}
    short = []
    for page in pages:
        if page in without or page.endswith("_lab"):
            continue
        lab = repo / "book" / f"{page}_lab.md"
        found = course.exercises_of(repo / "book" / f"{page}.md") + (course.exercises_of(lab) if lab.exists() else [])
        if len(found) < 3 or not any(e["runs_code"] for e in found):
            short.append(f"{page}: {len(found)} exercises, {sum(e['runs_code'] for e in found)} running code")
    assert not short, "pages short of exercises:\n" + "\n".join(short)


def test_the_machine_scope_case_reads_the_socket_count():
    from commbook.chapters import intro

    one, two = intro.scope(cores=2, sockets=1), intro.scope(cores=48, sockets=2)
    assert (one.case, one.numbers) == ("one_socket", {"cores": 2, "sockets": 1})
    assert (two.case, two.numbers) == ("sockets", {"cores": 48, "sockets": 2})
    # one core: 'one_socket' read 'This machine has 1 cores and they share one socket'
    assert intro.scope(cores=1, sockets=1).case == "one_core"
