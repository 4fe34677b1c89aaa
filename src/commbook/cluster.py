"""An ipyparallel MPI cluster for one notebook: start, run kernels on every engine, stop.

    from commbook.cluster import MPICluster
    with MPICluster(n=2) as cluster:
        out = cluster.run("pingpong", {"sizes": "0:1M"})     # KernelOutput of rank 0

* Engines are launched with mpiexec (``engines="mpi"``) so they share one MPI_COMM_WORLD; every
  engine calls the kernel's ``cb_entry`` through ctypes with that communicator.
* The cluster is always stopped, its whole process tree (controller, mpiexec, engines, their
  nannies; see commbook.process_tree): on leaving the ``with`` block, on ``stop()``, at
  interpreter exit, and on SIGTERM or SIGHUP of this process (a Jupyter kernel shutdown or
  restart). A run that hangs is timed out, a run interrupted with Ctrl-C and a run during which
  an engine dies all kill the cluster (engines inside MPI ignore SIGTERM) and raise a clear
  error; the next ``run`` starts a fresh cluster and says so.
* A local cluster listens on loopback only (controller on 127.0.0.1, see mpi_env.loopback_environment).
* On a cluster login node, engines go through Slurm by configuration, not code:
  ``COMMBOOK_ENGINES=slurm`` plus the ``COMMBOOK_SLURM_*`` variables (commbook.scheduler: one
  job whose ``srun --mpi`` starts the engines; a timeout cancels the job), or
  ``COMMBOOK_IPP_PROFILE`` to use an ipyparallel profile you configured yourself.
"""

from __future__ import annotations

import atexit
import functools
import logging
import os
import socket
import sys
import time
import weakref
from pathlib import Path

import psutil

from . import config, kernels, mpi_env, process_tree, quiet_runs, scheduler
from .kernels import KernelOutput, KernelTimeout

# ms between the hub's heartbeats (ipyparallel: 3000 ms, an engine dropped after 10 missed, 30 s):
# shorter, so a start does not wait for the next beat; the same 30 s before a silent engine is dropped
HEARTBEAT_MS = 500
HEARTBEAT_MISSES = 60

_live: "weakref.WeakSet[MPICluster]" = weakref.WeakSet()


def _stop_all_at_exit():
    for c in list(_live):
        try:
            c.stop()
        except Exception:  # exiting anyway; never mask the real exit status
            pass


def _kill_all_now():
    """On SIGTERM/SIGHUP: no time for a graceful stop, kill every cluster's tree."""
    for c in list(_live):
        try:
            c._force_stop()
        except Exception:
            pass


atexit.register(_stop_all_at_exit)


def _engine_pid_and_rank(client_host: str):
    import os as _os
    import socket as _socket

    from mpi4py import MPI

    # A pid on another node (engines placed by Slurm) must never be signalled from here.
    pids = [_os.getpid()] if _socket.gethostname() == client_host else []
    return pids, MPI.COMM_WORLD.Get_rank(), MPI.COMM_WORLD.Get_size()


def _engine_call(library, options):
    from commbook.kernels import call_on_comm

    return call_on_comm(library, options)


class RunStopped(kernels.KernelError):
    """A run ended on request (a run panel's Stop): every process of the cluster was killed."""


class EngineDied(Exception):
    """A local engine process ended during a run (seen before the hub's heartbeats drop it)."""


class _StartFailed(Exception):
    def __init__(self, reason: str, output: str):
        super().__init__(reason)
        self.reason, self.output = reason, output


@functools.cache
def _mpi_engines_keeping_output():
    """ipyparallel's mpiexec engine launcher, keeping the engines' output when they stop
    (ipyparallel deletes the file then): a failed start can show what mpiexec said."""
    from ipyparallel.cluster.launcher import MPIEngineSetLauncher

    class MPIEnginesKeepingOutput(MPIEngineSetLauncher):
        kept_output = ""

        def get_output(self, remove=False):
            text = super().get_output(remove=remove)
            self.kept_output = text or self.kept_output
            return text

    return MPIEnginesKeepingOutput


def _engines_output(cluster) -> str:
    texts = []
    for launcher in getattr(cluster, "engines", {}).values():
        try:
            texts.append(launcher.get_output() or getattr(launcher, "kept_output", ""))
        except Exception:  # reporting a failure: never raise another
            pass
    return "".join(texts)


def _tail(output: str, lines: int = 15) -> str:
    kept = [line for line in output.strip().splitlines() if line.strip()][-lines:]
    return ("\nWhat the engines' mpiexec printed (last lines):\n  " + "\n  ".join(kept)) if kept else ""


class MPICluster:
    """One ipyparallel cluster of MPI engines. Not started until first used (or start())."""

    def __init__(
        self,
        n: int | None = None,
        engines: str | None = None,
        start_timeout: float = 120.0,
        default_timeout: float = 300.0,
        map_by: str | None = None,
    ):
        self.n = int(mpi_env.cores() if n is None else n)
        if self.n < 1:
            raise ValueError(f"a cluster needs at least one engine, not {n}")
        self.engines = engines or config.get("COMMBOOK_ENGINES")
        self.start_timeout = start_timeout
        self.default_timeout = default_timeout
        self.map_by = map_by  # mpiexec's --map-by for "mpi" engines (with COMMBOOK_HOSTFILE: over nodes)
        self._cluster = None
        self._client = None
        self._engine_pids: list[int] = []
        self._tree: process_tree.ProcessTree | None = None
        self._ended = ""  # how the last run ended when it took the cluster down with it
        _live.add(self)
        process_tree.on_termination(_kill_all_now)

    # -- life cycle --------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._client is not None

    @property
    def local(self) -> bool:
        """Engines on this machine (not through a scheduler, a hostfile or a user's own profile)."""
        return self.engines == "mpi" and not config.get("COMMBOOK_IPP_PROFILE") and mpi_env.runs_here()

    def start(self) -> "MPICluster":
        if self.running:
            return self
        # A local start now and then hangs with no engine registered (seen on CI under Open MPI,
        # never reproduced by hand): the first try gets half the time, then one more try.
        tries = [self.start_timeout / 2, self.start_timeout] if self.local else [self.start_timeout]
        for i, timeout in enumerate(tries):
            try:
                return self._start_once(timeout)
            except _StartFailed as e:
                if i + 1 == len(tries):
                    raise kernels.KernelError(
                        f"could not start {self.n} MPI engines ({self.engines}): {e.reason}. "
                        f"Run `commbook doctor` to see what is missing.{_tail(e.output)}"
                    ) from e.__cause__
                print(
                    f"commbook: {self.n} MPI engines did not start ({e.reason}); trying once more.{_tail(e.output)}",
                    file=sys.stderr,
                    flush=True,
                )
        raise AssertionError("unreachable")

    def _start_once(self, timeout: float) -> "MPICluster":
        import ipyparallel as ipp

        os.environ.setdefault("IPP_NONINTERACTIVE", "1")
        mpi_env.apply(self.n, local=None if self.local else False)
        kwargs = dict(n=self.n, engines=self.engines, log_level=logging.ERROR)
        profile = config.get("COMMBOOK_IPP_PROFILE")
        if profile:
            kwargs["profile"] = profile
        if self.engines == "mpi" and not profile:
            # engines on the nodes of a hostfile connect from there: listen beyond loopback
            kwargs["controller_ip"] = "127.0.0.1" if self.local else "*"
            kwargs["engines"] = _mpi_engines_keeping_output()
        if self.engines == "slurm":
            kwargs["controller_ip"] = "*"
        cluster = ipp.Cluster(**kwargs)
        # The hub finishes an engine's registration at its next heartbeat: ipyparallel's 3 s
        # period made every start wait about 3 s more than the engines need.
        cluster.controller_args = [
            *cluster.controller_args,
            f"--HeartMonitor.period={HEARTBEAT_MS}",
            f"--HeartMonitor.max_heartmonitor_misses={HEARTBEAT_MISSES}",
        ]
        if self.engines == "mpi" and not profile:
            cluster.config.MPIEngineSetLauncher.mpi_args = mpi_env.placement_args(self.map_by)
        if self.engines == "slurm":
            scheduler.configure_engines(cluster.config, cluster.profile_dir)
        t0 = time.perf_counter()
        self._tree = process_tree.ProcessTree(f"cluster of {self.n}")
        # every launched process inherits the marker: found even after reparenting to PID 1
        cluster.config.BaseLauncher.environment = self._tree.env()
        self._cluster = cluster
        try:
            cluster.start_cluster_sync()
            self._adopt_launchers()
            client = cluster.connect_client_sync()
            self._wait_for_engines(client, timeout)
        except KeyboardInterrupt:
            self._force_stop()  # half-started: nothing may be left behind
            raise
        except Exception as e:
            output = _engines_output(cluster)
            self._force_stop()
            raise _StartFailed(str(e), output) from e
        self._client = client
        info = client[:].apply_sync(_engine_pid_and_rank, socket.gethostname())
        sizes = {s for _, _, s in info}
        if sizes != {self.n}:
            self._force_stop()
            raise kernels.KernelError(
                f"engines do not share one MPI world (sizes {sorted(sizes)}): mpi4py and mpiexec "
                f"come from different MPI installations. `commbook doctor` explains."
            )
        self._engine_pids = [pid for pids, _, _ in info for pid in pids]
        for pid in self._engine_pids:
            self._tree.adopt(pid)
        self._ranks = {eid: rank for eid, (_, rank, _) in zip(client.ids, info)}
        self.start_seconds = time.perf_counter() - t0
        return self

    def _wait_for_engines(self, client, timeout: float) -> None:
        """Wait until n engines registered; fail at once when a local cluster's engine processes
        all exited (after a failed MPI_Init, Open MPI 5's prterun stays up and would let the
        wait run to its end)."""
        t0 = time.monotonic()
        deadline = t0 + timeout
        seen = False
        while True:
            left = deadline - time.monotonic()
            try:
                client.wait_for_engines(self.n, interactive=False, timeout=max(0.1, min(1.0, left)))
                return
            except TimeoutError:
                if left <= 1.0:
                    raise TimeoutError(
                        f"{self.n} engines not ready in {timeout:g} s ({len(client.ids)} ready)"
                    ) from None
            if self.local:
                engines, launcher_alive = self._engine_processes()
                seen = seen or bool(engines)
                # mpiexec starts them within a second; 10 s leaves room for a loaded machine
                if not engines and (seen or not launcher_alive or time.monotonic() - t0 > 10):
                    raise RuntimeError(
                        f"every engine process exited before registering ({len(client.ids)} of {self.n} registered)"
                    )

    def _engine_processes(self) -> tuple[list[psutil.Process], bool]:
        """The live engine processes below the engines' mpiexec, and whether mpiexec lives."""
        found, launcher_alive = [], False
        for launcher in getattr(self._cluster, "engines", {}).values():
            pid = getattr(getattr(launcher, "process", None), "pid", None)
            if pid is None:  # not started yet
                continue
            try:
                mpiexec = psutil.Process(pid)
                launcher_alive = launcher_alive or process_tree.is_alive(mpiexec)
                for p in mpiexec.children(recursive=True):
                    if process_tree.is_alive(p) and "ipyparallel.engine" in p.cmdline():
                        found.append(p)
            except psutil.Error:  # gone
                pass
        return found, launcher_alive

    def stop(self) -> None:
        """Stop engines and controller; kill anything that does not stop by itself."""
        if self._cluster is None and self._tree is None:
            return
        if self._tree is not None:
            self._adopt_launchers()
            self._tree.snapshot()  # before stopping: orphans are no longer descendants
        try:
            if self._client is not None and self._client.ids:
                # engines asked first, so MPI_Finalize runs and Open MPI removes its /dev/shm
                # segments (a killed engine leaves one behind on every stop)
                self._client.shutdown(targets="all", hub=False, block=True)
        except Exception:
            pass
        try:
            if self._cluster is not None:
                self._cluster.stop_cluster_sync()
        except Exception:
            pass
        self._force_stop()

    def restart(self, n: int | None = None) -> "MPICluster":
        self.stop()
        if n is not None:
            self.n = int(n)
        return self.start()

    def _adopt_launchers(self) -> None:
        cluster = self._cluster
        if cluster is None or self._tree is None:
            return
        for launcher in list(getattr(cluster, "engines", {}).values()) + [getattr(cluster, "controller", None)]:
            proc = getattr(launcher, "process", None)
            pid = getattr(proc, "pid", None) or getattr(launcher, "pid", None)
            if pid:
                self._tree.adopt(pid)

    def pids(self) -> list[int]:
        """Every live process of this cluster: launchers, controller, engines and their children."""
        if self._tree is None:
            return []
        self._adopt_launchers()
        return self._tree.pids()

    def healthy(self) -> bool:
        """Running, with every engine alive and registered."""
        if not self.running:
            return False
        try:
            registered = len(self._client.ids)
        except Exception:
            return False
        return registered == self.n and all(process_tree.is_alive(p) for p in self._engine_pids)

    def _force_stop(self) -> None:
        """SIGKILL the cluster's whole tree (processes blocked in MPI ignore SIGTERM); a Slurm
        engines' job is cancelled (its processes are on other nodes)."""
        if self._cluster is not None and self.engines == "slurm":
            scheduler.cancel(scheduler.engine_job_ids(self._cluster))
        if self._tree is not None:
            self._tree.close()
        self._tree = None
        if self._cluster is not None:
            self._cluster.shutdown_atexit = False  # its processes are gone: nothing to stop at exit
        self._cluster = None
        if self._client is not None:
            try:
                self._client.close()
            except Exception:
                pass
        self._client = None
        self._engine_pids = []

    def __enter__(self) -> "MPICluster":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def __del__(self):
        try:
            self.stop()
        except Exception:
            pass

    # -- running kernels ---------------------------------------------------------------

    def run(
        self,
        kernel: str,
        options: dict | None = None,
        timeout: float | None = None,
        extra_flags: tuple = (),
        cancel=None,
    ) -> KernelOutput:
        """Compile (cached) and run a kernel on every engine; return rank 0's parsed output.

        Raises CompileError with the compiler's message, ValidationFailed when the kernel's own
        check fails, KernelFailed for bad options, and KernelTimeout (after killing the engines)
        when the call does not return within `timeout` seconds. `cancel` (a threading.Event)
        set by another thread kills the cluster's processes at once and raises RunStopped.
        """
        library = str(kernels.compile_kernel(kernel, "shared", extra_flags))
        if self._tree is not None and not self.healthy():
            print(
                f"commbook: the MPI cluster lost an engine since the last run; restarting it ({self.n} engines).",
                file=sys.stderr,
                flush=True,
            )
            self._force_stop()
        elif self._tree is None and self._ended:
            print(
                f"commbook: starting a new MPI cluster ({self.n} engines) after the last run {self._ended}.",
                file=sys.stderr,
                flush=True,
            )
        self._ended = ""
        self.start()
        timeout = self.default_timeout if timeout is None else timeout
        view = self._client[:]
        try:
            with quiet_runs.measuring():
                result = view.apply_async(_engine_call, library, options or {})
                replies = self._wait(result, timeout, cancel)
        except RunStopped:
            self._force_stop()  # the engines are inside MPI: only killing them stops the run
            self._ended = "was stopped"
            raise
        except KeyboardInterrupt:
            self._force_stop()  # the engines are inside MPI: only killing them stops the run
            self._ended = "was interrupted"
            print(
                f"commbook: {kernel} interrupted; the cluster's processes were killed and the "
                f"next run starts a new cluster.",
                file=sys.stderr,
                flush=True,
            )
            raise
        except Exception as e:
            import ipyparallel as ipp

            if isinstance(e, ipp.error.TimeoutError):
                self._force_stop()
                self._ended = "timed out"
                raise KernelTimeout(
                    f"{kernel} did not finish on {self.n} engines within {timeout:g} s; the "
                    f"engines were killed and the next run starts a new cluster."
                ) from None
            if isinstance(e, (ipp.error.EngineError, EngineDied)) or not self.healthy():
                self._force_stop()
                self._ended = "lost an engine"
                died = [l.strip() for l in str(e).splitlines() if "died" in l] or [str(e)]
                raise kernels.KernelFailed(
                    f"{kernel}: an MPI engine died during the run ({died[0]}); the cluster "
                    f"was stopped and the next run starts a new one."
                ) from None
            raise kernels.KernelFailed(f"{kernel} raised on an engine: {e}") from None
        by_rank = sorted(zip((self._ranks[eid] for eid in result.engine_id), replies))
        codes = [rc for _, (rc, _) in by_rank]
        text = by_rank[0][1][1]
        out = kernels.parse_output(text)
        return kernels.check_output(out, max(codes), name=Path(str(kernel)).stem)

    def _wait(self, result, timeout: float, cancel):
        """The run's replies; a local engine that died ends the wait at once (the hub drops a
        silent engine only after HEARTBEAT_MISSES beats, 30 s)."""
        watched = self._engine_pids if self.local else []
        deadline = time.monotonic() + timeout
        while not result.ready():
            if cancel is not None and cancel.is_set():
                raise RunStopped("stopped: the cluster's processes were killed")
            dead = [pid for pid in watched if not process_tree.is_alive(pid)]
            if dead:
                raise EngineDied(f"engine process {dead[0]} died")
            result.wait(min(0.25, max(0.0, deadline - time.monotonic())))
            if time.monotonic() >= deadline and not result.ready():
                return result.get(timeout=0)  # raises ipyparallel's TimeoutError
        return result.get()

    def sweep(
        self,
        kernel: str,
        values: list,
        option: str,
        options: dict | None = None,
        timeout: float | None = None,
        label: str = "",
    ) -> list[KernelOutput]:
        """Run a kernel once per value of one option, with a text progress bar."""
        outs, bar = [], _ProgressBar(len(values), label or f"{kernel} {option}")
        for i, v in enumerate(values):
            outs.append(self.run(kernel, {**(options or {}), option: v}, timeout))
            bar.update(i + 1, v)
        return outs


class _ProgressBar:
    """tqdm's bar, one line updated in place: in Jupyter through a display handle (so the
    executed notebook keeps the last state only, not tqdm's stream of carriage returns and not
    a widget the static HTML cannot show), on stderr elsewhere."""

    def __init__(self, total: int, label: str):
        from tqdm import tqdm

        self.handle = None
        try:
            from IPython import get_ipython

            if get_ipython() is not None:
                from IPython.display import display

                self.handle = display({"text/plain": ""}, display_id=True, raw=True)
        except ImportError:
            pass
        self.bar = tqdm(
            total=total,
            desc=label,
            file=self if self.handle else sys.stderr,
            ascii=True,
            dynamic_ncols=False,
            ncols=100,
            mininterval=0,
        )

    def write(self, text: str) -> None:
        line = text.replace("\x1b[A", "").strip("\r\n")  # tqdm's cursor-up, then line ends
        if line:  # text/plain as it is: a str would be shown with quotes (its repr)
            self.handle.update({"text/plain": line}, raw=True)

    def flush(self) -> None:
        pass

    def update(self, done: int, value="") -> None:
        self.bar.set_postfix_str(f"last: {str(value)[:24]}" if value != "" else "", refresh=False)
        self.bar.update(done - self.bar.n)
        if done >= self.bar.total:
            self.bar.close()


def leftover_processes() -> list[str]:
    """Command lines of ipyparallel/MPI processes still running (for tests and doctor)."""
    keys = (
        "ipengine",
        "ipcontroller",
        "ipyparallel.engine",
        "ipyparallel.controller",
        "hydra_pmi_proxy",
        "prterun",
        "prted",
        "mpiexec",
    )
    found = []
    for p in psutil.process_iter(["pid", "cmdline"]):
        line = " ".join(p.info["cmdline"] or [])
        if p.info["pid"] != os.getpid() and any(k in line for k in keys):
            found.append(f"{p.info['pid']} {line}")
    return found
