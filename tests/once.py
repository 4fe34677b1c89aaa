"""Work a pytest session does once, even under pytest-xdist (CI reads the built pages on both
cores): the first worker does it under a lock and writes its exit status and output's tail; the
other workers read them. Used by the book build and the student edition's fixtures."""

import fcntl
import os
from collections.abc import Callable
from pathlib import Path


def session_dir(tmp_path_factory) -> Path:
    """A folder for this session only, shared by its xdist workers (each has its own basetemp)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once(tmp_path_factory, name: str, work: Callable[[Path], tuple[int, str]]) -> tuple[int, str]:
    """(exit status, output's tail) of work(folder), run once per session for `name`."""
    shared = session_dir(tmp_path_factory)
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        result = shared / f"{name}.result"
        if not result.exists():
            rc, output = work(shared)
            result.write_text(f"{rc}\n{output[-6000:]}")
        rc_text, _, output = result.read_text().partition("\n")
    return int(rc_text), output
