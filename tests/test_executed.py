"""The claims-only check of executed chapters (commbook.execution.chapters) and the census of
checked numbers: a glue role nothing glued, a NaN, an empty verdict and a page that runs MPI
without naming it fail; a page executes once, then comes from the per-MPI cache."""

from __future__ import annotations

import math
import os

import nbformat
import psutil
import pytest

from commbook.claims import census
from commbook.execution import chapters as executed

PAGE = """---
kernelspec:
  name: python3
  display_name: Python 3
---
# A page

```{code-cell} ipython3
:tags: [remove-cell]
from commbook import glued
glued.number("t_us", 1.25)
glued.text("verdict", "is **cheaper**")
```

It took {glue:text}`t_us:.2f` µs and {glue:md}`verdict`.
"""


def _notebook(glues: dict, printed: str = "", code: str = "x = 1"):
    cell = nbformat.v4.new_code_cell(code)
    for name, value in glues.items():
        mime = "text/markdown" if isinstance(value, str) and not value.replace(".", "").isdigit() else "text/plain"
        cell.outputs.append(
            nbformat.v4.new_output(
                "display_data",
                data={executed.SCRAPBOOK_MIME + mime: str(value)},
                metadata={"scrapbook": {"name": name, "mime_prefix": executed.SCRAPBOOK_MIME}},
            )
        )
    if printed:
        cell.outputs.append(nbformat.v4.new_output("stream", name="stdout", text=printed))
    return nbformat.v4.new_notebook(cells=[cell])


def test_a_page_whose_glue_is_all_there_passes():
    nb = _notebook({"t_us": 1.25, "verdict": "is **cheaper**"})
    assert executed.check_outputs(PAGE, nb, "MPICH 5.0.2") == []


@pytest.mark.parametrize(
    "glues, wrong",
    [
        ({"verdict": "is cheaper"}, "`t_us` names nothing the run glued"),
        ({"t_us": math.nan, "verdict": "is cheaper"}, "`t_us` is nan"),
        ({"t_us": 1.0, "verdict": " "}, "`verdict` was glued empty"),
    ],
)
def test_missing_nan_or_empty_glue_fails_naming_the_line(glues, wrong):
    problems = executed.check_outputs(PAGE, _notebook(glues), "MPICH 5.0.2")
    assert len(problems) == 1 and wrong in problems[0] and problems[0].startswith("15:"), problems


def test_a_page_that_runs_mpi_must_name_the_mpi_that_measured_it():
    code = "cluster = MPICluster(2)"
    glues = {"t_us": 1.0, "verdict": "x"}
    silent = executed.check_outputs(PAGE, _notebook(glues, "λ = 1 µs\n", code), "MPICH 5.0.2")
    assert len(silent) == 1 and "MPICH 5.0.2" in silent[0]
    said = _notebook(glues, "measured with MPICH 5.0.2 on host\n", code)
    assert executed.check_outputs(PAGE, said, "MPICH 5.0.2") == []
    # the other family's measurements (a stale cache) do not count
    assert executed.check_outputs(PAGE, _notebook(glues, "Open MPI 5.0.11\n", code), "MPICH 5.0.2")


@pytest.mark.slow  # a Jupyter kernel runs the page: not in make test-fast
def test_a_page_executes_once_then_comes_from_the_cache(tmp_path):
    from jupyter_cache import get_cache

    page = tmp_path / "page.md"
    page.write_text(PAGE, encoding="utf-8")
    cache = get_cache(str(tmp_path / "cache"))
    nb, ran, _ = executed.execute_page(page, cache, timeout=120)
    assert ran and executed.glued_values(nb)["t_us"] == "1.25"
    assert executed.check_outputs(PAGE, nb, "any") == []
    again, ran, _ = executed.execute_page(page, cache, timeout=120)
    assert not ran and executed.glued_values(again) == executed.glued_values(nb)
    page.write_text(PAGE.replace('glued.text("verdict"', 'raise RuntimeError("boom"); glued.text("v"'))
    with pytest.raises(RuntimeError, match="page: executing failed"):
        executed.execute_page(page, cache, timeout=120)


def test_a_change_to_the_chapters_package_sends_the_page_to_run_again(tmp_path, monkeypatch):
    """The cache key of jupyter-cache is the code cells: a run is also stored with a digest of
    the chapter packages its cells import, so a changed package (a verdict's cases, what a figure
    computes) makes the page run again, and a change elsewhere does not."""
    from jupyter_cache import get_cache

    from commbook.execution import cache as execution_cache
    from commbook.execution.reading import read_page

    chapters = tmp_path / "chapters"
    for name in ("demo", "other"):
        (chapters / name).mkdir(parents=True)
        (chapters / name / "figures.py").write_text("def verdict():\n    return 'a'\n")
    monkeypatch.setattr(execution_cache, "CHAPTERS", chapters)
    page = tmp_path / "page.md"
    page.write_text(PAGE.replace("from commbook import glued", "from commbook.chapters import demo as chapter"))
    assert execution_cache.chapter_packages(read_page(page)) == ["demo"]
    cache = get_cache(str(tmp_path / "cache"))
    assert executed.cached_page(page, cache) is None
    executed.store_page(page, cache, read_page(page), 0.0)  # as a run stores it (no kernel needed)
    assert executed.cached_page(page, cache) is not None
    (chapters / "other" / "figures.py").write_text("def verdict():\n    return 'b'\n")
    assert executed.cached_page(page, cache) is not None
    (chapters / "demo" / "figures.py").write_text("def verdict():\n    return 'b'\n")
    assert executed.cached_page(page, cache) is None
    executed.store_page(page, cache, read_page(page), 0.0)
    assert executed.cached_page(page, cache) is not None


def test_a_page_executes_inside_a_running_event_loop(tmp_path):
    """As nbclient does, execution also works where an event loop already runs in the thread
    (a test session's, a Jupyter kernel's): asyncio.run would refuse."""
    import asyncio
    import concurrent.futures

    from jupyter_cache import get_cache

    page = tmp_path / "page.md"
    page.write_text(PAGE, encoding="utf-8")
    cache = get_cache(str(tmp_path / "cache"))

    async def inside_a_loop():
        return executed.execute_page(page, cache, timeout=120)

    # a thread of its own: its loop is the only one there (another test's may run in this thread)
    with concurrent.futures.ThreadPoolExecutor(1) as thread:
        nb, ran, _ = thread.submit(asyncio.run, inside_a_loop()).result()
    assert ran and executed.glued_values(nb)["t_us"] == "1.25"


TIMED = (
    PAGE[: PAGE.index("```{code-cell}")]  # PAGE's front matter and title
    + """```{code-cell} ipython3
import os, pathlib, sys, time
t0 = time.time()
time.sleep(3)  # long enough to overlap: kernels at idle priority start late on a busy machine
policy = max(os.sched_getscheduler(int(t)) for t in os.listdir("/proc/self/task"))  # of every thread
warm = "matplotlib.pyplot" in sys.modules  # imported before the page ran
pathlib.Path("NAME.times").write_text(f"{t0} {time.time()} {policy} {int(warm)} {int('_m' in dir())}")  # MARK
```
"""
)


@pytest.mark.slow  # five kernels and two worker processes: not in make test-fast
def test_pages_without_mpi_run_side_by_side_and_an_mpi_page_alone(tmp_path):
    """--jobs 2: the two pages that run no MPI overlap in time, their kernels at idle priority
    (SCHED_IDLE); the pages whose code starts MPI (by RUNS_MPI: here a comment naming MPICluster)
    run meanwhile one after the other at normal priority, every thread of their kernels, so
    their ranks keep the cores; the second MPI page's kernel was made ready (its imports done,
    no name left behind) while the first ran; a failing page is reported by name; every page
    that ran is cached."""
    from jupyter_cache import get_cache

    pages = []
    for name, mark in (("a", ""), ("b", ""), ("m", "MPICluster"), ("m2", "MPICluster"), ("bad", "")):
        page = tmp_path / f"{name}.md"
        text = TIMED.replace("NAME", name).replace("MARK", mark)
        page.write_text(text.replace("t0 = ", "1 / 0\nt0 = ") if name == "bad" else text, encoding="utf-8")
        pages.append(page)
    cache = get_cache(str(tmp_path / "cache"))
    results = {}
    executed.execute_pages(pages, cache, timeout=120, jobs=2, done=lambda p, r: results.__setitem__(p.stem, r))
    assert isinstance(results.pop("bad"), RuntimeError)
    assert all(ran for _, ran, _ in results.values())
    span = {n: [float(x) for x in (tmp_path / f"{n}.times").read_text().split()] for n in results}
    assert span["a"][0] < span["b"][1] and span["b"][0] < span["a"][1], span  # side by side
    assert span["m"][1] <= span["m2"][0], span  # one after the other
    policy = {n: int(v[2]) for n, v in span.items()}
    assert policy == {"a": os.SCHED_IDLE, "b": os.SCHED_IDLE, "m": os.SCHED_OTHER, "m2": os.SCHED_OTHER}, policy
    assert (span["m"][3], span["m2"][3]) == (0, 1), span  # a fresh kernel, then a warm one
    assert span["m2"][4] == 0, span  # the warm-up's loop variable is gone
    assert all(executed.cached_page(p, cache) is not None for p in pages if p.stem != "bad")


@pytest.mark.slow  # two Jupyter kernels: not in make test-fast
def test_a_failed_warm_up_leaves_the_page_a_fresh_kernel(tmp_path, monkeypatch):
    """When the next page's kernel cannot be made ready (here its imports fail), that page
    starts its own kernel and runs as before; no kernel is left running."""
    from commbook.execution import warm_kernels

    monkeypatch.setattr(warm_kernels, "WARM_CODE", "import no_such_module_here\n")
    pages = []
    for name in ("m", "m2"):
        page = tmp_path / f"{name}.md"
        page.write_text(TIMED.replace("NAME", name).replace("MARK", "MPICluster"), encoding="utf-8")
        pages.append(page)
    results = {}
    warm_kernels.execute_in_turn(pages, 120, True, lambda p, r: results.__setitem__(p.stem, r))
    assert set(results) == {"m", "m2"} and not any(isinstance(r, Exception) for r in results.values())
    warm = [int((tmp_path / f"{n}.times").read_text().split()[3]) for n in ("m", "m2")]
    assert warm == [0, 0]
    assert not [p for p in psutil.Process().children(recursive=True) if "ipykernel" in " ".join(p.cmdline())]


def test_the_census_counts_glue_claims_and_constants(tmp_path, repo):
    (tmp_path / "a.md").write_text(PAGE + "\nAnd {claim}`3 µs <x>`, {claim}`4 µs <x>`.\n", encoding="utf-8")
    c = census.count(tmp_path, repo / "data" / "literature_constants.toml")
    assert (sum(c.glue_numbers.values()), sum(c.glue_verdicts.values())) == (1, 1)
    assert sum(c.claim_uses.values()) == 2 and c.claim_names == {"x"} and c.pages == 1
    assert c.constants == len(census.load_constants(repo / "data" / "literature_constants.toml"))


def test_oversubscribed_mpich_gives_the_core_away(monkeypatch):
    """More MPICH ranks than cores: throttled polling and a yield that sleeps (a P = 4 allreduce
    on 2 loaded cores ran 6-8x faster with it); never for a run that fits the cores (its 8 B
    ping-pong would pay a wake-up per message), even after an oversubscribed cluster."""
    from commbook import mpi_env

    monkeypatch.setattr(
        mpi_env, "detect", lambda: mpi_env.MPIInfo(mpi_env.FAMILIES["mpich"], "MPICH 5", "mpiexec", None)
    )
    monkeypatch.setattr(mpi_env, "cores", lambda: 2)
    monkeypatch.setattr(mpi_env, "runs_here", lambda: True)
    monkeypatch.setattr(
        os, "environ", {k: v for k, v in os.environ.items() if k not in mpi_env.FAMILIES["mpich"].oversubscribed}
    )
    over = mpi_env.environ(4)
    assert over["MPIR_CVAR_ENABLE_HEAVY_YIELD"] == "1" and over["MPIR_CVAR_CH4_PROGRESS_THROTTLE"] == "1"
    for env in (mpi_env.run_environment(), mpi_env.run_environment(np=2), mpi_env.environ(2)):
        assert not set(mpi_env.FAMILIES["mpich"].oversubscribed) & set(env)
    mpi_env.apply(6)  # a cluster of 6 engines, then a 2-rank run in the same process
    assert os.environ["MPIR_CVAR_ENABLE_HEAVY_YIELD"] == "1"
    assert "MPIR_CVAR_ENABLE_HEAVY_YIELD" not in mpi_env.environ(2)
    mpi_env.apply(2)
    assert "MPIR_CVAR_ENABLE_HEAVY_YIELD" not in os.environ


# pages that run MPI and name it in a printed output instead of a measured_by line
NAMES_MPI_IN_OUTPUT = {
    "intro": "prints the machine table with its 'mpi' row",
    "cluster": "commbook doctor prints mpiexec's library and version",
    "mpi_primer": "primer.show prints each example's MPI library",
}


def test_every_page_that_runs_mpi_says_which_mpi_measured_it(repo):
    """Static half of the executed check: a page whose code starts MPI glues *_measured_by and
    shows it (or prints the library, as listed above)."""
    for page in sorted((repo / "book").glob("*.md")):
        nb = executed.read_page(page)
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        if not executed.RUNS_MPI.search(code) or page.stem in NAMES_MPI_IN_OUTPUT:
            continue
        text = page.read_text(encoding="utf-8")
        assert "measured_by(" in code and "_measured_by`" in text, f"{page.name}: runs MPI, never says which"


def test_an_mpich_build_draws_the_node_boundary_from_the_shipped_run(monkeypatch):
    """The live node-boundary run goes through Open MPI's launch agent; an MPICH book build
    draws the reference run and says why (its live mpiexec between emulated nodes failed)."""
    from commbook import mpi_env
    from commbook.nodes import boundary

    monkeypatch.delenv("COMMBOOK_NODES_REFERENCE", raising=False)
    monkeypatch.setattr(
        mpi_env, "detect", lambda: mpi_env.MPIInfo(mpi_env.FAMILIES["mpich"], "MPICH 5.0.2", "mpiexec", None)
    )
    assert "MPICH 5.0.2" in boundary.reference_reason()


def test_pages_execute_as_the_book_build_runs_them(tmp_path, monkeypatch):
    """make execute fills the cache make book renders from, so its kernels get the book build's
    environment, the static-page marker included (without it a run panel caches live widgets
    and an explorer its inlined bundle, and the next make book renders them)."""
    from jupyter_cache import get_cache

    from commbook import mpi_env
    from commbook.execution.cache import select
    from commbook.execution.environment import execution_environment
    from commbook.explorers.render import ENV_STATIC

    for key in execution_environment({}):  # run() sets them in os.environ: undone after the test
        monkeypatch.setenv(key, "")
        monkeypatch.delenv(key)
    page = tmp_path / "book" / "p.md"
    page.parent.mkdir()
    page.write_text(
        PAGE.replace(
            "glued.number", f"glued.text('marker', os.environ.get('{ENV_STATIC}', 'unset'))\nglued.number"
        ).replace("from commbook import glued", "import os\nfrom commbook import glued"),
        encoding="utf-8",
    )
    monkeypatch.setattr(executed, "pages_to_run", lambda root, wanted: [page])
    assert executed.run(tmp_path, [], out=lambda line: None) == 0
    cache = get_cache(str(select(tmp_path / "_build", mpi_env.detect().family.name)))
    nb, ran, _ = executed.execute_page(page, cache, timeout=60)
    assert not ran and executed.glued_values(nb)["marker"] == "1"


def test_runs_mpi_reads_the_code_cells_myst_nb_reads(repo):
    """runs_mpi reads `{code-cell}` blocks with a pattern: the same code MyST-NB executes, page by page."""
    for path in sorted((repo / "book").glob("*.md")):
        nb = executed.read_page(path)
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        assert executed.runs_mpi(path) == bool(executed.RUNS_MPI.search(code)), path.name
        cells = sum(c.cell_type == "code" for c in nb.cells)
        assert len(executed.CODE_CELL.findall(path.read_text(encoding="utf-8"))) == cells, path.name


def test_a_build_compiles_every_kernel_before_its_pages_ask(monkeypatch, repo):
    """compile_kernels (an idle worker at a build's start) builds every program of kernels_c/ the
    way the pages ask for it: each benchmark as a library (the cluster) and an executable
    (mpiexec), each example and exercise as an executable; the ping-pong first; a program that
    does not compile is left to its page."""
    from commbook import kernels

    asked = []

    def compile_kernel(path, kind):
        asked.append((path.relative_to(repo / "kernels_c").as_posix(), kind))
        if path.stem == "ring":
            raise kernels.CompileError("mpicc failed on ring.c")

    monkeypatch.setattr(kernels, "compile_kernel", compile_kernel)
    built = executed.compile_kernels()
    benchmarks = [p.name for p in (repo / "kernels_c").glob("*.c") if not kernels.is_shared_source(p)]
    want = {(b, k) for b in benchmarks for k in ("shared", "executable")}
    want |= {
        (f"{d}/{p.name}", "executable") for d in ("examples", "exercises") for p in (repo / "kernels_c" / d).glob("*.c")
    }
    want.add(("examples/deadlock.c", "shared"))
    assert set(asked) == want and len(asked) == len(want)
    assert built == len(want) - 2  # ring.c's two builds failed
    first = [name for name, _ in asked if "/" not in name][:2]
    assert first == ["pingpong.c", "pingpong.c"]
    assert "collectives_algos.c" not in {name for name, _ in asked}


@pytest.mark.slow  # a Jupyter kernel's warm-up: not in make test-fast
def test_a_kernel_whose_page_is_due_finishes_its_warm_up_at_normal_priority(tmp_path):
    """When the page before ends first, the kernel being made ready is not left at idle priority
    behind the background: it finishes at normal priority and is not background work."""
    from jupyter_core.utils import run_sync

    from commbook.execution import warm_kernels

    page = tmp_path / "m.md"
    page.write_text(TIMED.replace("NAME", "m").replace("MARK", "MPICluster"), encoding="utf-8")

    async def due():
        km = await warm_kernels.warm_kernel(page, {"now": True})
        try:
            pid = km.provisioner.pid
            policies = {os.sched_getscheduler(int(t)) for t in os.listdir(f"/proc/{pid}/task")}
            return pid, policies
        finally:
            await km.shutdown_kernel(now=True)

    pid, policies = run_sync(due)()
    assert policies == {os.SCHED_OTHER} and pid not in warm_kernels.WAITING
