"""The nodes themselves: one network, UTS and IPC namespace per node, veths on a bridge.

Layout (addresses exist only inside these namespaces; nothing reaches the machine's own network):

* ``login``: the bridge ``br0`` (10.231.0.254/24), where slurmctld and the user's commands run;
* ``node1``..``nodeN``: own hostname, own System V IPC (UCX and shared-memory transports see
  separate machines), ``eth0`` 10.231.0.K/24, the other end of its veth on the bridge; an
  optional ``tc tbf`` cap on eth0's egress;
* one shared mount namespace, made last, only to bind-mount a generated ``/etc/hosts`` that names
  every node (made first, its copy of the mount table would miss the namespace files).

Every step is recorded (commbook.nodes.state) before or as it happens; :func:`remove` undoes
exactly what the record lists.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

from .state import NodesError, Record

SUBNET = "10.231.0"  # private, and only inside the cluster's own namespaces
LOGIN_ADDRESS = f"{SUBNET}.254"
NETNS_DIR = Path("/run/netns")
TOOLS = ("ip", "tc", "nsenter", "unshare", "mount", "umount", "hostname")
MAX_NODES = 8

_RATE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(k|m|g|t)?(bit|bps)\s*$", re.I)
_RATE_UNITS = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}


def parse_rate(text: str) -> float:
    """'1gbit' -> 1e9 bits per second ('100mbit', '2.5gbit', '800mbps' = megabytes/s), as tc reads it."""
    m = _RATE.match(text or "")
    if not m:
        raise NodesError(
            f"--rate {text!r} is not a rate: use a number with kbit, mbit, gbit "
            f"(bits per second) or kbps, mbps, gbps (bytes per second), e.g. 1gbit"
        )
    value = float(m.group(1)) * _RATE_UNITS[(m.group(2) or "").lower()]
    value *= 8 if m.group(3).lower() == "bps" else 1
    if not 1e5 <= value <= 1e12:
        raise NodesError(f"--rate {text!r} is outside 100kbit..1tbit")
    return value


def tbf_burst_bytes(rate_bits: float) -> int:
    """The token bucket's size: 2 ms of traffic (256 KB at 1 Gbit/s measured the cap right;
    a bucket larger than a message lets each direction refill while the other one sends and
    inflates a ping-pong), at least 16 KiB (one jumbo frame and the kernel's HZ granularity)."""
    return max(16384, int(rate_bits / 8 * 0.002))


def missing_tools() -> list[str]:
    return [t for t in TOOLS if shutil.which(t) is None]


def run(args: list[str], what: str, stdin: str | None = None, timeout: float = 20) -> str:
    proc = subprocess.run(args, input=stdin, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        said = (proc.stderr or proc.stdout).strip().splitlines() or [f"exit {proc.returncode}"]
        raise NodesError(f"{what} failed: {said[-1]}")
    return proc.stdout


def enter_command(record: Record, node: str, mount: bool = True, wd: str | None = None) -> list[str]:
    """nsenter arguments that run a command "on" node (its network, hostname and IPC)."""
    f = record.node_files(node)
    args = ["nsenter", f"--net={f['net']}", f"--uts={f['uts']}", f"--ipc={f['ipc']}"]
    # --wdns: the working directory looked up inside the cluster's mount namespace; --wd keeps
    # the caller's, and renaming a file given by absolute path into it fails (EXDEV)
    if mount and os.path.exists(f["mnt"]):
        args += [f"--mount={f['mnt']}", f"--wdns={wd or os.getcwd()}"]
    else:
        args.append(f"--wd={wd or os.getcwd()}")
    return args + ["--"]


def build(record: Record, n: int, rate: str, save) -> None:
    """Create the login namespace and nodes node1..nodeN; save(record) after every step."""
    run_dir = Path(record.run_dir)
    ns_dir = run_dir / "ns"
    ns_dir.mkdir(mode=0o755)
    record.dirs.append(str(ns_dir))
    record.nodes = [f"node{k}" for k in range(1, n + 1)]
    names = [record.login] + record.nodes
    if not NETNS_DIR.exists():
        record.empty_dirs.append(str(NETNS_DIR))  # made by `ip netns add`: removed when empty
    record.netns = [record.netns_name(x) for x in names]
    save(record)
    run(
        ["ip", "-batch", "-"],
        "creating the network namespaces",
        stdin="".join(f"netns add {x}\n" for x in record.netns),
    )
    record.ns_inodes = [os.stat(NETNS_DIR / x).st_ino for x in record.netns]
    for name in names:
        f = record.node_files(name)
        for kind in ("uts", "ipc"):
            Path(f[kind]).touch()
            record.ns_files.append(f[kind])
        save(record)
        run(
            ["unshare", f"--uts={f['uts']}", f"--ipc={f['ipc']}", "hostname", name],
            f"creating the hostname and IPC namespaces of {name}",
        )
    login = record.netns_name(record.login)
    run(
        ["ip", "-n", login, "-batch", "-"],
        "creating the bridge",
        stdin=(f"link set lo up\nlink add br0 type bridge\naddr add {LOGIN_ADDRESS}/24 dev br0\nlink set br0 up\n"),
    )
    for k, node in enumerate(record.nodes, start=1):
        run(
            ["ip", "-n", record.netns_name(node), "-batch", "-"],
            f"linking {node}",
            stdin=(
                f"link set lo up\nlink add eth0 type veth peer name veth{k} netns {login}\n"
                f"addr add {SUBNET}.{k}/24 dev eth0\nlink set eth0 up\n"
            ),
        )
    run(
        ["ip", "-n", login, "-batch", "-"],
        "attaching the nodes to the bridge",
        stdin="".join(f"link set veth{k} master br0\nlink set veth{k} up\n" for k in range(1, n + 1)),
    )
    if rate:
        bits = parse_rate(rate)
        for node in record.nodes:
            run(
                [
                    "tc",
                    "-n",
                    record.netns_name(node),
                    "qdisc",
                    "add",
                    "dev",
                    "eth0",
                    "root",
                    "tbf",
                    "rate",
                    f"{int(bits)}bit",
                    "burst",
                    str(tbf_burst_bytes(bits)),
                    "latency",
                    "50ms",
                ],
                f"capping {node}'s link at {rate}",
            )
    hosts = run_dir / "hosts"
    hosts.write_text(
        f"127.0.0.1 localhost\n{LOGIN_ADDRESS} {record.login}\n"
        + "".join(f"{SUBNET}.{k} {node}\n" for k, node in enumerate(record.nodes, start=1))
    )
    record.files.append(str(hosts))
    mnt = record.node_files(record.login)["mnt"]
    Path(mnt).touch()
    record.ns_files.insert(0, mnt)  # unmounted first: it holds copies of the other mounts
    save(record)
    run(
        ["unshare", f"--mount={mnt}", "--propagation", "private", "mount", "--bind", str(hosts), "/etc/hosts"],
        "creating the mount namespace with the nodes' /etc/hosts",
    )


def address(record: Record, node: str) -> str:
    return LOGIN_ADDRESS if node == record.login else f"{SUBNET}.{record.nodes.index(node) + 1}"


# -- removal -------------------------------------------------------------------------------


def _net_inode(pid: str) -> int | None:
    try:
        link = os.readlink(f"/proc/{pid}/ns/net")
    except OSError:
        return None
    m = re.match(r"net:\[(\d+)\]", link)
    return int(m.group(1)) if m else None


def processes_inside(inodes) -> list[int]:
    """Pids of the processes living in any of these network namespaces."""
    wanted, me = set(inodes), os.getpid()
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != me and _net_inode(p) in wanted]


# How long the commands running on the nodes get, after SIGTERM, to stop on their own (a
# `commbook measure` writes the rows it has measured) before SIGKILL.
GRACE_SECONDS = 5.0


def terminate_inside(record: Record, grace: float = GRACE_SECONDS) -> list[int]:
    """SIGTERM every process in the cluster's network namespaces but its own daemons (they are
    stopped after), and wait up to grace seconds for them to end; return those still there.

    A user's command on the nodes is told to stop, as a shell's exit or a scheduler's time
    limit tells it, instead of dying at once of SIGKILL with whatever it had not yet saved."""
    if not record.ns_inodes:
        return []
    daemons = {pid for pid, _ in record.daemons.values()}
    told = [pid for pid in processes_inside(record.ns_inodes) if pid not in daemons]
    for pid in told:
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass
    deadline = time.monotonic() + grace
    while told and time.monotonic() < deadline:
        time.sleep(0.05)
        alive = set(processes_inside(record.ns_inodes))
        told = [pid for pid in told if pid in alive and not _zombie(pid)]
    return told


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] == "Z"
    except OSError:
        return True


def kill_inside(record: Record, timeout: float = 3.0) -> list[int]:
    """SIGKILL every process in the cluster's network namespaces (daemons, job steps, ranks);
    return those still there after timeout."""
    deadline = time.monotonic() + timeout
    while True:
        pids = processes_inside(record.ns_inodes) if record.ns_inodes else []
        if not pids or time.monotonic() > deadline:
            return pids
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.05)


def remove(record: Record) -> list[str]:
    """Undo what the record lists; return what could not be removed (empty when all went)."""
    left = []
    stuck = kill_inside(record)
    if stuck:
        left.append(f"processes {stuck} in the nodes' namespaces")
    for f in record.ns_files:  # the mount namespace file first (see build)
        if os.path.ismount(f):
            subprocess.run(["umount", f], capture_output=True)
    for f in record.ns_files:
        if os.path.ismount(f):
            left.append(f"mount {f}")
            continue
        Path(f).unlink(missing_ok=True)
    present = [x for x in record.netns if (NETNS_DIR / x).exists()]
    if present:
        subprocess.run(
            ["ip", "-force", "-batch", "-"],
            input="".join(f"netns del {x}\n" for x in present),
            capture_output=True,
            text=True,
        )
        left += [f"network namespace {x}" for x in present if (NETNS_DIR / x).exists()]
    for f in record.files:
        try:
            Path(f).unlink(missing_ok=True)
        except OSError as e:
            left.append(f"{f} ({e.strerror})")
    for d in sorted(record.dirs, key=lambda p: p.count("/"), reverse=True):
        path = Path(d)
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)  # a folder the cluster made, by its name
        if path.exists():
            left.append(str(path))
    for d in record.empty_dirs:
        if Path(d) == NETNS_DIR:
            _remove_netns_dir()
        else:
            try:
                Path(d).rmdir()
            except OSError:
                pass  # not empty: another cluster's, or the user's
    return left


def _remove_netns_dir() -> None:
    """/run/netns, made by `ip netns add` for this cluster: removed when no namespace is left
    in it (another cluster may have added its own meanwhile)."""
    try:
        if any(NETNS_DIR.iterdir()):
            return
    except FileNotFoundError:
        return
    while os.path.ismount(NETNS_DIR):  # ip bind-mounts the folder onto itself to share it
        if subprocess.run(["umount", str(NETNS_DIR)], capture_output=True).returncode != 0:
            break
    try:
        NETNS_DIR.rmdir()
    except OSError:
        pass
