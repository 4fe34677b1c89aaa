"""Compile a kernel with ``smpicc`` and run it with ``smpirun`` on a generated platform.

The kernel is the book's own C source, built standalone with ``-DCB_SIMULATED`` (the switch for
what SMPI lacks: MPI_T, the alarm watchdog). Its output is read by commbook.kernels' parser and
checked the same way (a failed self-check raises ValidationFailed); rows come out in the tidy
schema with the MPI named "SMPI <version>", the machine "simulated <platform> <n> nodes", and the
platform, calibration and placement in ``params``. A run is cached by the kernel's build
fingerprint, the platform XML, the hostfile, the SMPI options and the kernel's arguments: the
simulation is deterministic, so the cached text is what a new run would print.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .. import config, kernels
from ..process_tree import ProcessTree, install_signal_handlers
from . import calibration
from .platforms import Platform

FLAGS = ["-O2", "-DCB_STANDALONE", "-DCB_SIMULATED"]
BASE_OPTIONS = [
    "--log=root.thres:warning",  # SimGrid's INFO lines say nothing a reader needs
    "--cfg=smpi/simulate-computation:no",  # communication only: this machine's CPU time is not ORFEO's
]
DEFAULT_TIMEOUT = 300.0
UNCHECKED = "NOT CHECKED"  # a timing-only run's result line (jacobi3d --sim-fold 1)


@dataclass(frozen=True)
class SMPIStatus:
    smpirun: str | None
    smpicc: str | None
    version: str  # "3.32", "" when absent

    @property
    def ok(self) -> bool:
        return bool(self.smpirun and self.smpicc and self.version)

    @property
    def library(self) -> str:
        return f"SMPI {self.version}"

    def line(self) -> str:
        if self.ok:
            return f"smpirun {self.smpirun} (SimGrid {self.version})"
        return "smpirun/smpicc not found (apt-get install libsimgrid-dev)"


@functools.lru_cache(maxsize=1)
def status() -> SMPIStatus:
    """Is SimGrid's SMPI here (smpirun, smpicc), and which version? For `commbook doctor`."""
    run, cc = shutil.which("smpirun"), shutil.which("smpicc")
    version = ""
    if run:
        try:
            text = subprocess.run([run, "-version"], capture_output=True, text=True, timeout=30).stdout
            m = re.search(r"SimGrid version (\d+(?:\.\d+)+)", text)
            version = m.group(1) if m else ""
        except (OSError, subprocess.TimeoutExpired):
            version = ""
    return SMPIStatus(run, cc, version)


def require() -> SMPIStatus:
    st = status()
    if not st.ok:
        raise kernels.KernelError("SimGrid's SMPI is not installed: " + st.line())
    return st


def cache_dir() -> Path:
    """Builds and results under the build cache: <build>/smpi-<version>/."""
    d = config.build_cache() / f"smpi-{require().version}"
    (d / "results").mkdir(parents=True, exist_ok=True)
    return d


def compile_smpi(kernel: str | os.PathLike) -> Path:
    """smpicc the standalone kernel (cached by source, headers, flags); a failed build raises
    CompileError with smpicc's own message."""
    st = require()
    sources, flags, out = _build(kernel)
    if out.exists():
        return out
    return kernels.build_atomically([st.smpicc, *flags, *map(str, sources)], out, "smpicc", sources[0].name)


def _build(kernel):
    """The kernel's sources, smpicc's flags and the executable's cached path (built or not)."""
    sources = kernels.c_sources(kernel)  # the kernel and the shared .c it links (collectives_algos.c)
    src = sources[0]
    flags = FLAGS + [f"-I{d}" for d in kernels.include_dirs(src)]
    tag = kernels._fingerprint(sources, flags, f"smpicc {require().version}")
    return sources, flags, cache_dir() / f"{src.stem}-{tag}"


@dataclass
class SimulatedRun:
    """One simulated run: the kernel's output, where and how it ran, and whether it is live."""

    output: kernels.KernelOutput
    platform: str
    nodes: int
    np: int
    map_by: str
    transport: str
    calibration: str  # file@sha
    library: str  # SMPI 3.32
    command: str
    cached: bool = False
    reference: str = ""  # the shipped file it came from when SMPI is absent
    wall_s: float = 0.0
    extra: dict = field(default_factory=dict)

    @property
    def machine(self) -> str:
        return f"simulated {self.platform} {self.nodes} node{'s' if self.nodes != 1 else ''}"

    def tidy(self):
        """The run's rows in the tidy schema, labelled simulated."""
        from ..data import dict_to_params, params_to_dict

        self.output.meta["mpi_library"] = self.library
        src = f"simulated with {self.library}, map-by {self.map_by}, {self.transport} calibration" + (
            f" (shipped reference {self.reference})" if self.reference else " (commbook.simulate)"
        )
        df = self.output.to_tidy(machine=self.machine, mapping=self.map_by, transport=self.transport, source=src)
        tags = {"simulated": "1", "platform": f"{self.platform}:{self.nodes}", "calibration": self.calibration}
        df["params"] = [dict_to_params({**params_to_dict(p), **tags}) for p in df.params]
        return df


def calibration_id(path: Path | None = None) -> str:
    path = Path(path) if path else calibration.calibration_path()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    rel = path.relative_to(config.data_dir().parent) if path.is_relative_to(config.data_dir().parent) else path
    return f"{rel}@{digest}"


def _kernel_lines(stdout: str, exe: Path) -> str:
    """The kernel's output without what smpirun adds on a failure (its command line, its verdict)."""
    said = (str(exe), "Execution failed with code")
    return "".join(line for line in stdout.splitlines(keepends=True) if not line.startswith(said))


# SimGrid's own fatal error: "[0.000000] ./src/x.cpp:179: [root/CRITICAL] Model 'Bogus' is invalid!"
_SIMGRID_CRITICAL = re.compile(r"\[[\w.]+/CRITICAL\] (?P<said>.+)$")


def simgrid_error(stderr: str) -> str:
    """SimGrid's first fatal message in stderr ('' when it said none), without its backtrace."""
    for line in stderr.splitlines():
        m = _SIMGRID_CRITICAL.search(line)
        if m and not m["said"].startswith("Current backtrace"):
            return m["said"].strip()
    return ""


def _check(out, returncode: int, stderr: str, name: str, unchecked: bool):
    """The kernel's output, or the error check_output raises; with `unchecked`, a timing-only
    run that says NOT CHECKED (and exited 0) is accepted as what it is."""
    if unchecked and returncode == 0 and out.result.startswith(UNCHECKED):
        return out
    return kernels.check_output(out, returncode, stderr, name)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def _planned(kernel, platform: Platform, np: int, map_by: str, options: dict | None, smpi_options: tuple):
    """Where a run's output is cached, smpirun's options, the kernel's arguments, the run's labels."""
    hostfile = platform.hostfile(int(np), map_by)
    cal = calibration.transport_parameters(platform.transport)
    cfg = BASE_OPTIONS + calibration.smpi_options(cal) + list(smpi_options)
    args = kernels.kernel_args(options)
    name = Path(str(kernel)).stem
    shown = (
        f"smpirun -np {np} -platform {platform.name}.xml -hostfile ({map_by}) {' '.join(cfg)} {name} {' '.join(args)}"
    )
    exe = _build(kernel)[2]
    key = hashlib.sha256("\0".join([exe.name, platform.xml, hostfile, *cfg, *args, str(np)]).encode()).hexdigest()[:24]
    meta = dict(
        platform=platform.name,
        nodes=platform.nodes,
        np=int(np),
        map_by=map_by,
        transport=platform.transport,
        calibration=calibration_id(),
        library=require().library,
        command=shown.strip(),
    )
    return cache_dir() / "results" / f"{name}-{key}.out", cfg, args, meta


def cached_run(
    kernel: str | os.PathLike,
    platform: Platform,
    np: int,
    map_by: str = "core",
    options: dict | None = None,
    smpi_options: tuple = (),
    unchecked: bool = False,
) -> SimulatedRun | None:
    """The run `run` would return from its cache, or None when it would have to simulate (so a
    page can use a live simulation only when it costs nothing). Needs SMPI (KernelError)."""
    cached, _, _, meta = _planned(kernel, platform, np, map_by, options, smpi_options)
    if not cached.exists():
        return None
    name = Path(str(kernel)).stem
    out = _check(kernels.parse_output(cached.read_text()), 0, "", name, unchecked)
    return SimulatedRun(out, cached=True, **meta)


def is_cached(
    kernel: str | os.PathLike, platform: Platform, np: int, map_by: str = "core", options: dict | None = None
) -> bool:
    """Has this machine simulated this run already (same kernel build, platform, calibration,
    arguments)? Then ``run`` returns it at once; a page can draw it instead of a shipped run."""
    return _planned(kernel, platform, np, map_by, options, ())[0].exists()


def run(
    kernel: str | os.PathLike,
    platform: Platform,
    np: int,
    map_by: str = "core",
    options: dict | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    smpi_options: tuple = (),
    use_cache: bool = True,
    cached_only: bool = False,
    unchecked: bool = False,
) -> SimulatedRun | None:
    """Simulate `kernel` with np ranks placed by map_by on `platform`; the kernel validates its
    own answer (ValidationFailed otherwise); a run longer than `timeout` seconds of wall time is
    killed with its whole process group (KernelTimeout). cached_only: the cached run or None,
    nothing built or simulated (what a page uses for runs too slow to make while it builds).
    unchecked: accept a timing-only run whose result line says NOT CHECKED (see _check)."""
    st = require()
    hostfile = platform.hostfile(int(np), map_by)  # refuses too many ranks before building
    cached, cfg, args, meta = _planned(kernel, platform, np, map_by, options, smpi_options)
    name = Path(str(kernel)).stem
    if use_cache and (hit := cached_run(kernel, platform, np, map_by, options, smpi_options, unchecked)) is not None:
        return hit
    if cached_only:
        return None
    exe = compile_smpi(kernel)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="commbook-smpi-") as tmp:
        xml, hosts = Path(tmp) / f"{platform.name}.xml", Path(tmp) / "hostfile"
        xml.write_text(platform.xml)
        hosts.write_text(hostfile)
        cmd = [st.smpirun, "-np", str(np), "-platform", str(xml), "-hostfile", str(hosts), *cfg, str(exe), *args]
        tree = ProcessTree(exe.name)  # smpirun and smpimain, killed however this run ends
        install_signal_handlers()
        env = {**os.environ, "TMPDIR": tmp, **tree.env()}  # TMPDIR: smpirun's privatised copies
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=tmp, env=env
        )
        deadline = time.monotonic() + timeout
        try:
            tree.adopt(proc.pid)
            while True:
                try:
                    text, stderr = proc.communicate(timeout=max(0.01, min(0.5, deadline - time.monotonic())))
                    break
                except subprocess.TimeoutExpired:
                    if time.monotonic() >= deadline:
                        tree.kill()
                        proc.kill()
                        proc.communicate()
                        raise kernels.KernelTimeout(
                            f"simulated {name} with {np} ranks on {platform.label()} did not finish in "
                            f"{timeout:g} s and was killed"
                        ) from None
                    tree.snapshot()
        finally:
            tree.close()
            if proc.poll() is None:
                _kill_group(proc)
    text = _kernel_lines(text, exe)
    said = simgrid_error(stderr) if proc.returncode != 0 and "commbook kernel:" not in stderr else ""
    if said:  # the simulator stopped, not the kernel: its one line, not its backtrace
        raise kernels.KernelFailed(
            f"simulated {name} with {np} ranks on {platform.label()}: SimGrid stopped (exit {proc.returncode}): {said}",
            None,
            stderr,
        )
    try:
        out = kernels.parse_output(text)
    except kernels.KernelError as e:
        raise kernels.KernelFailed(f"{e}\n--- stderr ---\n{stderr[-2000:]}", None, stderr) from None
    out = _check(out, proc.returncode, stderr, name, unchecked)
    if use_cache:
        from ..data import atomic_write_text

        atomic_write_text(cached, text)
    return SimulatedRun(out, wall_s=time.monotonic() - started, **meta)
