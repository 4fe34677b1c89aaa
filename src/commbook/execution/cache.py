"""One execution cache per MPI family: _build/.jupyter_cache is a link to
_build/.jupyter_cache-<family>, so an MPICH build never shows Open MPI's measurements."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

CACHE = ".jupyter_cache"


def select(build_dir: Path, family: str) -> Path:
    """Make build_dir/.jupyter_cache point at build_dir/.jupyter_cache-<family>; return that.
    A cache of unknown family (a real directory from an older build) is set aside, not reused."""
    build_dir.mkdir(parents=True, exist_ok=True)
    target = build_dir / f"{CACHE}-{family}"
    target.mkdir(exist_ok=True)
    link = build_dir / CACHE
    if link.is_symlink():
        if os.readlink(link) == target.name:
            return target
        link.unlink()
    elif link.exists():
        legacy = build_dir / f"{CACHE}-unknown-family"
        if legacy.exists():
            import shutil

            shutil.rmtree(legacy)
        link.rename(legacy)
    tmp = build_dir / f"{CACHE}.link-tmp"
    if tmp.is_symlink() or tmp.exists():
        tmp.unlink()
    tmp.symlink_to(target.name)  # relative: the build folder may move
    tmp.replace(link)
    return target


# A page's cache key (jupyter-cache, MyST-NB) is its code cells: a change to what its chapter's
# package computes would leave the old run (its numbers, its verdicts) in the book. So each run
# is stored with a digest of the chapter packages its cells import, and a digest that differs
# sends the page to run again. Changes below commbook.chapters still need `make clean-book`.
CHAPTERS = Path(__file__).resolve().parents[1] / "chapters"
_IMPORTS = re.compile(r"commbook\.chapters\.(\w+)|from\s+commbook\.chapters\s+import\s+(\([^)]*\)|[^\n]+)")


def chapter_packages(nb) -> list[str]:
    """The packages of commbook.chapters the notebook's code cells import."""
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    names = set()
    for dotted, listed in _IMPORTS.findall(code):
        if dotted:
            names.add(dotted)
        else:  # "ring as chapter, pingpong"
            names.update(w.split()[0] for w in listed.strip("()").split(",") if w.strip())
    return sorted(n for n in names if (CHAPTERS / n).is_dir())


def packages_digest(nb) -> str:
    """sha256 over the source and data files of the chapter packages the notebook imports."""
    h = hashlib.sha256()
    for name in chapter_packages(nb):
        for f in sorted((CHAPTERS / name).rglob("*")):
            if f.is_file() and f.suffix in (".py", ".toml", ".json", ".csv"):
                h.update(f"{f.relative_to(CHAPTERS)}\n".encode())
                h.update(f.read_bytes())
    return h.hexdigest()
