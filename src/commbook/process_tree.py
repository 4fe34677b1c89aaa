"""Every process a run started, found and killed as one tree, whatever ends the run.

A run (an ``mpiexec`` job, an ipyparallel cluster) is started with an environment marker
(``CB_PROCESS_TREE=<owner pid>-<random>``) that every descendant inherits. Open MPI puts each
rank in its own process group, and when the launcher dies its ranks are reparented to PID 1,
so neither the process group nor the parent links find them all; the marker does. The tree
also remembers every descendant it has seen (with its start time, so a reused PID is never
killed by mistake), for processes that clear their environment.

:func:`install_signal_handlers` makes SIGTERM and SIGHUP of the owning process (what a
Jupyter kernel shutdown or a closed terminal sends) kill every live tree first, then end the
process the conventional way (status 128 + signal number). For endings no handler sees
(SIGKILL, the out-of-memory killer) each tree has a watchdog: a small process, in its own
session, that waits on a pipe only the owner holds and kills the marked processes when the
pipe closes without a word.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
import weakref
from typing import Callable

import psutil

MARKER = "CB_PROCESS_TREE"  # a marker, not a setting: so not one of config's COMMBOOK_* variables

_live: "weakref.WeakSet[ProcessTree]" = weakref.WeakSet()
_cleanups: list[Callable[[], None]] = []
_installed: dict[int, object] = {}


def is_alive(proc: psutil.Process | int) -> bool:
    """A process (or pid) running and not a zombie (a killed child nobody has waited for yet is
    gone for us)."""
    try:
        if not isinstance(proc, psutil.Process):
            proc = psutil.Process(proc)
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def living(procs) -> list[psutil.Process]:
    return [p for p in procs if is_alive(p)]


def _wait_until_dead(procs, timeout: float) -> None:
    """Until every process is dead or a zombie. Not psutil.wait_procs: a killed process that
    was reparented waits as a zombie until PID 1 reaps it (a second or more on some VMs'
    init), and wait_procs counts a zombie as alive."""
    deadline = time.monotonic() + timeout
    while living(procs) and time.monotonic() < deadline:
        time.sleep(0.02)
    for proc in procs:  # reap our own children (wait_procs did): no zombie left behind
        try:
            if proc.ppid() == os.getpid():
                os.waitpid(proc.pid, os.WNOHANG)
        except (psutil.Error, ChildProcessError, OSError):
            pass


# /dev/shm files of the MPI libraries' shared-memory transports (Open MPI 5's sm, 4's vader, MPICH)
SEGMENT_PREFIXES = ("sm_segment.", "vader_segment.", "mpich_shm_")


def _maps(pid: int) -> set[str]:
    """The /dev/shm files a process maps (its /proc/PID/maps)."""
    try:
        with open(f"/proc/{pid}/maps") as f:
            return {line.split(None, 5)[5].strip() for line in f if " /dev/shm/" in line}
    except (OSError, IndexError):
        return set()


def mapped_segments(procs) -> set[str]:
    """The MPI shared-memory segments (paths) these processes map."""
    out = set()
    for proc in procs:
        out |= {m for m in _maps(proc.pid) if os.path.basename(m).startswith(SEGMENT_PREFIXES)}
    return out


def segments_now() -> set[str]:
    """The MPI shared-memory segments (paths) in /dev/shm now."""
    try:
        return {f"/dev/shm/{n}" for n in os.listdir("/dev/shm") if n.startswith(SEGMENT_PREFIXES)}
    except OSError:
        return set()


def remove_unmapped(paths) -> list[str]:
    """Unlink the segments in `paths` that no live process maps any more; return those removed."""
    paths = {p for p in paths if os.path.exists(p)}
    if not paths:
        return []
    for pid in psutil.pids():
        paths -= _maps(pid)
    removed = []
    for p in sorted(paths):
        try:
            os.unlink(p)
            removed.append(p)
        except OSError:
            pass
    return removed


class ProcessTree:
    """The processes of one run: pass :meth:`env` to the launcher, :meth:`kill` when done."""

    def __init__(self, label: str = "run", watchdog: bool = True):
        self.label = label
        self.marker = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self._seen: dict[tuple[int, float], psutil.Process] = {}
        self._lock = threading.Lock()
        self._segments: set[str] = set()  # MPI shared-memory files its processes were seen to map
        self._segments_before = segments_now()  # those that were there before it started
        self._watchdog = _start_watchdog(self.marker, self._segments_before) if watchdog else None
        _live.add(self)

    def env(self) -> dict:
        return {MARKER: self.marker}

    def _remember(self, proc: psutil.Process) -> None:
        try:
            key = (proc.pid, proc.create_time())
        except psutil.Error:
            return
        with self._lock:
            self._seen.setdefault(key, proc)

    def adopt(self, pid: int) -> None:
        """Remember pid and its current descendants (call while the tree is alive)."""
        try:
            root = psutil.Process(pid)
        except psutil.Error:
            return
        for proc in [root, *_children(root)]:
            self._remember(proc)

    def snapshot(self) -> None:
        """Remember every live descendant of the processes seen so far."""
        with self._lock:
            known = list(self._seen.values())
        for proc in known:
            for child in _children(proc):
                self._remember(child)
        with self._lock:
            known = list(self._seen.values())
        # a job that ends itself abnormally (MPICH's MPI_Abort: Hydra kills the ranks) leaves its
        # segments behind with nobody alive to find them at kill(): remember them while they run
        segments = mapped_segments(living(known))
        with self._lock:
            self._segments |= segments

    def _marked(self) -> list[psutil.Process]:
        me, uid, found = os.getpid(), os.getuid(), []
        for proc in psutil.process_iter(["uids"]):
            try:
                if proc.pid == me or proc.info["uids"] is None or proc.info["uids"].real != uid:
                    continue
                if proc.environ().get(MARKER) == self.marker:
                    found.append(proc)
            except psutil.Error:
                continue
        return found

    def processes(self) -> list[psutil.Process]:
        """The tree's live processes (zombies excluded), found by marker and by descent."""
        self.snapshot()
        for proc in self._marked():
            self._remember(proc)
        with self._lock:
            known = list(self._seen.values())
        return living(known)

    def pids(self) -> list[int]:
        return sorted(p.pid for p in self.processes())

    def kill(self, wait: float = 10.0) -> list[int]:
        """SIGKILL the whole tree (ranks blocked in MPI ignore SIGTERM); return pids still alive.
        The MPI shared-memory segments its processes had mapped go too, once nobody maps them:
        a killed rank never runs the MPI_Finalize that removes them (16 MiB each, until reboot), nor
        does a rank Hydra kills after an MPI_Abort (snapshot() remembers them while they run). A
        job that died before any snapshot saw its segments leaves files that appeared while this
        tree lived: those go too once nobody maps them (a live job of anyone's maps its own; the
        sticky /dev/shm keeps other users' files)."""
        segments: set[str] = set()
        try:
            return self._kill(wait, segments)
        finally:
            with self._lock:
                segments |= self._segments
            remove_unmapped(segments | (segments_now() - self._segments_before))

    def _kill(self, wait: float, segments: set) -> list[int]:
        for _ in range(3):  # again: a launcher may fork while it is being killed
            procs = self.processes()
            if not procs:
                return []
            segments |= mapped_segments(procs)
            for proc in procs:
                try:
                    proc.kill()
                except psutil.Error:
                    pass
            _wait_until_dead(procs, wait)
        return self.pids()

    def close(self) -> None:
        self.kill()
        _live.discard(self)
        dog, self._watchdog = self._watchdog, None
        if dog is not None:
            try:
                dog.stdin.close()  # "all done": it finds nothing more to kill and exits
            except OSError:
                pass


def _start_watchdog(marker: str, segments_before: set[str]) -> subprocess.Popen | None:
    """A small process that kills the tree if this one dies without cleaning up (SIGKILL, the
    out-of-memory killer): it waits for the end of a pipe only this process holds. It is told
    which MPI shared-memory files were there when the tree started, so it removes those the
    run left (its ranks may be gone before it looks: MPICH's mpiexec ends them when its owner dies)."""
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "commbook.process_tree", marker, *sorted(segments_before)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )  # not hit by a signal to our group
    except OSError:
        return None  # the tree is still killed by close() and the signal handlers


def _watch(marker: str, segments_before: list[str]) -> None:
    """The watchdog: block until the owner's pipe closes, then kill what carries the marker and
    remove the shared-memory files that appeared since the owner's tree started, once unmapped."""
    try:
        sys.stdin.buffer.read()
    except (OSError, KeyboardInterrupt):
        pass
    tree = ProcessTree("orphans", watchdog=False)
    tree.marker = marker
    tree._segments_before = set(segments_before)
    tree.kill()


def _children(proc: psutil.Process) -> list[psutil.Process]:
    try:
        return proc.children(recursive=True)
    except psutil.Error:
        return []


def kill_all() -> int:
    """Run the registered cleanups and kill every live tree; return how many trees there were."""
    trees = [t for t in list(_live) if t.processes()]
    for cleanup in list(_cleanups):
        try:
            cleanup()
        except Exception:  # ending anyway: never mask the exit status
            pass
    for tree in list(_live):
        try:
            tree.kill(wait=5)
        except Exception:
            pass
    return len(trees)


def on_termination(cleanup: Callable[[], None]) -> None:
    """Run cleanup (before killing the trees) when the process is told to terminate."""
    if cleanup not in _cleanups:
        _cleanups.append(cleanup)
    install_signal_handlers()


def _handler(signum, frame):
    if kill_all():
        try:
            print(
                f"commbook: {signal.Signals(signum).name} received: stopped the MPI processes this process had started",
                file=sys.stderr,
                flush=True,
            )
        except (OSError, ValueError):  # stderr closed (a terminal hung up)
            pass
    previous = _installed.pop(signum, None)
    if callable(previous):  # someone else's handler (ipykernel, a test runner): theirs now
        signal.signal(signum, previous)
        previous(signum, frame)
        return
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)  # end as the signal would have: status 128 + signum


def install_signal_handlers() -> None:
    """SIGTERM and SIGHUP kill every live tree first (only possible from the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is None or sig in _installed:
            continue
        previous = signal.getsignal(sig)
        if previous == signal.SIG_IGN:  # e.g. SIGHUP under nohup: the process keeps running
            continue
        try:
            signal.signal(sig, _handler)
            _installed[sig] = previous
        except (ValueError, OSError):
            pass


if __name__ == "__main__":  # the watchdog of one tree (see _start_watchdog)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _watch(sys.argv[1], sys.argv[2:])
