"""Up, down, status: an emulated cluster is owned by one small process, its keeper.

``up`` starts the keeper (``python -m commbook.nodes keep ...``, in its own session)
and waits for its one line, ``ready`` or ``error ...``. The keeper builds the nodes, recording
every step, then waits; SIGTERM, SIGINT or SIGHUP (``down``, a Ctrl-C) make it remove everything
it recorded, the commands running on the nodes first (SIGTERM, then SIGKILL after
``netns.GRACE_SECONDS``: a `commbook measure` keeps its rows). For the endings no handler sees (SIGKILL, the out-of-memory killer), the keeper has
a watchdog in its own session that waits on a pipe only the keeper holds, as
:mod:`commbook.process_tree`'s watchdogs do, and removes what the record lists when the pipe
closes without a word. With ``hold`` (the Python API: tests, the book) the keeper also ends when
its owner closes the keeper's stdin, that is, when the owner ends however it ends.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import psutil

from .. import config, process_tree
from . import launch, netns, slurm, state
from .state import NodesError, Record

READY, ERROR = "ready", "error"


def base_dir() -> Path:
    """$COMMBOOK_NODES_DIR, else /run/commbook-nodes (root) or ~/.cache/commbook/nodes."""
    chosen = config.get("COMMBOOK_NODES_DIR")
    if chosen:
        return Path(chosen).expanduser()
    return Path("/run/commbook-nodes") if os.geteuid() == 0 else Path("~/.cache/commbook/nodes").expanduser()


def mode_available() -> str:
    """'root' or 'userns', or raise NodesError naming what is missing (one line)."""
    gone = netns.missing_tools()
    if gone:
        raise NodesError(
            f"emulated nodes need {', '.join(gone)} (Debian: apt-get install iproute2 util-linux mount hostname)"
        )
    if os.geteuid() == 0:
        return "root"
    probe = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--net", "--uts", "--ipc", "--mount", "true"],
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        said = (probe.stderr.strip().splitlines() or ["no message"])[-1]
        raise NodesError(
            f"emulated nodes need root or user namespaces, and this kernel refuses "
            f"an unprivileged user namespace ({said}; see "
            f"/proc/sys/user/max_user_namespaces)"
        )
    return "userns"


def stopping_here(base: Path | None = None) -> bool:
    """Whether this process runs on an emulated cluster that is being removed (`down`, or its
    keeper ended): what a command told to stop says instead of a bare "Terminated"."""
    try:
        here = os.stat("/proc/self/ns/net").st_ino
        base = Path(base or base_dir())
        record = state.current(base) if base.exists() else None
    except (OSError, NodesError):
        return False
    return record is not None and record.phase == "stopping" and here in record.ns_inodes


def keeper_alive(record: Record) -> bool:
    try:
        p = psutil.Process(record.keeper_pid)
        return abs(p.create_time() - record.keeper_started) < 0.01 and process_tree.is_alive(p)
    except psutil.Error:
        return False


# -- the owner's side ----------------------------------------------------------------------


def up(
    nodes: int,
    rate: str = "",
    with_slurm: bool = False,
    base: Path | None = None,
    hold: bool = False,
    timeout: float = 60,
) -> tuple[Record, subprocess.Popen]:
    """Bring up an emulated cluster; return its record and the keeper process.

    hold: the keeper ends (and removes the cluster) when the caller's process ends."""
    if not 2 <= int(nodes) <= netns.MAX_NODES:
        raise NodesError(f"--nodes {nodes}: an emulated cluster has 2 to {netns.MAX_NODES} nodes")
    if rate:
        netns.parse_rate(rate)
    mode = mode_available()
    if with_slurm and mode != "root":
        raise NodesError(
            "--slurm needs root (slurmd starts jobs as their user); without root "
            "the nodes run Open MPI through the launch agent only"
        )
    if with_slurm and slurm.missing():
        raise NodesError(
            f"--slurm needs Slurm: {', '.join(slurm.missing())} missing (apt-get "
            f"install slurmctld slurmd slurm-client munge libpmix-dev)"
        )
    base = Path(base or base_dir())
    existing = state.current(base) if base.exists() else None
    if existing is not None:
        if keeper_alive(existing):
            raise NodesError(
                f"an emulated cluster is already up ({len(existing.nodes)} nodes, "
                f"{existing.run_dir}): `commbook nodes down` first"
            )
        netns.remove(existing)  # its keeper and watchdog are gone: finish their work
        state.set_current(base, None)
    args = [
        sys.executable,
        "-m",
        "commbook.nodes",
        "keep",
        str(base),
        str(int(nodes)),
        rate or "-",
        "slurm" if with_slurm else "-",
        "hold" if hold else "-",
    ]
    if mode == "userns":
        args = ["unshare", "--user", "--map-root-user", "--net", "--mount", "--propagation", "private"] + args
    t0 = time.perf_counter()
    keeper = subprocess.Popen(
        args,
        stdin=subprocess.PIPE if hold else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        line = _read_line(keeper, timeout)
    except BaseException:  # Ctrl-C or a timeout during up: the keeper removes what it made
        stop_keeper(keeper)
        raise
    if not line.startswith(READY):
        stop_keeper(keeper)
        raise NodesError(line.partition(" ")[2] or f"the cluster's keeper exited ({keeper.returncode}) without a word")
    record = state.load(Path(line.split(" ", 1)[1]) / state.STATE_FILE)
    record.up_seconds = time.perf_counter() - t0
    return record, keeper


def _read_line(keeper: subprocess.Popen, timeout: float) -> str:
    box = []
    reader = threading.Thread(target=lambda: box.append(keeper.stdout.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    if reader.is_alive():
        raise NodesError(f"the emulated cluster was not up within {timeout:g} s; it was removed")
    return box[0].strip() if box else ""


def stop_keeper(keeper: subprocess.Popen, timeout: float = 20) -> None:
    if keeper.poll() is None:
        keeper.send_signal(signal.SIGTERM)
        try:
            keeper.wait(timeout)
        except subprocess.TimeoutExpired:
            keeper.kill()
            keeper.wait()


def down(base: Path | None = None, timeout: float = 20) -> tuple[Record, list[str]]:
    """Stop the cluster recorded in base; return its record and whatever could not be removed."""
    base = Path(base or base_dir())
    record = state.current(base) if base.exists() else None
    if record is None:
        raise NodesError(f"no emulated cluster is up (nothing recorded in {base})")
    left: list[str] = []
    if keeper_alive(record):
        os.kill(record.keeper_pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while keeper_alive(record) and time.monotonic() < deadline:
            time.sleep(0.02)
    if Path(record.run_dir).exists():  # a killed keeper whose watchdog did not run
        left = netns.remove(record)
    state.set_current(base, None)
    _remove_base_if_empty(base)
    return record, left


def _remove_base_if_empty(base: Path) -> None:
    try:
        base.rmdir()
    except OSError:
        pass


def status(base: Path | None = None) -> tuple[Record | None, list[str]]:
    """The recorded cluster (None) and its problems, one line each."""
    base = Path(base or base_dir())
    record = state.current(base) if base.exists() else None
    if record is None:
        return None, []
    problems = []
    if not keeper_alive(record):
        problems.append(f"its keeper (pid {record.keeper_pid}) is gone; `commbook nodes down` removes what is left")
    for name in slurm.dead_daemons(record):
        problems.append(
            f"{name} is not running (see {slurm.log_of(record, name)}); `commbook nodes down` then `up` again"
        )
    return record, problems


# -- the keeper ----------------------------------------------------------------------------


class _Stop(Exception):
    pass


def keep(base: Path, nodes: int, rate: str, with_slurm: bool, hold: bool) -> int:
    """The keeper's life: build, say ready, wait, remove everything."""
    stop = threading.Event()

    def on_signal(signum, frame):
        stop.set()
        if not ready.is_set():
            raise _Stop()

    ready = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, on_signal)
    mode = "root"
    if os.geteuid() == 0 and _in_user_namespace():
        mode = "userns"
        _private_netns_dir()
    base.mkdir(parents=True, exist_ok=True)
    cid = uuid.uuid4().hex[:8]
    run_dir = base / cid
    run_dir.mkdir(mode=0o755)
    record = Record(
        cluster_id=cid,
        run_dir=str(run_dir),
        mode=mode,
        rate=rate,
        slurm=with_slurm,
        keeper_pid=os.getpid(),
        keeper_started=psutil.Process().create_time(),
        created=time.time(),
    )
    record.dirs.append(str(run_dir))
    tree = process_tree.ProcessTree("emulated nodes", watchdog=False)
    record.marker = tree.marker
    log = open(run_dir / "keeper.log", "a")
    os.dup2(log.fileno(), 2)
    state.save(record)
    dog = subprocess.Popen(
        [sys.executable, "-m", "commbook.nodes", "watch", str(record.path), str(base)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )
    state.set_current(base, run_dir)
    said = ""
    try:
        netns.build(record, nodes, rate, state.save)
        launch.write(record)
        state.save(record)
        if with_slurm:
            env = {**os.environ, **tree.env(), **launch.environment(record)}
            slurm.start(record, state.save, env)
        record.phase = "up"
        state.save(record)
        ready.set()
        _say(f"{READY} {run_dir}")
        if hold:
            threading.Thread(target=_wait_for_eof, args=(stop,), daemon=True).start()
        while not stop.wait(0.5):
            pass
    except _Stop:
        said = f"{ERROR} interrupted while the nodes were being made; everything made was removed"
    except NodesError as e:
        said = f"{ERROR} {e}"
    except Exception as e:  # one line to the owner, whatever it was
        said = f"{ERROR} {type(e).__name__}: {e}"
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)  # removal is not interrupted halfway
        record.phase = "stopping"
        state.save(record)
        netns.terminate_inside(record)  # the user's commands first, politely (SIGTERM)
        tree.kill(wait=3)
        left = netns.remove(record)
        try:
            if state.current(base) is None or Path(state.current(base).run_dir) == run_dir:
                state.set_current(base, None)
        except NodesError:
            state.set_current(base, None)
        _remove_base_if_empty(base)
        dog.stdin.write(b"done\n")
        dog.stdin.close()
    if said and not ready.is_set():
        if left:
            said += f" (left behind: {'; '.join(left)})"
        _say(said)
    elif left:
        print(f"commbook nodes: could not remove: {'; '.join(left)}", file=sys.stderr)
    return 1 if said or left else 0


def _say(line: str) -> None:
    try:
        print(line, flush=True)
    except (BrokenPipeError, OSError):  # the owner stopped listening (it was interrupted)
        pass


def _wait_for_eof(stop: threading.Event) -> None:
    try:
        sys.stdin.read()
    except (OSError, ValueError):
        pass
    stop.set()


def _in_user_namespace() -> bool:
    try:
        return Path("/proc/self/uid_map").read_text().split()[:3] != ["0", "0", "4294967295"]
    except OSError:
        return False


def _private_netns_dir() -> None:
    """Rootless: a tmpfs of our own on /run/netns (or /run) inside the private mount namespace."""
    target = "/run/netns" if netns.NETNS_DIR.exists() else "/run"
    netns.run(["mount", "-t", "tmpfs", "-o", "mode=755", "tmpfs", target], "mounting a private /run/netns")
    netns.NETNS_DIR.mkdir(exist_ok=True)


def watch(state_path: Path, base: Path) -> None:
    """The keeper's watchdog: when the keeper's pipe closes without "done", remove the cluster."""
    try:
        said = sys.stdin.buffer.read()
    except (OSError, KeyboardInterrupt):
        said = b""
    if b"done" in said:
        return
    try:
        record = state.load(state_path)
    except (FileNotFoundError, NodesError):
        return
    record.phase = "stopping"  # what a command on the nodes told to stop reads (stopping_here)
    try:
        state.save(record)
    except OSError:
        pass
    netns.terminate_inside(record)
    orphans = process_tree.ProcessTree("orphans", watchdog=False)
    orphans.marker = record.marker
    orphans.kill(wait=3)
    netns.remove(record)
    try:
        if state.current(base) is None:
            _remove_base_if_empty(base)
        elif Path(state.current(base).run_dir) == Path(record.run_dir):
            state.set_current(base, None)
            _remove_base_if_empty(base)
    except NodesError:
        pass
