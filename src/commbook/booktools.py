"""Build the book: `python -m commbook.booktools build` (what `make book` runs).

1. copies MathJax from the django-static-mathjax wheel into book/_static (no CDN offline);
   copies the explorers' Vega bundle from the pinned vl-convert into book/_static/explorers
   (loaded only by pages that show an explorer);
2. fetches the raw ORFEO files with their hashes when a mirror is at hand (../shared/orfeo or
   $COMMBOOK_ORFEO_MIRROR), so the chapters plot raw data; otherwise they use the shipped tables;
3. runs `jupyter-book build --all -W -n --keep-going` with this environment's bin first on PATH
   (mpiexec must be found by the engines) and execution cached in _build/.jupyter_cache;
4. fails if MPI or ipyparallel processes are left behind, or if any page failed to execute.
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

from . import mpi_env


def repo_root() -> Path:
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "_toc.yml").exists() and (parent / "_config.yml").exists():
            return parent
    return Path.cwd()


def vendor_mathjax(root: Path) -> Path:
    spec = importlib.util.find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("MathJax files not found: pip install django-static-mathjax "
                         "(make book installs it)")
    src = Path(list(spec.submodule_search_locations)[0]) / "static" / "mathjax" / "es5"
    dest = root / "book" / "_static" / "mathjax"
    if not (dest / "tex-chtml.js").exists():
        shutil.copytree(src, dest, dirs_exist_ok=True)
    return dest


def vendor_explorer_js(root: Path) -> Path:
    """The live explorers' JavaScript (Vega, Vega-Lite, vega-embed from the pinned vl-convert)
    into book/_static/explorers; the explorers' Sphinx extension adds it to the pages using it."""
    from .explorers import render

    dest = root / "book" / "_static" / render.STATIC_SUBDIR / render.BUNDLE_NAME
    if not dest.exists():
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_suffix(".tmp")
        tmp.write_text(render.javascript_bundle(), encoding="utf-8")
        tmp.replace(dest)
    return dest


def orfeo_mirror(root: Path) -> str | None:
    env = os.environ.get("COMMBOOK_ORFEO_MIRROR")
    if env:
        return env
    beside = root.parent / "shared" / "orfeo"
    return str(beside) if beside.is_dir() else None


def fetch_orfeo(root: Path) -> None:
    mirror = orfeo_mirror(root)
    if mirror is None:
        print("book: no ORFEO mirror at hand; chapters use the shipped summary tables")
        return
    os.environ["COMMBOOK_ORFEO_MIRROR"] = mirror
    from .cli import main as cli_main
    try:
        rc = cli_main(["data", "fetch", "orfeo", "--mirror", mirror])
    except SystemExit as e:  # argparse: the command is not there
        rc = e.code
    if rc != 0:
        print(f"book: fetching ORFEO data from {mirror} failed (exit {rc}); "
              "chapters fall back to the shipped tables")


def build(root: Path, strict: bool = True) -> int:
    vendor_mathjax(root)
    vendor_explorer_js(root)
    fetch_orfeo(root)
    env = dict(os.environ)
    env.update(mpi_env.run_environment())
    env["IPP_NONINTERACTIVE"] = "1"
    env.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    jb = shutil.which("jupyter-book", path=env["PATH"])
    if jb is None:
        raise SystemExit("jupyter-book not found: pip install -e '.[book]' (make book does)")
    cmd = [jb, "build", "--all", "--keep-going", str(root)]
    if strict:
        cmd[2:2] = ["-W", "-n"]
    before = set(_leftovers())
    t0 = time.perf_counter()
    print("book:", " ".join(cmd), flush=True)
    rc = subprocess.call(cmd, env=env, cwd=root)
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
    if rc == 0:
        print(f"book: open {root / '_build' / 'html' / 'index.html'}")
    return rc


def _leftovers() -> list[str]:
    """MPI/ipyparallel processes of this environment (other environments' are not ours)."""
    from .cluster import leftover_processes
    return [p for p in leftover_processes() if sys.prefix in p]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m commbook.booktools")
    p.add_argument("action", choices=["build"])
    p.add_argument("--root", type=Path, default=None)
    p.add_argument("--no-strict", action="store_true", help="do not turn warnings into errors")
    args = p.parse_args(argv)
    return build((args.root or repo_root()).resolve(), strict=not args.no_strict)


if __name__ == "__main__":
    sys.exit(main())
