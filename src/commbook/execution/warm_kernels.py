"""Execute the MPI pages one after the other, each in a kernel made ready while the one before ran.

A page's Jupyter kernel costs about 3 s before its first cell does anything: the process starts
and imports numpy, pandas, matplotlib and the package. The MPI pages of a build run one at a time
(their ranks measure), so those seconds add up. Here the next page's kernel is started, and those
imports done, while the current page runs, at Linux's idle priority (SCHED_IDLE) and stopped while
a run measures (`WAITING`, commbook.quiet_runs), so it takes only the CPU the measuring page
leaves free. When its page's turn comes, the kernel is raised to
normal priority, every thread of it, before any cell runs: the page's MPI ranks, its children,
start at normal priority. Where a priority cannot be set (no SCHED_IDLE, or no permission to
raise it back), the page gets a fresh kernel, as before.

Only imports run in the waiting kernel, and they bind no name: the page's cells start from the
namespace a fresh kernel has.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
import traceback
from pathlib import Path

from .reading import read_page

# imported in the waiting kernel (each takes 0.1-1 s); none binds a name in the page's namespace
WARM_IMPORTS = (
    "numpy",
    "pandas",
    "scipy.optimize",
    "matplotlib.pyplot",
    "myst_nb",
    "commbook.cluster",
    "commbook.glued",
    "commbook.orfeo",
    "commbook.fit",
    "commbook.plotting",
)
WARM_CODE = f"for _m in {WARM_IMPORTS!r}:\n    __import__(_m)\ndel _m\n"
HISTORY = "--HistoryManager.hist_file=:memory:"  # what nbclient gives the kernels it starts
WAITING: set[int] = set()  # pids of kernels made ready for a page not yet running: background work


def _set_policy(pid: int, policy: int) -> bool:
    """Every thread of process `pid` to `policy`; False where that is refused or unknown."""
    try:
        tids = [int(t) for t in os.listdir(f"/proc/{pid}/task")]
        for tid in tids:
            os.sched_setscheduler(tid, policy, os.sched_param(0))
        return True
    except (AttributeError, OSError):
        return False


def _kernel_name(nb) -> str:
    return nb.metadata.get("kernelspec", {}).get("name") or "python3"


async def warm_kernel(path: Path, turn: dict | None = None):
    """A kernel for page `path`, started at idle priority with WARM_IMPORTS done; None where
    idle priority is not available (the page then starts its own). Once `turn["now"]` is set
    (its page's turn came before it was ready), it finishes at normal priority."""
    from jupyter_client.manager import AsyncKernelManager

    if not hasattr(os, "SCHED_IDLE"):
        return None
    turn = {} if turn is None else turn
    km = AsyncKernelManager(kernel_name=_kernel_name(read_page(path)))
    await km.start_kernel(cwd=str(path.parent), extra_arguments=[HISTORY])
    try:
        if not turn.get("now"):
            if not _set_policy(km.provisioner.pid, os.SCHED_IDLE):
                raise OSError("SCHED_IDLE refused")
            WAITING.add(km.provisioner.pid)  # stopped while a run measures (commbook.quiet_runs)
        kc = km.client()
        kc.start_channels()
        try:
            await kc.wait_for_ready(timeout=120)
            reply = await kc.execute_interactive(
                WARM_CODE, silent=True, store_history=False, timeout=300, output_hook=lambda msg: None
            )
        finally:
            kc.stop_channels()
        if reply["content"]["status"] != "ok":
            raise RuntimeError(f"warm-up imports failed: {reply['content'].get('evalue')}")
    except BaseException:
        WAITING.discard(km.provisioner.pid)
        await km.shutdown_kernel(now=True)
        raise
    return km


def _raise(pid: int) -> bool:
    """A waiting kernel back to normal priority, going on if the background was stopped."""
    WAITING.discard(pid)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGCONT)  # stopped while the page before measured, it goes on now
    return _set_policy(pid, os.SCHED_OTHER)


async def _promoted(km):
    """The waiting kernel at normal priority, or None (shut down) where that is refused."""
    if km is None:
        return None
    if _raise(km.provisioner.pid):
        return km
    await km.shutdown_kernel(now=True)
    return None


async def execute(path: Path, timeout: int, km=None):
    """(the executed notebook, seconds) of page `path`, in kernel `km` (shut down after) or a
    fresh one, as jupyter-cache's single_nb_execution runs it (the page's own `execution`
    metadata may set timeout and allow_errors); RuntimeError naming the page when a cell fails."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    nb = read_page(path)
    meta = nb.metadata.get("execution", {})
    client = NotebookClient(
        nb,
        km=km,
        timeout=meta.get("timeout", timeout),
        allow_errors=meta.get("allow_errors", False),
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
        # a page beside MPI runs is stopped while they measure (commbook.quiet_runs) and its
        # clock goes on: wait longer than nbclient's 60 s and 4 s, and an output that still did
        # not come is an error, not a glue key silently missing from the page
        startup_timeout=300,
        iopub_timeout=60,
        raise_on_iopub_timeout=True,
    )
    t0 = time.perf_counter()
    try:
        await client.async_execute()
    except (CellExecutionError, CellTimeoutError) as err:
        raise RuntimeError(
            f"{path.stem}: executing failed: {type(err).__name__}\n{traceback.format_exc()[-3000:]}"
        ) from None
    finally:
        if km is not None:  # nbclient leaves a kernel it did not start running
            await client._async_cleanup_kernel()
    return nb, time.perf_counter() - t0


async def _execute_in_turn(pages: list[Path], timeout: int, warm: bool, done) -> None:
    waiting, turn = None, {}  # the next page's kernel being made ready, and whether its turn came
    try:
        for i, path in enumerate(pages):
            km = None
            if waiting is not None:
                turn["now"] = True  # not ready yet: it finishes at normal priority, not behind the background
                for pid in list(WAITING):
                    _raise(pid)
                try:
                    km = await _promoted(await waiting)
                except Exception:  # the page starts its own kernel
                    km = None
                waiting = None
            if warm and i + 1 < len(pages):
                turn = {}
                waiting = asyncio.ensure_future(warm_kernel(pages[i + 1], turn))
            try:
                done(path, await execute(path, timeout, km))
            except RuntimeError as e:
                done(path, e)
    finally:
        if waiting is not None:  # a page failed the build: the kernel made ready for the next goes
            try:
                km = await waiting
                if km is not None:
                    await km.shutdown_kernel(now=True)
            except Exception:
                pass


def execute_in_turn(pages: list[Path], timeout: int, warm: bool, done) -> None:
    """Execute `pages` one after the other; done(page, (notebook, seconds) or RuntimeError) as
    each ends. With `warm`, each page's kernel is made ready while the page before runs."""
    from jupyter_core.utils import run_sync  # as nbclient runs itself: also inside a running loop

    run_sync(_execute_in_turn)(pages, timeout, warm, done)
