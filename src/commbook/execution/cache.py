"""One execution cache per MPI family: _build/.jupyter_cache is a link to
_build/.jupyter_cache-<family>, so an MPICH build never shows Open MPI's measurements."""

from __future__ import annotations

import os
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
