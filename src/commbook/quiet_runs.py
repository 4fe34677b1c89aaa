"""While a run measures, the book build's background work stands still.

A book build executes the pages that start no MPI, and compiles the kernels, beside the page
that measures, at Linux's idle priority (commbook.execution.chapters). Idle priority is not
enough: ranks that yield the core (more ranks than cores, a blocking wait) hand it to the
background, and the background's caches and memory traffic slow the ranks it does not
preempt. Measured on this project's 2-core machine: "Measuring well" took 36 s alone, 54 s
beside the idle pages, and its 1 MiB ping-pong 3.3 s alone, 6.8 s beside two idle busy loops.

So a run that measures says so (`measuring()`): in a build (COMMBOOK_QUIET_RUNS names a
folder) it puts a file named after its process (pid and start time) there while it runs, and
the build's `Pauser` stops the background processes (SIGSTOP) while such a file exists and lets
them go on (SIGCONT) 1 s after none is left. A file whose process died is removed by the Pauser,
so a crash cannot leave the background stopped. Outside a build nothing happens.

The background is never stopped for more than `longest` s (10) at a time: then it runs for
`breather` s (1) before the next stop. A stopped process's clock goes on, so a long stop
runs out the background's own time limits (a 30 s wait on `smpirun -version`, nbclient's
60 s for a kernel to start): most likely how a CI build lost its whole topology page.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import threading
import time
from pathlib import Path

import psutil

from . import config

_count = itertools.count()


@contextlib.contextmanager
def measuring():
    """Within this block the build's background work is stopped (in a build; else nothing)."""
    folder = config.get("COMMBOOK_QUIET_RUNS")
    if not folder:
        yield
        return
    # the process's start time too: a dead run's pid reused by another process is not taken for it
    started = int(psutil.Process().create_time() * 1000)
    flag = Path(folder) / f"{os.getpid()}-{started}-{threading.get_ident()}-{next(_count)}"
    try:
        flag.touch()
    except OSError:  # the build's folder is gone: nothing to pause
        yield
        return
    try:
        yield
    finally:
        flag.unlink(missing_ok=True)


def _owner_alive(flag: Path) -> bool:
    try:
        pid, started = (int(x) for x in flag.name.split("-")[:2])
        return int(psutil.Process(pid).create_time() * 1000) == started
    except (ValueError, psutil.Error):
        return False


class Pauser:
    """Stops the process trees of `roots()` while a run in `folder` measures (a thread polling
    every `period` s), and lets them go on when no run has measured for `linger` s (a sweep's
    runs follow each other closely: the background stays stopped across them instead of
    being stopped and woken for each); after `longest` s stopped they go on for `breather` s
    (their time limits run while they stand still); `close()` lets everything go on. A process
    that is measuring is never stopped, even when `roots()` names it."""

    def __init__(
        self,
        folder: Path,
        roots,
        period: float = 0.02,
        linger: float = 1.0,
        longest: float = 10.0,
        breather: float = 1.0,
    ):
        self.folder, self.roots, self.period, self.linger = Path(folder), roots, period, linger
        self.longest, self.breather = longest, breather
        self.folder.mkdir(parents=True, exist_ok=True)
        self.stopped: list[psutil.Process] = []
        self.pauses = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="quiet-runs", daemon=True)
        self._thread.start()

    def _active(self) -> set[int]:
        """The processes measuring now (a dead one's mark is removed)."""
        owners = set()
        for flag in self.folder.iterdir():
            if _owner_alive(flag):
                owners.add(int(flag.name.split("-", 1)[0]))
            else:
                flag.unlink(missing_ok=True)
        return owners

    def _processes(self) -> list[psutil.Process]:
        found = []
        try:
            roots = list(self.roots())
        except RuntimeError:  # multiprocessing's set of children changed meanwhile: next time
            return []
        for pid in roots:
            try:
                root = psutil.Process(pid)
                found += [root, *root.children(recursive=True)]
            except psutil.Error:
                pass
        return found

    def _stop(self, measuring: set[int]) -> None:
        self.stopped = [p for p in self._processes() if p.pid not in measuring]
        for p in self.stopped:
            with contextlib.suppress(psutil.Error):
                p.send_signal(signal.SIGSTOP)
        self.pauses += 1

    def _resume(self) -> None:
        for p in self.stopped:
            with contextlib.suppress(psutil.Error):
                p.send_signal(signal.SIGCONT)
        self.stopped = []

    def _watch(self) -> None:
        paused, last, since, woke = False, 0.0, 0.0, -float("inf")
        while not self._done.wait(self.period):
            try:
                measuring = self._active()
            except OSError:
                measuring = set()
            now = time.monotonic()
            if measuring:
                last = now
                if not paused and now - woke >= self.breather:
                    self._stop(measuring)
                    paused, since = True, now
            if paused and (now - last >= self.linger or now - since >= self.longest):
                self._resume()
                paused = False
                woke = now if measuring else -float("inf")
        self._resume()

    def close(self) -> None:
        self._done.set()
        self._thread.join(5)
        self._resume()
