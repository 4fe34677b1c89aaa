"""Build the book: `python -m commbook.booktools build` (what `make book` runs).

1. copies MathJax from the django-static-mathjax wheel into book/_static (no CDN offline);
   copies the explorers' Vega bundle from the pinned vl-convert into book/_static/explorers
   (loaded only by pages that show an explorer);
2. fetches the raw ORFEO files with their hashes when a mirror is at hand (../shared/orfeo or
   $COMMBOOK_ORFEO_MIRROR; COMMBOOK_ORFEO_MIRROR=none builds offline), for the data page's look
   at a raw file; every chapter figure comes from the derived tables in data/orfeo/derived/;
3. runs `jupyter-book build --all -W -n --keep-going` with this environment's bin first on PATH
   (mpiexec must be found by the engines) and execution cached per MPI family:
   _build/.jupyter_cache points at _build/.jupyter_cache-<openmpi|mpich> (`make book MPI=mpich`
   after an Open MPI build re-executes every page with MPICH);
4. fails if MPI or ipyparallel processes are left behind, or if any page failed to execute.

`build --student` (`make book EDITION=student`) builds the student edition: the chapters with
every solution removed (not collapsed) into _build/student/html, and one notebook per chapter
with the solutions stripped in _build/student/notebooks/, ready to hand out. It reuses the
default build's execution cache (solutions are text, so the code cells hash the same);
`--execute off` builds the pages without running them.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import config, mpi_env
from .execution.environment import execution_environment
from .pages import INSTRUCTOR_PAGES, chapter_files, split_solutions, student_toc  # noqa: F401


def repo_root() -> Path:
    return config.checkout() or Path.cwd()


def vendor_mathjax(root: Path) -> Path:
    spec = importlib.util.find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(
            "MathJax files not found: pip install -e '.[book]' (django-static-mathjax; make book installs it)"
        )
    src = Path(list(spec.submodule_search_locations)[0]) / "static" / "mathjax" / "es5"
    dest = root / "book" / "_static" / "mathjax"
    if not (dest / "tex-chtml.js").exists():
        shutil.copytree(src, dest, dirs_exist_ok=True)
    return dest


def fetch_orfeo(root: Path) -> None:
    mirror = config.orfeo_mirror(beside=root)
    if mirror is None:
        print("book: no ORFEO mirror (offline): chapters draw from data/orfeo/derived/ as always")
        return
    os.environ["COMMBOOK_ORFEO_MIRROR"] = mirror
    from . import orfeo

    paths, errors = orfeo.fetch(mirror=mirror)
    if errors:
        print(
            f"book: {len(errors)} raw ORFEO file(s) not fetched from {mirror} (first: {errors[0]}); "
            "chapters draw from data/orfeo/derived/ as always"
        )
    else:
        print(f"book: {len(paths)} raw ORFEO files fetched from {mirror}, sha256-checked")


def select_execution_cache(root: Path) -> Path:
    """Point _build/.jupyter_cache (where MyST-NB caches executed notebooks) at this MPI
    family's cache, so one family's measurements are never shown as another's."""
    from .execution.cache import select

    return select(root / "_build", mpi_env.detect().family.name)


def _execution_mode(root: Path) -> str:
    import yaml

    return str(yaml.safe_load((root / "_config.yml").read_text()).get("execute", {}).get("execute_notebooks", ""))


def _execute_into_cache(root: Path, env: dict) -> None:
    """Execute the pages the cache lacks before Jupyter Book renders (it runs them one at a
    time): the MPI pages one at a time, and meanwhile those that run no MPI side by side, one per
    core up to 4, at idle priority. A page that fails here is run again by Jupyter Book, which
    reports its error."""
    jobs = max(1, min(4, os.cpu_count() or 1))
    cmd = [sys.executable, "-m", "commbook.execution.chapters", "--root", str(root), "--jobs", str(jobs), "--no-checks"]
    t0 = time.perf_counter()
    print("book:", " ".join(cmd[1:]), flush=True)
    rc = subprocess.call(cmd, env=env, cwd=root)
    print(f"book: pages executed into the cache in {time.perf_counter() - t0:.0f} s (exit {rc})")


def build(root: Path, strict: bool = True, announce: bool = True, execute_first: bool = True) -> int:
    """The book's HTML in ROOT/_build/html; the pages' execution goes through the execution cache
    (executed first by commbook.execution.chapters, side by side where no MPI runs)."""
    vendor_mathjax(root)
    from .explorers.render import vendor_bundle

    vendor_bundle(root / "book")
    fetch_orfeo(root)
    print(f"book: execution cache {select_execution_cache(root)}")
    env = execution_environment(os.environ)
    # a live run two pages show is made once per build (commbook.nodes.boundary.load)
    shared = root / "_build" / ".shared-runs"
    shutil.rmtree(shared, ignore_errors=True)
    env["COMMBOOK_BUILD_SHARED"] = str(shared)
    jb = shutil.which("jupyter-book", path=env["PATH"])
    if jb is None:
        raise SystemExit("jupyter-book not found: pip install -e '.[book]' (make book does)")
    cmd = [jb, "build", "--all", "--keep-going", str(root)]
    if strict:
        cmd[2:2] = ["-W", "-n"]
    before = set(_leftovers())
    t0 = time.perf_counter()
    try:
        if execute_first and _execution_mode(root) == "cache":
            _execute_into_cache(root, env)
        print("book:", " ".join(cmd), flush=True)
        rc = subprocess.call(cmd, env=env, cwd=root)
    finally:
        shutil.rmtree(shared, ignore_errors=True)
    print(f"book: jupyter-book finished with exit {rc} in {time.perf_counter() - t0:.0f} s")
    reports = sorted((root / "_build" / "html" / "reports").rglob("*.err.log"))
    for r in reports:
        print(f"book: execution error report {r}:\n{r.read_text()[-3000:]}")
    time.sleep(2)  # let stopped engines finish exiting
    left = [p for p in _leftovers() if p not in before]
    if left:
        print("book: MPI/ipyparallel processes left behind:\n  " + "\n  ".join(left))
        rc = rc or 3
    if rc == 0 and reports:
        rc = 4
    if rc == 0 and announce:
        print(f"book: open {root / '_build' / 'html' / 'index.html'}")
    return rc


def _leftovers() -> list[str]:
    """MPI/ipyparallel processes of this environment (other environments' are not ours)."""
    from .cluster import leftover_processes

    return [p for p in leftover_processes() if sys.prefix in p]


# ---------------------------------------------------------------------------------------
# The student edition: solutions removed


def student_notebook(md_path: Path):
    """A chapter (MyST markdown) as an nbformat notebook without solutions: solution directives
    removed from markdown cells, cells tagged `solution` dropped, outputs empty; literalinclude
    excerpts replaced by their C code (commbook.notebook_code)."""
    import jupytext

    text, _ = split_solutions(md_path.read_text())
    from .notebook_code import expand_notebook

    nb = jupytext.reads(text, fmt="md:myst")
    nb.cells = [c for c in nb.cells if "solution" not in c.get("metadata", {}).get("tags", []) and c.source.strip()]
    return expand_notebook(nb, md_path.parent, md_path.name)  # the C excerpts as code


# The student edition's pages: run with the default build's execution cache, or not run at all.
EXECUTE_MODES = ("cache", "off")


def build_student(root: Path, strict: bool = True, execute: str = "cache") -> int:
    """The student edition: HTML in _build/student/html, notebooks in _build/student/notebooks."""
    import jupytext
    import yaml

    if execute not in EXECUTE_MODES:
        raise ValueError(f"execute must be 'cache' or 'off', not {execute!r}")
    out = root / "_build" / "student"
    stage = out / "source"
    shutil.rmtree(stage, ignore_errors=True)
    (stage / "book").mkdir(parents=True)
    notebooks = out / "notebooks"
    shutil.rmtree(notebooks, ignore_errors=True)
    notebooks.mkdir(parents=True)
    removed = 0
    for md in chapter_files(root, student=True):
        text, gone = split_solutions(md.read_text())
        removed += len(gone)
        (stage / "book" / md.name).write_text(text)
        jupytext.write(student_notebook(md), notebooks / f"{md.stem}.ipynb", fmt="ipynb")
    for extra in (root / "book").iterdir():  # _static, scripts/ the pages include, ...
        if extra.is_dir() and not extra.name.startswith("."):
            shutil.copytree(extra, stage / "book" / extra.name, dirs_exist_ok=True)
    # the pages' C excerpts (literalinclude); no solution file in what students may be given
    shutil.copytree(root / "kernels_c", stage / "kernels_c", ignore=shutil.ignore_patterns("*_solution.c"))
    shutil.copy2(root / "references.bib", stage / "references.bib")  # the {cite} roles' entries
    toc = student_toc(yaml.safe_load((root / "_toc.yml").read_text()))
    (stage / "_toc.yml").write_text(yaml.safe_dump(toc, sort_keys=False, allow_unicode=True))
    book_config = yaml.safe_load((root / "_config.yml").read_text())
    book_config["title"] = f"{book_config.get('title', '')} (student edition)"
    book_config.setdefault("execute", {})
    book_config["execute"]["execute_notebooks"] = execute
    # the default build's cache: solutions are markdown, so every code cell hashes the same
    book_config["execute"]["cache"] = str(root / "_build" / ".jupyter_cache")
    if execute == "off":  # glued values (and the verdicts' cases) exist only when the pages run
        sphinx_config = book_config.setdefault("sphinx", {}).setdefault("config", {})
        suppress = [*sphinx_config.get("suppress_warnings", []), "mystnb.glue", "commbook.verdict"]
        sphinx_config["suppress_warnings"] = suppress
    (stage / "_config.yml").write_text(yaml.safe_dump(book_config, sort_keys=False, allow_unicode=True))
    mirror = config.orfeo_mirror(beside=root)
    if mirror:  # the staged copy has no ../shared beside it
        config.set_default("COMMBOOK_ORFEO_MIRROR", mirror)
    print(f"book: student edition: {removed} solutions removed; notebooks in {notebooks}")
    rc = build(stage, strict=strict, announce=False, execute_first=False)  # the default build's cache
    html = out / "html"
    shutil.rmtree(html, ignore_errors=True)
    if (stage / "_build" / "html").is_dir():
        shutil.move(str(stage / "_build" / "html"), html)
    if rc == 0:
        print(f"book: open {html / 'index.html'}")
    return rc


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m commbook.booktools")
    p.add_argument("action", choices=["build"])
    p.add_argument("--root", type=Path, default=None)
    p.add_argument("--no-strict", action="store_true", help="do not turn warnings into errors")
    p.add_argument(
        "--student",
        action="store_true",
        help="the student edition: solutions removed, notebooks to hand out (_build/student/)",
    )
    p.add_argument(
        "--execute",
        choices=EXECUTE_MODES,
        default="cache",
        help="student edition: reuse the default build's execution cache, or do not execute",
    )
    args = p.parse_args(argv)
    root = (args.root or repo_root()).resolve()
    if args.student:
        return build_student(root, strict=not args.no_strict, execute=args.execute)
    return build(root, strict=not args.no_strict)


if __name__ == "__main__":
    sys.exit(main())
