"""Execute the chapters with this MPI without rendering them, and check what they glued.

    python -m commbook.execution.chapters [PAGE ...]       (make execute, make execute MPI=mpich)

Each page is read and executed as `make book` executes it: MyST-NB's reader, jupyter-cache, the
execution cache of this MPI family (_build/.jupyter_cache-<family>), the build's environment. So
a page `make book` already executed is not run again, and a `make book` afterwards renders from
these runs. Then, per page:

* it ran without an error;
* every {glue:...} role of its prose names a value the run glued (what MyST-NB warns about, and
  `make book`'s -W turns into a failure);
* every glued number is finite and every glued verdict says something;
* a page that runs MPI says which MPI measured it: its outputs name this MPI's version;

and every {claim} of those pages holds (commbook.claims.check). Exit 1 if anything fails.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..claims.census import GLUE_ROLE
from ..claims.prose import prose_lines
from ..quiet_runs import Pauser
from .cache import packages_digest
from .reading import read_page
from .warm_kernels import WAITING, execute_in_turn

# code that starts MPI ranks (a cluster, a kernel run, a chapter's measurement)
RUNS_MPI = re.compile(r"MPICluster|\.measure\(|run_example\(|\bM\.run\(|local_runs\(|cluster\.run\(|mpi_env\.detect")
SCRAPBOOK_MIME = "application/papermill.record/"


@dataclass
class PageReport:
    page: str
    executed: bool = False  # False: taken from the cache
    seconds: float = 0.0
    glued: int = 0
    roles: int = 0
    problems: list[str] = field(default_factory=list)
    checked: bool = False  # glue roles counted and checked

    def __str__(self) -> str:
        how = f"executed in {self.seconds:.0f} s" if self.executed else "from the cache"
        head = f"{'FAIL' if self.problems else 'ok  '} {self.page}: {how}"
        if self.checked:
            head += f", {self.roles} glue roles, {self.glued} glued"
        return "\n".join([head] + [f"     {self.page}.md:{p}" for p in self.problems])


def glued_values(nb) -> dict[str, object]:
    """name -> the value's richest representation, for every myst_nb.glue in the executed notebook."""
    values = {}
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            meta = out.get("metadata", {}).get("scrapbook")
            if not meta or "data" not in out:
                continue
            data = {k.replace(SCRAPBOOK_MIME, ""): v for k, v in out["data"].items()}
            values[meta["name"]] = data.get("text/markdown", data.get("text/plain", ""))
    return values


def glue_roles(text: str) -> list[tuple[int, str, str]]:
    """(line, kind, name) of every glue role in the page's prose."""
    found = []
    for lineno, line in prose_lines(text):
        for m in GLUE_ROLE.finditer(line):
            found.append((lineno, m.group("kind") or "", m.group("name").strip()))
    return found


def output_text(nb) -> str:
    """Everything the executed page shows as text: streams, plain text and Markdown outputs."""
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                parts.append(out.get("text", ""))
            for mime in ("text/plain", "text/markdown", "text/html"):
                for key in (mime, SCRAPBOOK_MIME + mime):
                    value = out.get("data", {}).get(key)
                    if value:
                        parts.append(value if isinstance(value, str) else "".join(value))
    return "\n".join(parts)


def check_outputs(text: str, nb, mpi_version: str) -> list[str]:
    """What is wrong between a page's prose and its executed notebook (empty: nothing)."""
    problems = []
    values = glued_values(nb)
    for lineno, kind, name in glue_roles(text):
        if name not in values:
            problems.append(f"{lineno}: {{glue:{kind}}}`{name}` names nothing the run glued")
            continue
        value = str(values[name]).strip()
        if not value:
            problems.append(f"{lineno}: {{glue:{kind}}}`{name}` was glued empty")
        elif kind == "text" or kind == "":
            try:
                number = float(value)
            except ValueError:
                continue  # a glued word or name
            if not math.isfinite(number):
                problems.append(f"{lineno}: {{glue:{kind}}}`{name}` is {value}")
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    if RUNS_MPI.search(code) and mpi_version not in output_text(nb):
        problems.append(f"0: the page runs MPI but no output names {mpi_version!r} (say which MPI measured it)")
    return problems


def cached_page(path: Path, cache):
    """The page's executed notebook from the cache, or None when it must run."""
    nb = read_page(path)
    try:
        record = cache.match_cache_notebook(nb)
    except KeyError:
        return None
    if (record.data or {}).get("packages") != packages_digest(nb):
        return None  # its chapter's package changed since it ran
    return cache.merge_match_into_notebook(nb)[1]


def run_page(path: Path, timeout: int):
    """(the executed notebook, seconds), nothing cached, in a fresh kernel; RuntimeError naming
    the page when a cell fails. Runs in a worker process when pages run side by side."""
    from jupyter_core.utils import run_sync  # as nbclient runs itself: also inside a running loop

    from .warm_kernels import execute

    return run_sync(execute)(path, timeout)


def store_page(path: Path, cache, nb, seconds: float) -> None:
    from jupyter_cache.base import CacheBundleIn

    record = cache.add_nb_to_project(str(path), read_data={"type": "plugin", "name": "myst_nb_md"})
    cache.cache_notebook_bundle(
        CacheBundleIn(nb, record.uri, data={"execution_seconds": seconds, "packages": packages_digest(nb)}),
        check_validity=False,
        overwrite=True,
    )


def execute_page(path: Path, cache, timeout: int):
    """The executed notebook of a page and whether it ran now (else it came from the cache).
    Raises RuntimeError naming the page when a cell fails."""
    nb = cached_page(path, cache)
    if nb is not None:
        return nb, False, 0.0
    nb, seconds = run_page(path, timeout)
    store_page(path, cache, nb, seconds)
    return nb, True, seconds


CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)


def runs_mpi(path: Path) -> bool:
    """Whether the page's code cells start MPI (read from its `{code-cell}` blocks: a test
    collection asks this of every page, and parsing them as MyST-NB does takes 0.1 s each)."""
    code = "\n".join(CODE_CELL.findall(path.read_text(encoding="utf-8")))
    return bool(RUNS_MPI.search(code))


def idle_priority() -> None:
    """A worker for pages that run no MPI, and every kernel it starts, runs at Linux's idle
    priority (SCHED_IDLE, inherited): it takes a core only when the MPI page's processes leave it
    free, so a measurement keeps its cores. Elsewhere (no SCHED_IDLE) the lowest nice value. It
    is what a measurement pauses (commbook.quiet_runs), never what pauses."""
    os.environ.pop("COMMBOOK_QUIET_RUNS", None)
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        os.nice(19)


def compile_kernels() -> int:
    """Compile every C program of kernels_c/ as the pages compile it (into the kernels' build
    cache), in the order the book first runs them; return how many. Run in an idle worker at the
    start of a build, it moves the compiles (27 s of one core here when the cache is cold) off
    the MPI pages, which then find them built. A program that does not compile is left to the
    page that runs it, which shows the compiler's message."""
    from .. import config, kernels

    root = config.kernels_dir()
    examples = sorted((root / "examples").glob("*.c"))
    exercises = sorted((root / "exercises").glob("*.c"))
    first = [root / "pingpong.c", root / "ring.c"]  # the point-to-point chapters come first
    rest = [p for p in sorted(root.glob("*.c")) if not kernels.is_shared_source(p) and p not in first]
    jobs = [(p, "executable") for p in examples] + [(root / "examples" / "deadlock.c", "shared")]
    jobs += [(p, kind) for p in first for kind in ("shared", "executable")]
    jobs += [(p, "executable") for p in exercises]
    jobs += [(p, kind) for p in rest for kind in ("shared", "executable")]
    built = 0
    for path, kind in jobs:
        try:
            kernels.compile_kernel(path, kind)
            built += 1
        except kernels.KernelError:  # CompileError included: the page says it
            pass
    return built


def execute_pages(pages: list[Path], cache, timeout: int, jobs: int = 1, done=lambda path, result: None) -> None:
    """Execute the pages not in the cache; done(page, result) as each is ready, result being
    (notebook, ran now, seconds) or the RuntimeError. A page that runs MPI runs alone, one after
    the other in this process; meanwhile the pages that run no MPI run `jobs` at a time in worker
    processes at idle priority (`idle_priority`): they use the cores the MPI page leaves idle
    (its compiling, plotting and start-up), not those its ranks measure on. When MPI pages run,
    an idle worker of its own compiles the kernels (`compile_kernels`), and each MPI page's
    kernel is made ready while the page before it runs (`warm_kernels`)."""
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from multiprocessing import get_context

    together, alone = [], []
    for path in pages:
        nb = cached_page(path, cache)
        if nb is not None:
            done(path, (nb, False, 0.0))
        else:
            (together if jobs > 1 and not runs_mpi(path) else alone).append(path)
    pool, futures, pauser = None, {}, None
    if jobs > 1 and (together or alone):  # spawn: the workers start clean, with this process's environment
        workers = min(jobs, len(together)) + (1 if alone else 0)  # the compiles get a worker of their own
        pool = ProcessPoolExecutor(workers, mp_context=get_context("spawn"), initializer=idle_priority)
        if alone:
            pool.submit(compile_kernels)
        futures = {pool.submit(run_page, path, timeout): path for path in together}
        if alone:  # the MPI pages' measurements stop the workers while they run
            quiet = Path(tempfile.mkdtemp(prefix="commbook-quiet-runs-"))
            os.environ["COMMBOOK_QUIET_RUNS"] = str(quiet)
            pauser = Pauser(quiet, lambda: [p.pid for p in multiprocessing.active_children()] + sorted(WAITING))

    def finished(path, result):
        if not isinstance(result, RuntimeError):
            store_page(path, cache, *result)
            result = (result[0], True, result[1])
        done(path, result)

    try:
        execute_in_turn(alone, timeout, warm=jobs > 1, done=finished)
        for future in as_completed(futures):
            path = futures[future]
            try:
                nb, seconds = future.result()
            except Exception as e:  # the page's own error, or its worker died
                done(path, e if isinstance(e, RuntimeError) else RuntimeError(f"{path.stem}: {e!r}"))
                continue
            store_page(path, cache, nb, seconds)
            done(path, (nb, True, seconds))
    finally:
        if pauser is not None:
            pauser.close()
            os.environ.pop("COMMBOOK_QUIET_RUNS", None)
            shutil.rmtree(pauser.folder, ignore_errors=True)
        if pool is not None:
            pool.shutdown(cancel_futures=True)


def pages_to_run(root: Path, wanted: list[str]) -> list[Path]:
    """The pages of _toc.yml that have code cells (or the wanted ones), in book order."""
    from ..pages import chapter_files

    pages = [p for p in chapter_files(root) if p.suffix == ".md" and "```{code-cell}" in p.read_text(encoding="utf-8")]
    if wanted:
        unknown = sorted(set(wanted) - {p.stem for p in chapter_files(root)})
        if unknown:
            raise SystemExit(f"no such page in _toc.yml: {', '.join(unknown)}")
        pages = [p for p in pages if p.stem in wanted]
    return pages


def run(root: Path, wanted: list[str], timeout: int = 900, out=print, jobs: int = 1, checks: bool = True) -> int:
    """Execute the pages (those the cache holds are not run again); with `checks`, then check
    their glue and claims. Exit status 1 if anything fails."""
    from jupyter_cache import get_cache

    from .. import mpi_env
    from ..claims.check import check_book
    from .cache import select
    from .environment import execution_environment

    info = mpi_env.detect()
    cache = get_cache(str(select(root / "_build", info.family.name)))
    # the environment make book gives its kernels: the cached pages must be what it would render
    os.environ.update(execution_environment(os.environ))
    reports, t0 = [], time.perf_counter()

    def report(path, result):
        r = PageReport(path.stem)
        if isinstance(result, RuntimeError):
            r.problems.append(f"0: {result}")
        else:
            nb, r.executed, r.seconds = result
            if checks:
                r.checked = True
                text = path.read_text(encoding="utf-8")
                r.glued, r.roles = len(glued_values(nb)), len(glue_roles(text))
                r.problems += check_outputs(text, nb, info.version)
        out(str(r))
        reports.append(r)

    execute_pages(pages_to_run(root, wanted), cache, timeout, jobs, report)
    if not checks:
        bad = [r for r in reports if r.problems]
        out(f"executed: {len(reports)} pages in {time.perf_counter() - t0:.0f} s, {len(bad)} failed")
        return 1 if bad else 0
    claims = [r for r in check_book(root / "book", [r.page for r in reports]) if not r.ok]
    for c in claims:
        out(f"FAIL claim {c}")
    bad = [r for r in reports if r.problems]
    out(
        f"executed: {len(reports)} pages with {info.version} in {time.perf_counter() - t0:.0f} s "
        f"({sum(r.executed for r in reports)} run now), {len(bad)} with problems, {len(claims)} claims wrong"
    )
    return 1 if bad or claims else 0


def main(argv=None) -> int:
    from .. import config

    p = argparse.ArgumentParser(
        prog="python -m commbook.execution.chapters",
        description="execute the chapters with this MPI (no rendering) and check their glue and claims",
    )
    p.add_argument("pages", nargs="*", help="page names (pingpong, ring, ...); default: every page with code")
    p.add_argument("--timeout", type=int, default=900, help="seconds a cell may run (the book's limit)")
    p.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="pages that run no MPI executed this many at a time, at idle priority beside the MPI pages (which run alone)",
    )
    p.add_argument("--root", type=Path, default=None, help="the book's folder (default: this checkout)")
    p.add_argument("--no-checks", action="store_true", help="execute only (the book build checks glue itself)")
    args = p.parse_args(argv)
    if args.jobs < 1:
        p.error(f"--jobs must be at least 1, not {args.jobs}")
    root = args.root or config.checkout() or Path.cwd()
    return run(root, args.pages, args.timeout, jobs=args.jobs, checks=not args.no_checks)


if __name__ == "__main__":
    sys.exit(main())
