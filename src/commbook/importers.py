"""Import benchmark output (IMB, OSU, student CSVs, the course Jacobi code) into the tidy schema.

One entry point, :func:`import_file`: it reads the file, detects its format (or takes the one
given), parses it and returns a tidy table (``commbook.data`` schema). Whatever a file's text
does not say (which benchmark, which mapping, how many processes) comes from ``hints``: the
command line and host names printed in the file, the file name, and explicit hints from the
caller (the ORFEO catalog, or ``commbook import --benchmark ...``). Explicit hints win over
what the rows say, so a catalog can correct a known wrong label.

A file that cannot be imported raises :class:`Refused` (a ``DataFormatError``): one line naming
the file, the line and what is wrong. Unexpected errors are turned into a Refused saying
"internal error", so a directory import never stops on a traceback.

Formats (``FORMATS``):

    imb          IMB-MPI1 output: the standard text, and csv/tab/; copies of its tables
                 (R exports, decimal commas, several runs concatenated, model columns added)
    osu          OSU micro-benchmark text output (latency, bw, collectives), several blocks,
                 student marker lines between them ("Testing with cores: 0 and 4")
    table        CSV with a header row: long, short and wide collective tables, latency
                 tables, ring/matrix/Jacobi summaries
    values       one number per line; the process counts come from hints (np_start, np_step)
    jacobi       stdout of the course Jacobi code (Maxtime, Mintime, ..., MLUPs lines)
    rank-times   headerless ``rank,time`` lines, one block per process count 1, 2, 3, ...
    pairs        headerless ``np,seconds`` lines (repeats are summarised)
    time         one ``/usr/bin/time`` line (user, system, elapsed, CPU, CMD)
    matrix-text  ``grid: (x y z),matrix sizes: AxBxC, mintime: t`` lines
"""
from __future__ import annotations

import csv
import functools
import math
import re
import statistics
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from . import algorithms
from .data import (COLUMNS, IMPOSSIBLE, MAPPINGS, MAX_INPUT_BYTES, DataFormatError,
                   read_regular_file)


class Refused(DataFormatError):
    """A file (or part of one) that cannot become tidy rows; the message names file and line."""


# Open MPI coll_tuned algorithm ids (``--mca coll_tuned_<op>_algorithm N``) as tidy-data labels,
# from commbook.algorithms (0 "ignore" is labelled "default").
COLL_TUNED = {op: algorithms.coll_tuned_labels(op) for op in algorithms.OMPI_COLL_TUNED}
# Names students used for the same algorithms (compared without case, '_', '-' or spaces).
ALGORITHM_ALIASES = {
    "def": "default", "ignore": "default", "fixed": "default",
    "linear": {"bcast": "basic_linear", "gather": "basic_linear", "scatter": "basic_linear",
               "allreduce": "basic_linear"},
    "bintree": "binary_tree", "binarytree": "binary_tree", "btree": "binary_tree",
    "binary": {"bcast": "binary_tree"},
    "splitbinarytree": "split_binary_tree",
    "sync": {"gather": "linear_sync"}, "linearsync": "linear_sync",
    "ring": {"barrier": "double_ring"}, "doublering": "double_ring",
    "recdoubling": "recursive_doubling", "recursivedoubling": "recursive_doubling",
    "nonblockinglinear": "linear_nb", "linearnb": "linear_nb",
    "inorderbinary": "in_order_binary",
}
BENCHMARK_ALIASES = {
    "broadcast": "bcast", "bcast": "bcast", "reduce": "reduce", "allreduce": "allreduce",
    "gather": "gather", "scatter": "scatter", "barrier": "barrier", "allgather": "allgather",
    "alltoall": "alltoall", "pingpong": "pingpong", "pingping": "pingping",
    "sendrecv": "sendrecv", "exchange": "exchange", "latency": "latency", "bw": "bw",
    "bandwidth": "bw", "bibw": "bibw", "ring": "ring", "matrix": "matrix_add",
    "matrixadd": "matrix_add", "jacobi": "jacobi",
}
TIME_FACTORS = {"s": 1e6, "ms": 1e3, "us": 1.0, "ns": 1e-3}
MACHINE_PATTERNS = [  # host or file-name fragments -> ORFEO node type
    (r"tnode|thin", "orfeo-thin"), (r"gnode|gpu", "orfeo-gpu"), (r"epyc", "orfeo-epyc"),
    (r"\bfat\d|fat_|_fat|\bfat\b", "orfeo-fat"),
]

_NUM = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")
_DECIMAL_COMMA = re.compile(r"^[-+]?\d+,\d+$")


# ----------------------------------------------------------------------------- small helpers
@functools.lru_cache(maxsize=4096)
def norm_name(name: str) -> str:
    """'Avg Latency(us)' -> 'avglatencyus': column names compared without case or punctuation."""
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


@functools.lru_cache(maxsize=256)
def canonical_benchmark(value) -> str:
    """'Broadcast' -> 'bcast'; names we do not know are kept (lower case, '_' for spaces)."""
    key = norm_name(value)
    if key in BENCHMARK_ALIASES:
        return BENCHMARK_ALIASES[key]
    return re.sub(r"[^a-z0-9_]+", "_", str(value).strip().lower()).strip("_")


@functools.lru_cache(maxsize=1024)
def canonical_algorithm(benchmark: str, value) -> tuple[str, int | None]:
    """('bcast', '5') -> ('binary_tree', 5); ('bcast', 'BinaryTree') -> ('binary_tree', 5)."""
    text = str(value).strip().strip('"')
    if text == "" or text.lower() == "nan":
        return "", None
    table = COLL_TUNED.get(benchmark)
    if re.fullmatch(r"\d+(\.0)?", text):
        n = int(float(text))
        if table and n < len(table):
            return table[n], n
        return f"library:{n}", n
    key = norm_name(text)
    alias = ALGORITHM_ALIASES.get(key)
    if isinstance(alias, dict):
        alias = alias.get(benchmark)
    name = alias or text.lower().replace(" ", "_").replace("-", "_")
    if table:
        for i, known in enumerate(table):
            if norm_name(known) == norm_name(name):
                return known, i
    return name, None


@functools.lru_cache(maxsize=256)
def canonical_mapping(value) -> tuple[str, str]:
    """(mapping, note): 'bycore' -> core; 'cache' -> core (a shared-cache pair); 'numa' -> unknown."""
    key = norm_name(value)
    for word in ("core", "socket", "node", "self"):
        if key in (word, f"by{word}", f"mapby{word}", f"map{word}"):
            return word, ""
    if key in ("sock", "bysock"):
        return "socket", ""
    if key == "cache":
        return "core", "channel=cache"
    if key in ("", "nan"):
        return "", ""
    if key == "unknown":
        return "unknown", ""
    return "unknown", f"map_by={key}"


def parse_number(text: str, decimal_comma: bool = False):
    """The float in a cell, None when empty, not a number, or not finite."""
    try:
        v = float(text)  # fast path: most cells are plain numbers
        if isinstance(text, str) and "_" in text:
            return None
    except (TypeError, ValueError):
        t = str(text).strip().strip('"').strip("'").strip()
        if decimal_comma and _DECIMAL_COMMA.match(t):
            t = t.replace(",", ".")
        if not _NUM.match(t):
            return None
        v = float(t)
    if not math.isfinite(v):
        return None
    return v


def is_number(text: str, decimal_comma: bool = False) -> bool:
    return parse_number(text, decimal_comma) is not None


def time_unit_of(column: str) -> str | None:
    """The unit a time column's name declares: 'Latency (us)' -> us, 'Runtime [sec]' -> s."""
    low = str(column).lower()
    if re.search(r"usec|\(us\)|\[us\]|_us\b|\bus\b|\(μs\)|μs", low):
        return "us"
    if re.search(r"\(ms\)|\[ms\]|msec|_ms\b", low):
        return "ms"
    if re.search(r"\(ns\)|\[ns\]|nsec|_ns\b", low):
        return "ns"
    if re.search(r"\[sec\]|\(sec\)|\[s\]|\(s\)|seconds|_s\b", low):
        return "s"
    return None


MAX_BYTES = MAX_INPUT_BYTES  # 50 times the largest ORFEO file: anything bigger is not a benchmark log
MAX_LINE = 100_000  # characters; the longest ORFEO line has about 2,000


def read_text(path) -> str:
    """The file's text: BOM removed, CRLF and CR made LF; binary, special and huge files refused.

    Only regular files are opened (a FIFO would block, /dev/zero never ends), and at most
    MAX_BYTES are read, so every refusal comes within seconds."""
    path = Path(path)
    raw = read_regular_file(path, Refused, MAX_BYTES)
    if b"\x00" in raw:
        line = raw[:raw.index(b"\x00")].count(b"\n") + 1
        raise Refused(path, line, "binary data (NUL byte); not a text benchmark output")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        raise Refused(path, line, f"not UTF-8 text (byte 0x{raw[e.start]:02x} at offset {e.start})") from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if len(text) > MAX_LINE:
        for n, line in enumerate(text.split("\n"), start=1):
            if len(line) > MAX_LINE:
                raise Refused(path, n, f"a line of {len(line):,} characters; not benchmark output")
    return text


def numbered_lines(text: str) -> list[tuple[int, str]]:
    return [(n, line.rstrip()) for n, line in enumerate(text.split("\n"), start=1)]


# ------------------------------------------------------------------ what the text and name say
def infer_from_command(text: str) -> dict:
    """Mapping, transport, np, library and coll_tuned algorithm from an mpirun/mpiexec line."""
    out: dict = {}
    for line in text.split("\n")[:400]:
        if not re.search(r"\b(mpirun|mpiexec|srun)\b", line):
            continue
        if m := re.search(r"-?-map-by\s+([A-Za-z]+)", line):
            out.setdefault("mapping", canonical_mapping(m.group(1))[0])
        if re.search(r"-ppn[ =]1\b", line):
            out.setdefault("mapping", "node")
        if m := re.search(r"\s-(?:np|n)\s+(\d+)", line):
            out.setdefault("np", int(m.group(1)))
        if "-genv" in line or "I_MPI" in line:
            out.setdefault("mpi_library", "Intel MPI")
            if m := re.search(r"I_MPI_OFI_PROVIDER[= ]+(\w+)", line):
                out.setdefault("transport", m.group(1))
        elif "--mca" in line or "-mca" in line or "mpirun" in line:
            out.setdefault("mpi_library", "Open MPI")
        if re.search(r"-?-mca\s+pml\s+ucx", line):
            dev = re.search(r"UCX_NET_DEVICES=([\w:.]+)", line)
            out.setdefault("transport", f"ucx({dev.group(1)})" if dev else "ucx")
        elif re.search(r"-?-mca\s+pml\s+ob1", line) or re.search(r"-?-mca\s+btl\s+[\w,^]+", line):
            btl = re.search(r"-?-mca\s+btl\s+([\w,^]+)", line)
            names = [b for b in (btl.group(1).split(",") if btl else []) if b not in ("self", "")]
            if names and not names[0].startswith("^"):
                out.setdefault("transport", "ob1-" + "+".join(names))
        if m := re.search(r"coll_tuned_(\w+?)_algorithm\s+(\d+)", line):
            out.setdefault("coll_op", m.group(1))
            out.setdefault("coll_id", int(m.group(2)))
    return out


def infer_machine(text: str) -> str:
    for pattern, machine in MACHINE_PATTERNS:
        if re.search(pattern, text, re.IGNORECASE):
            return machine
    return ""


def infer_from_name(path) -> dict:
    """Benchmark, algorithm id or name, mapping, machine, transport and size from a file name."""
    p = Path(path)
    name = p.stem.lower()
    where = "/".join(part.lower() for part in p.parts[-4:-1])
    out: dict = {}
    order = [("allreduce", "allreduce"), ("pingpong", "pingpong"), ("broadcast", "bcast"),
             ("bcast", "bcast"), ("barrier", "barrier"), ("allgather", "allgather"),
             ("gather", "gather"), ("scatter", "scatter"), ("reduce", "reduce"),
             ("latenc", "latency"), ("p2p", "latency"), ("ring", "ring"), ("matrix", "matrix_add"),
             ("jacobi", "jacobi")]
    for text in (name, where):
        for word, bench in order:
            if word in text:
                out["benchmark"] = bench
                break
        if "benchmark" in out:
            break
    if m := re.search(r"(?:bcast|broadcast|gather|scatter|reduce|barrier|algo)_?(\d)(?!\d)", name):
        out["alg_token"] = m.group(1)
    elif m := re.search(r"(?:^|_)(?:b|s)(\d)(?:_|$)", name):
        out["alg_token"] = m.group(1)
    elif "benchmark" in out:
        tokens = re.split(r"[_\-.]+", name)
        words = [t for t in tokens if t and not t.isdigit()]
        for i in range(len(words)):
            for j in (3, 2, 1):
                cand = "_".join(words[i:i + j])
                if norm_name(cand) in ALGORITHM_ALIASES or any(
                        norm_name(cand) == norm_name(a) for table in COLL_TUNED.values() for a in table):
                    if cand not in ("core", "node", "socket"):
                        out.setdefault("alg_token", cand)
    tokens = set(re.split(r"[^a-z0-9]+", name)) | set(re.split(r"[^a-z0-9]+", where))
    for word, mapping in (("core", "core"), ("bycore", "core"), ("socket", "socket"),
                          ("bysocket", "socket"), ("sock", "socket"), ("node", "node"),
                          ("bynode", "node")):
        if word in tokens:
            out["mapping"] = mapping
            break
    else:
        if m := re.search(r"by_?(core|socket|node)", name):
            out["mapping"] = m.group(1)
    machine = infer_machine(name) or infer_machine(where)
    if machine:
        out["machine"] = machine
    for word in ("ucx", "vader", "shm", "mlx", "infiniband", "tcp"):
        if word in tokens or f"_{word}" in name or f"-{word}" in name:
            out["transport"] = ("ob1-" + word) if word in ("vader",) or (
                word == "tcp" and "ob1" in name) else word
            break
    if m := re.search(r"msize_?(\d+)", name):
        out["size_bytes"] = int(m.group(1))
    return out


# ------------------------------------------------------------------------- separator sniffing
def sniff(lines: list[str]) -> tuple[str | None, bool]:
    """(separator, decimal_comma) that splits the lines most consistently into numbers."""
    sample = [ln for ln in lines if ln.strip()][:40]
    best, best_score = None, -1.0
    for sep in (",", ";", "\t", None):
        counts, numeric, total = [], 0, 0
        dc = sep != "," and any(_DECIMAL_COMMA.match(f.strip().strip('"'))
                                for ln in sample for f in split(ln, sep))
        for ln in sample:
            fields = split(ln, sep)
            counts.append(len(fields))
            numeric += sum(is_number(f, dc) for f in fields)
            total += len(fields)
        if not counts:
            continue
        mode, freq = Counter(counts).most_common(1)[0]
        if mode < 2:
            continue
        score = (freq / len(counts)) * (numeric / max(total, 1)) + (0.01 if sep else 0)
        if score > best_score + 1e-9:
            best, best_score = (sep, dc), score
    return best if best else (",", False)


def split(line: str, sep: str | None) -> list[str]:
    if sep is None:
        return line.split()
    if sep == ",":
        return [f.strip() for f in next(csv.reader([line], skipinitialspace=True), [])]
    return [f.strip() for f in line.split(sep)]


# ----------------------------------------------------------------------- column roles (tables)
ROLE_NAMES = {
    "np": {"processes", "np", "nprocs", "nproc", "procs", "processors", "cores", "idxprocess",
           "numberprocesses", "numprocs", "numberofprocesses", "ranks", "p"},
    "size_bytes": {"messagesize", "size", "bytes", "xbytes", "msgsize", "dimensionsize",
                   "messagesizebytes", "sizebytes", "messagesizeb"},
    "t": {"latency", "avglatency", "avglatencyus", "latencyus", "avg", "avgus", "tusec",
          "tavgusec", "t", "timeus", "tus", "time", "avglat", "avgtime", "mean"},
    "t_min": {"min", "minlatency", "minlatencyus", "tminusec", "minus", "mintimeus"},
    "t_max": {"max", "maxlatency", "maxlatencyus", "tmaxusec", "maxus", "maxtimeus"},
    "reps": {"iterations", "repetitions", "xrepetitions", "repetition", "reps", "iters"},
    "algorithm": {"algorithm", "algo", "alg"},
    "mapping": {"allocation", "mapby", "map", "mapping", "binding"},
    "benchmark": {"type", "benchmark", "operation", "collective"},
    "core_from": {"core1", "startcpu", "corefrom", "sender", "src"},
    "core_to": {"core2", "endcpu", "coreto", "recv", "receiver", "dst", "cpu"},
    "bw_MBps": {"mbytessec", "bandwidth", "bandwidthmbs", "mbs"},
}
MODEL_COLUMN = re.compile(r"comp|computed|est_?lat|est_?band|model|expected", re.IGNORECASE)


def assign_roles(header: list[str], hints: dict) -> tuple[dict, list[int]]:
    """{role: column index} and the indices left for params (model columns dropped)."""
    roles: dict = {}
    forced_t = hints.get("t_column")
    rest = []
    for i, name in enumerate(header):
        key = norm_name(name)
        if forced_t is not None and (name == forced_t or key == norm_name(forced_t)):
            roles["t"] = i
            continue
        if key == "" or key.isdigit():
            continue  # R row numbers, blank leading columns
        if MODEL_COLUMN.search(name) and key not in ROLE_NAMES["t"]:
            continue  # a student's model, not a measurement
        for role, names in ROLE_NAMES.items():
            if role == "t" and forced_t is not None:
                continue
            if key in names and role not in roles:
                roles[role] = i
                break
        else:
            rest.append(i)
    return roles, rest


# ------------------------------------------------------------------------------- the record
class Collector:
    """Collects rows plus file-level facts, then builds a tidy table honouring the hints."""

    def __init__(self, path, hints: dict | None, fmt: str):
        self.path = Path(path)
        self.hints = dict(hints or {})
        self.fmt = fmt
        self.rows: list[dict] = []
        self.notes: list[str] = []
        self.facts: dict = {}  # inferred from the file's text (command line, hosts, headers)

    def add(self, **row):
        self.rows.append(row)

    def note(self, text: str):
        if text not in self.notes:
            self.notes.append(text)

    def table(self) -> pd.DataFrame:
        if not self.rows:
            raise Refused(self.path, 0, "no data rows" + (f" ({self.notes[0]})" if self.notes else ""))
        h, facts = self.hints, self.facts
        named = infer_from_name(self.path) if h.get("infer_name", True) else {}
        rows = self.rows
        n = len(rows)

        def pick(key, *fallbacks):
            """Per row: the forced hint, else the row's value, else file-level fallbacks."""
            if h.get(key):
                return [h[key]] * n
            default = next((f for f in fallbacks if f), None)
            return [r.get(key) or default for r in rows]

        benches = pick("benchmark", facts.get("benchmark"), named.get("benchmark"))
        if None in benches:
            line = rows[benches.index(None)].get("line", 0)
            raise Refused(self.path, line, "cannot tell which benchmark this is (give --benchmark)")
        benches = [canonical_benchmark(b) for b in benches]
        coll = str(facts["coll_id"]) if facts.get("coll_id") is not None else None
        alg_raw = pick("algorithm", facts.get("algorithm"))
        algs, alg_ids = [], []
        for b, a in zip(benches, alg_raw):
            if not a and coll is not None and facts.get("coll_op") in (b, None):
                a = coll
            if not a and b in COLL_TUNED:
                a = named.get("alg_token", "")
            name, ident = canonical_algorithm(b, a or "")
            algs.append(name)
            alg_ids.append(ident if b in COLL_TUNED else None)
        maps = [canonical_mapping(m or "") for m in pick("mapping", facts.get("mapping"),
                                                         named.get("mapping"))]
        nps = [r.get("np") or h.get("np") or facts.get("np") for r in rows]  # the file first
        for i, (b, v) in enumerate(zip(benches, nps)):
            if v is None:
                if b in ("pingpong", "latency", "bw", "bibw", "pingping"):
                    nps[i] = 2
                else:
                    raise Refused(self.path, rows[i].get("line", 0),
                                  "no process count in the file (give --np)")
        size_default = h.get("size_bytes", facts.get("size_bytes", named.get("size_bytes", 0)))
        hint_params = h.get("params") or {}
        params = []
        for r, ident, (_, note) in zip(rows, alg_ids, maps):
            p = dict(r.get("params") or ())
            if ident is not None:
                p.setdefault("coll_tuned_id", ident)
            if note:
                k, _, v = note.partition("=")
                p.setdefault(k, v)
            for k, v in hint_params.items():
                p.setdefault(k, v)
            params.append(";".join(f"{k}={_fmt(v)}" for k, v in p.items()))
        t = [r["t_us"] for r in rows]
        reps_forced = h.get("reps")
        try:
            ints = {c: np.asarray(v, dtype=np.int64) for c, v in (
                ("np", nps),
                ("size_bytes", [r["size_bytes"] if r.get("size_bytes") is not None else size_default
                                for r in rows]),
                ("reps", [reps_forced or r.get("reps") or 1 for r in rows]))}
        except (TypeError, ValueError) as e:
            raise Refused(self.path, 0, f"a process count, size or repetition count is not an integer ({e})") from None
        text = lambda v: [str(x) for x in v]  # noqa: E731
        # Built with the schema's types directly (data.normalise is slow on many small files;
        # tests check that normalise leaves these tables unchanged).
        df = pd.DataFrame({
            "benchmark": benches, "algorithm": algs,
            "mapping": [m or "unknown" for m, _ in maps],
            "transport": text(pick("transport", facts.get("transport"), named.get("transport"), "")),
            "np": ints["np"], "size_bytes": ints["size_bytes"],
            "t_us": np.asarray(t, dtype=float),
            "t_min_us": np.asarray([r.get("t_min_us", r["t_us"]) for r in rows], dtype=float),
            "t_max_us": np.asarray([r.get("t_max_us", r["t_us"]) for r in rows], dtype=float),
            "reps": ints["reps"],
            "machine": text(pick("machine", facts.get("machine"), named.get("machine"), "")),
            "mpi_library": [str(h.get("mpi_library") or facts.get("mpi_library") or "")] * n,
            "source": [str(h.get("source") or self.path)] * n,
            "params": params,
        }, columns=COLUMNS)
        if not np.isfinite(df[["t_us", "t_min_us", "t_max_us"]].to_numpy()).all():
            raise Refused(self.path, 0, "a time is not a finite number")
        for column, lowest, what in IMPOSSIBLE:
            bad = np.flatnonzero(df[column].to_numpy() < lowest)
            if len(bad):
                i = int(bad[0])
                raise Refused(self.path, rows[i].get("line", 0),
                              f"{what}: {column} = {df[column].iloc[i]:g}")
        bad = ~df["mapping"].isin(MAPPINGS)
        if bad.any():
            df.loc[bad, "mapping"] = "unknown"
        if h.get("fix"):
            df = h["fix"](df)
        return df


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v).replace(";", ",").replace("=", ":")


def _t(value: float, unit: str) -> float:
    return float(value) * TIME_FACTORS[unit]


# ------------------------------------------------------------------------------- detection
def detect_format(text: str, path="") -> str:
    lines = [ln for _, ln in numbered_lines(text) if ln.strip()]
    if not lines:
        raise Refused(path, 0, "empty file" if not text.strip("\n") else "blank file (only empty lines)")
    head = "\n".join(lines[:200])
    if re.search(r"Maxtime\s*,\s*Mintime", head):
        return "jacobi"
    if re.search(r"\buser\s*:\s*[\d.]+\s+system\s*:\s*[\d.]+\s+elapsed\s*:", head):
        return "time"
    if re.search(r"^\s*(grid:\s*\(|dim matrix:)", head, re.MULTILINE):
        return "matrix-text"
    if re.search(r"Benchmarking\s+\w+|#?\s*\"?(X\.)?bytes\"?\s*[,;\t ]\s*\"?#?\s*(X\.)?repetition",
                 head, re.IGNORECASE):
        return "imb"
    if re.search(r"^# OSU MPI", head, re.MULTILINE) or (
            re.search(r"latency between core|Testing with cores|^\d+:\s*$", head, re.MULTILINE | re.IGNORECASE)
            and sum(bool(re.fullmatch(r"\s*\d+\s+[-+\d.eE]+\s*", ln)) for ln in lines[:200]) > 3):
        return "osu"
    body = lines[1:] if lines and not is_number(lines[0]) else lines
    if body and all(is_number(ln) for ln in body) and all(is_number(ln) or re.fullmatch(r"\s*[A-Za-z_]+\s*", ln)
                                                          for ln in lines[:1]):
        return "values"
    sep, dc = sniff(lines[:40])
    first = split(lines[0], sep)
    if len(first) == 2 and all(is_number(f, dc) for f in first):
        col = [split(ln, sep) for ln in lines]
        if all(len(c) == 2 and all(is_number(f, dc) for f in c) for c in col):
            ranks = [parse_number(c[0]) for c in col]
            return "rank-times" if _rank_blocks(ranks) else "pairs"
    return "table"


def _rank_blocks(ranks: list) -> list[tuple[int, int]] | None:
    """[(start, P), ...] when the first column is blocks of ranks {0..P-1} for P = 1, 2, 3, ..."""
    blocks, i, p = [], 0, 1
    while i < len(ranks):
        block = ranks[i:i + p]
        if len(block) < p or sorted(block) != list(range(p)):
            return None
        blocks.append((i, p))
        i, p = i + p, p + 1
    return blocks if len(blocks) >= 2 else None


# ----------------------------------------------------------------------------------- parsers
def parse_imb(text: str, col: Collector):
    """IMB-MPI1 text output or a csv/tab/; copy of its table(s)."""
    col.facts.update({k: v for k, v in infer_from_command(text).items() if k not in ("np",)})
    lines = numbered_lines(text)
    hosts = [ln for _, ln in lines[:5] if infer_machine(ln)]
    if hosts:
        col.facts.setdefault("machine", infer_machine(hosts[0]))
    bench, np_, header, sep, dc, block = None, None, None, None, False, 0
    header_key = None
    for i, (n, line) in enumerate(lines):
        s = line.strip()
        if not s:
            continue
        if m := re.search(r"Benchmarking\s+(\w+)", s):
            bench, header = canonical_benchmark(m.group(1)), None
            continue
        if m := re.search(r"#processes\s*=\s*(\d+)", s):
            np_ = int(m.group(1))
            continue
        low = s.lower()
        if "repetition" in low and ("bytes" in low or "t_" in low or "t[" in low or "usec" in low):
            nxt = [ln for _, ln in lines[i + 1:i + 6] if ln.strip()]
            sep, dc = sniff(nxt or [line])
            if sep is None:
                names = s.lstrip("#").split()
            else:
                names = split(line, sep)
            key = tuple(norm_name(x) for x in names)
            if key != header_key:
                header_key = key
            block += 1
            header = names
            continue
        if header is None or s.startswith("#"):
            continue
        fields = split(line, sep) if sep is not None else s.split()
        if len(fields) != len(header):
            if len(fields) < len(header) and all(not ln.strip() for _, ln in lines[i + 1:]):
                col.note(f"line {n}: truncated last row skipped")
                continue
            raise Refused(col.path, n, f"{len(fields)} fields but the IMB header has {len(header)}")
        vals = {norm_name(h): parse_number(f, dc) for h, f in zip(header, fields)}
        raw = {norm_name(h): f for h, f in zip(header, fields)}
        size = _first(vals, "bytes", "xbytes")
        t = _first(vals, "tusec", "tavgusec", "tusec1")
        if t is None:
            if any(v is None for k, v in vals.items() if k and not k.isdigit()):
                bad = next(raw[k] for k, v in vals.items() if v is None and k and not k.isdigit())
                if bad.startswith("#"):
                    continue
                raise Refused(col.path, n, f"'{bad}' is not a number")
            raise Refused(col.path, n, "no t[usec] / t_avg[usec] column in the IMB header")
        row = {"t_us": t, "line": n, "size_bytes": int(size) if size is not None else 0,
               "params": {}}
        if (tmin := vals.get("tminusec")) is not None:
            row["t_min_us"] = tmin
        if (tmax := vals.get("tmaxusec")) is not None:
            row["t_max_us"] = tmax
        if (reps := _first(vals, "repetitions", "xrepetitions", "repetition")) is not None:
            row["reps"] = int(reps)
        if (bw := _first(vals, "mbytessec", "mbytessec1")) is not None:
            row["params"]["bw_MBps"] = bw
        if block > 1 or col.hints.get("blocks"):
            row["params"]["block"] = block
        row["benchmark"] = bench or "pingpong"
        if np_:
            row["np"] = np_
        col.add(**row)
    if header is None:
        raise Refused(col.path, 0, "no IMB table header (#bytes #repetitions ...)")
    _apply_blocks(col)


def _first(vals: dict, *keys):
    for k in keys:
        if vals.get(k) is not None:
            return vals[k]
    return None


def _apply_blocks(col: Collector):
    """hints['blocks'] = ['node:ucx', 'node:ucx', ...] labels each concatenated block."""
    labels = col.hints.get("blocks")
    if not labels:
        return
    nblocks = max((r["params"].get("block", 1) for r in col.rows), default=0)
    if nblocks != len(labels):
        raise Refused(col.path, 0, f"{nblocks} blocks but the catalog labels {len(labels)}")
    for r in col.rows:
        label = labels[r["params"]["block"] - 1]
        for item in label.split("|"):
            k, _, v = item.partition(":")
            if k in ("mapping", "transport", "machine", "algorithm"):
                r[k] = v
            elif k:
                r["params"][k.removeprefix("params.")] = v


OSU_TITLES = {"latency": "latency", "bandwidth": "bw", "bi-directional bandwidth": "bibw",
              "broadcast": "bcast", "barrier": "barrier", "gather": "gather", "scatter": "scatter",
              "reduce": "reduce", "allreduce": "allreduce", "allgather": "allgather",
              "all-to-all": "alltoall", "alltoall": "alltoall",
              "all-to-all personalized exchange": "alltoall", "reduce_scatter": "reduce_scatter",
              "reduce scatter": "reduce_scatter", "non-blocking broadcast": "ibcast"}


def parse_osu(text: str, col: Collector):
    """OSU micro-benchmark text: '# OSU MPI ... Test', '# Size  Latency (us)', value lines."""
    col.facts.update(infer_from_command(text))
    bench, names, context, block, fresh_marker = None, None, {}, 0, False
    lines = numbered_lines(text)
    for i, (n, line) in enumerate(lines):
        s = line.strip()
        if not s:
            continue
        if m := re.match(r"#\s*OSU MPI[-\w]*\s+(.*?)\s*(Latency|Bandwidth|Bi-Directional Bandwidth)?\s*Test", s, re.IGNORECASE):
            title = (m.group(1) or "").strip().lower()
            kind = (m.group(2) or "").lower()
            if title in ("", "latency") and kind == "latency" or title == "latency":
                bench = "latency"
            elif "bi-directional" in kind or "bi-directional" in title:
                bench = "bibw"
            elif kind == "bandwidth" and title in ("", "bandwidth"):
                bench = "bw"
            else:
                bench = OSU_TITLES.get(title, canonical_benchmark(title or kind))
            names = None
            if not fresh_marker:  # a marker line already opened this block
                block += 1
            fresh_marker = False
            continue
        if s.startswith("#"):
            body = s.lstrip("#").strip()
            if re.match(r"(Size|Avg Latency|Latency|Bandwidth)", body, re.IGNORECASE):
                names = [x for x in re.split(r"\s{2,}|\t", body) if x]
            continue
        if m := re.search(r"cores?:?\s*(\d+)\s*(?:and|to|-|,)\s*(?:core\s*)?(\d+)", s, re.IGNORECASE):
            context = {"core_from": int(m.group(1)), "core_to": int(m.group(2))}
            if mh := re.search(r"\bon\s+(\S+?)\.*$", s):
                context["host"] = mh.group(1)
            block, fresh_marker = block + 1, True
            continue
        if m := re.fullmatch(r"(\d+):", s):
            context = {"core_from": 0, "core_to": int(m.group(1))}
            block, fresh_marker = block + 1, True
            continue
        fields = s.split()
        nums = [parse_number(f) for f in fields]
        fresh_marker = False
        if any(v is None for v in nums):
            if re.search(r"[A-Za-z]", s) and not any(v is not None for v in nums[:1]):
                if infer_machine(s) and "machine" not in col.facts:
                    col.facts["machine"] = infer_machine(s)
                continue  # a student's marker or log line
            raise Refused(col.path, n, f"'{s[:40]}' is not an OSU value line")
        cols = names or (["Size", "Latency (us)"] if len(nums) == 2 else
                         ["Avg Latency(us)"] if len(nums) == 1 else None)
        if cols is None or len(cols) != len(nums):
            if cols and len(nums) < len(cols) and all(not ln.strip() for _, ln in lines[i + 1:]):
                col.note(f"line {n}: truncated last line skipped")
                continue
            raise Refused(col.path, n, f"{len(nums)} values but the OSU header names {len(cols or [])}")
        row = {"line": n, "params": {}}
        for name, v in zip(cols, nums):
            key = norm_name(name)
            if key == "size":
                row["size_bytes"] = int(v)
            elif key in ("latencyus", "avglatencyus", "latency"):
                row["t_us"] = v
            elif key == "minlatencyus":
                row["t_min_us"] = v
            elif key == "maxlatencyus":
                row["t_max_us"] = v
            elif key == "iterations":
                row["reps"] = int(v)
            elif key.startswith("bandwidth"):
                row["params"]["bw_MBps"] = v
            else:
                row["params"][re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")] = v
        if "t_us" not in row:
            bw = row["params"].get("bw_MBps")
            if bw and row.get("size_bytes"):
                row["t_us"] = row["size_bytes"] / bw  # bytes / (10^6 B/s) = us per message
                row["params"]["t_from"] = "size/bandwidth"
            else:
                continue
        row["benchmark"] = bench or col.hints.get("benchmark") or "latency"
        for k in ("core_from", "core_to"):
            if k in context:
                row["params"][k] = context[k]
        if "host" in context:
            row["params"]["host"] = context["host"]
            row.setdefault("machine", infer_machine(context["host"]) or "")
            if not row["machine"]:
                del row["machine"]
        if block > 1:
            row["params"]["block"] = block
        col.add(**row)


def parse_table(text: str, col: Collector):
    """A CSV (or ; / tab separated) table with one header row."""
    col.facts.update(infer_from_command(text))
    lines = [(n, ln) for n, ln in numbered_lines(text) if ln.strip()]
    if not lines:
        raise Refused(col.path, 0, "empty file")
    sep, dc = sniff([ln for _, ln in lines[:40]])
    if sep == ",":
        reader = csv.reader([ln for _, ln in lines], skipinitialspace=True)
        parsed = [(n, [f.strip() for f in row]) for (n, _), row in zip(lines, reader)]
    else:
        parsed = [(n, split(ln, sep)) for n, ln in lines]

    def is_data(fields):
        nums = sum(is_number(f, dc) for f in fields)
        return len(fields) >= 2 and nums >= max(1, len(fields) // 2) and is_number(
            next((f for f in fields if f.strip().strip('"')), ""), dc) or (
            len(fields) >= 2 and nums >= len(fields) - 2 and nums >= 2)

    first = next((i for i, (_, f) in enumerate(parsed) if is_data(f)), None)
    if first is None:
        what = "no data rows"
        if len(parsed) <= 5:
            what += f" (only {len(parsed)} header/metadata line{'s' * (len(parsed) != 1)})"
        raise Refused(col.path, 0, what)
    if first == 0:
        if col.hints.get("columns"):
            header, header_line = list(col.hints["columns"]), 0
        else:
            raise Refused(col.path, lines[0][0], "no header row (the first line is already data)")
    else:
        header_line, header = parsed[first - 1][0], parsed[first - 1][1]
        for _, ln in lines[:first - 1]:
            if infer_machine(ln):
                col.facts.setdefault("machine", infer_machine(ln))
        if col.hints.get("columns"):
            header = list(col.hints["columns"])
    header = [h.strip().strip('"') for h in header]
    if header and header[0].lower().startswith("#header"):
        header[0] = ""
    header = [h.lstrip("#").strip() if i else h for i, h in enumerate(header)]
    if header and header[0].startswith("#"):
        header[0] = header[0].lstrip("#").strip()
    data = parsed[first:]
    counts = Counter(len(f) for _, f in data)
    width = counts.most_common(1)[0][0]
    header = _reconcile(header, width, col, header_line)
    roles, rest = assign_roles(header, col.hints)
    if "t" not in roles:
        wide = _wide_columns(header, roles, rest, col)
        if not wide:
            raise Refused(col.path, header_line, f"no time or latency column in header {header}")
    else:
        wide = None
    unit = col.hints.get("time_unit")
    if "t" in roles and not unit:
        unit = time_unit_of(header[roles["t"]])
        if unit is None:
            if "lat" in norm_name(header[roles["t"]]) or norm_name(header[roles["t"]]) in ("tusec", "avg"):
                unit = "us"
            else:
                raise Refused(col.path, header_line,
                              f"column '{header[roles['t']]}' has no unit (give time_unit)")
    if wide and not unit:
        unit = time_unit_of(" ".join(header)) or "us"
    header_key = [norm_name(h) for h in header]
    last = len(data) - 1
    for j, (n, fields) in enumerate(data):
        if fields and norm_name(fields[0]) == header_key[0] and [norm_name(f) for f in fields] == header_key:
            continue  # a repeated header (concatenated files)
        if len(fields) != len(header):
            if j == last and len(fields) < len(header):
                col.note(f"line {n}: truncated last row skipped")
                continue
            if len(fields) > len(header) and all(not f.strip() for f in fields[len(header):]):
                fields = fields[:len(header)]
            else:
                raise Refused(col.path, n, f"{len(fields)} fields but the header has {len(header)}")
        if any(f.startswith("#") for f in fields):
            col.note("rows with '#' fields (OSU comment lines caught in the table) skipped")
            continue
        get = lambda role: fields[roles[role]] if role in roles else None  # noqa: E731
        base = {"line": n, "params": {}}
        for role in ("np", "size_bytes", "reps", "core_from", "core_to"):
            raw = get(role)
            if raw is None:
                continue
            v = parse_number(raw, dc)
            if v is None:
                if raw.strip() == "":
                    continue
                raise Refused(col.path, n, f"column '{header[roles[role]]}' has '{raw}', not a number")
            if role in ("core_from", "core_to"):
                base["params"][role] = int(v)
            else:
                base[role] = int(round(v))
        if "core_to" in roles and "core_from" not in roles:
            base["params"].setdefault("core_from", 0)
        for role in ("algorithm", "mapping", "benchmark"):
            raw = get(role)
            if raw is not None and raw.strip():
                base[role] = raw.strip()
        if (raw := get("bw_MBps")) is not None and (v := parse_number(raw, dc)) is not None:
            base["params"]["bw_MBps"] = v
        for i in rest:
            if wide and i in wide:
                continue
            name = re.sub(r"[^a-z0-9]+", "_", header[i].lower()).strip("_") or f"col{i + 1}"
            raw = fields[i]
            v = parse_number(raw, dc)
            if raw.strip():
                base["params"][name] = v if v is not None else raw.strip()
        if wide:
            for i, alg in wide.items():
                v = parse_number(fields[i], dc)
                if v is None:
                    if fields[i].strip():
                        raise Refused(col.path, n, f"column '{header[i]}' has '{fields[i]}', not a number")
                    col.note("empty cells skipped")
                    continue
                col.add(**{**base, "params": dict(base["params"]), "algorithm": alg,
                           "t_us": _t(v, unit)})
            continue
        raw = get("t")
        v = parse_number(raw, dc)
        if v is None:
            if raw.strip() == "":
                col.note("rows with an empty time skipped")
                continue
            raise Refused(col.path, n, f"column '{header[roles['t']]}' has '{raw}', not a number")
        row = {**base, "t_us": _t(v, unit)}
        for role, key in (("t_min", "t_min_us"), ("t_max", "t_max_us")):
            if (raw := get(role)) is not None and (x := parse_number(raw, dc)) is not None:
                row[key] = _t(x, unit)
        col.add(**row)


def _reconcile(header: list[str], width: int, col: Collector, line: int) -> list[str]:
    """Make the header as wide as the rows, for the known kinds of mismatch."""
    if len(header) == width:
        return header
    if len(header) > width:
        kept, dropped = header[:width], header[width:]
        is_t = lambda h: norm_name(h) in ROLE_NAMES["t"] or "latency" in h.lower()  # noqa: E731
        if any(is_t(h) for h in dropped) and not any(is_t(h) for h in kept):
            sizes = [h for h in header if norm_name(h) in ROLE_NAMES["size_bytes"]]
            if sizes and len(header) - len(sizes) == width:
                col.note(f"header names {sizes} but no row has a value for it; column dropped")
                return [h for h in header if h not in sizes]
        col.note(f"header has {len(header)} names but rows have {width} fields; "
                 f"used the first {width}: {kept}")
        return kept
    if len(header) + 1 == width and "pair" in norm_name(header[0]):
        col.note(f"'{header[0]}' spans two fields: read as core_from, core_to")
        return ["core_from", "core_to"] + header[1:]
    raise Refused(col.path, line, f"header has {len(header)} names but rows have {width} fields")


def _wide_columns(header, roles, rest, col: Collector) -> dict | None:
    """{column index: algorithm} for a wide table (one column per algorithm), else None."""
    chosen = col.hints.get("wide")
    bench = canonical_benchmark(col.hints.get("benchmark") or infer_from_name(col.path).get("benchmark", ""))
    out = {}
    for i in rest:
        name = header[i]
        if chosen is not None:
            if name in chosen:
                out[i] = chosen[name]
            continue
        alg, alg_id = canonical_algorithm(bench, name)
        known = bench in COLL_TUNED and alg in COLL_TUNED[bench]
        if known:
            out[i] = alg
    if out and ("np" in roles or "size_bytes" in roles):
        return out
    return None


def parse_values(text: str, col: Collector):
    """One number per line; np = np_start + k * np_step for the k-th value (from hints)."""
    start, step = col.hints.get("np_start"), col.hints.get("np_step", 1)
    if start is None:
        raise Refused(col.path, 0, "one value per line and no process counts: give np_start/np_step")
    unit = col.hints.get("time_unit", "us")
    k = 0
    for n, line in numbered_lines(text):
        s = line.strip()
        if not s:
            continue
        v = parse_number(s)
        if v is None:
            if k == 0 and re.fullmatch(r"[A-Za-z_]+", s):
                continue  # a one-word header ("ttime")
            raise Refused(col.path, n, f"'{s[:40]}' is not a number")
        col.add(t_us=_t(v, unit), np=int(start) + k * int(step), line=n, params={})
        k += 1


def parse_jacobi(text: str, col: Collector):
    """Course Jacobi stdout: grid and dims from the header, one row summarising the sweeps."""
    dims = [int(m.group(1)) for m in re.finditer(r"-Dim Input\s+(\d+)", text)]
    grid = re.search(r"Process grid\s+(\d+)\s+(\d+)\s+(\d+)", text)
    maxt, mint, mlups, first = [], [], [], 0
    for n, line in numbered_lines(text):
        if "Maxtime" not in line:
            continue
        m = re.search(r"JacobiMa\s+([-\d.eE+]+)\s+([-\d.eE+]+)\s+([-\d.eE+]+)\s+([-\d.eE+]+)"
                      r".*?MLUPs\s+([-\d.eE+]+)", line)
        if not m:
            raise Refused(col.path, n, "Jacobi line without the 4 times and MLUPs")
        first = first or n
        vals = [float(x) for x in m.groups()]
        maxt.append(vals[0])
        mint.append(vals[1])
        mlups.append(vals[4])
    if not maxt:
        raise Refused(col.path, 0, "no 'Maxtime , Mintime' lines")
    if not grid:
        raise Refused(col.path, 0, "no 'Process grid' line")
    g = [int(x) for x in grid.groups()]
    np_ = g[0] * g[1] * g[2]
    med = statistics.median(maxt)
    params = {"grid": "x".join(map(str, g)), "L": "x".join(map(str, dims)) if dims else "",
              "sweeps": len(maxt), "mlups": statistics.median(mlups),
              "t_min_rank_us": _t(statistics.median(mint), "s"),
              "stat": "median over sweeps of the slowest rank"}
    col.add(t_us=_t(med, "s"), t_min_us=_t(min(maxt), "s"), t_max_us=_t(max(maxt), "s"),
            reps=len(maxt), np=np_, line=first, benchmark="jacobi", params=params)
    col.facts.setdefault("benchmark", "jacobi")


def parse_rank_times(text: str, col: Collector):
    """'rank,time' lines, P = 1, 2, 3, ... ranks per block: the slowest rank is the ring time."""
    unit = col.hints.get("time_unit")
    if not unit:
        raise Refused(col.path, 0, "rank,time lines carry no unit (give time_unit)")
    rows = [(n, ln.split(",")) for n, ln in numbered_lines(text) if ln.strip()]
    vals = []
    for n, f in rows:
        if len(f) != 2 or not all(is_number(x) for x in f):
            raise Refused(col.path, n, f"'{','.join(f)[:40]}' is not 'rank,time'")
        vals.append((n, int(float(f[0])), float(f[1])))
    blocks = _rank_blocks([r for _, r, _ in vals])
    if not blocks:
        raise Refused(col.path, vals[0][0] if vals else 0,
                      "ranks do not form blocks 0..P-1 for P = 1, 2, 3, ...")
    for start, p in blocks:
        times = [t for _, _, t in vals[start:start + p]]
        col.add(t_us=_t(max(times), unit), t_min_us=_t(min(times), unit), t_max_us=_t(max(times), unit),
                np=p, line=vals[start][0], params={"stat": "slowest rank; min = fastest rank"})


def parse_pairs(text: str, col: Collector):
    """Headerless 'np,seconds' lines; repeats of one np are summarised (median, min, max)."""
    unit = col.hints.get("time_unit")
    if not unit:
        raise Refused(col.path, 0, "np,time lines carry no unit (give time_unit)")
    series_labels = col.hints.get("series")
    groups: list[tuple[int, int, list, int]] = []  # (series, np, values, first line)
    series, prev = 0, None
    for n, ln in numbered_lines(text):
        if not ln.strip():
            continue
        f = ln.split(",")
        if len(f) != 2 or not all(is_number(x) for x in f):
            raise Refused(col.path, n, f"'{ln[:40]}' is not 'np,time'")
        np_, t = int(float(f[0])), float(f[1])
        if prev is not None and np_ < prev:
            series += 1
        if groups and groups[-1][0] == series and groups[-1][1] == np_:
            groups[-1][2].append(t)
        else:
            groups.append((series, np_, [t], n))
        prev = np_
    if series_labels and series + 1 != len(series_labels):
        raise Refused(col.path, 0, f"{series + 1} series but the catalog labels {len(series_labels)}")
    for s, np_, ts, n in groups:
        params = {"stat": f"median of {len(ts)}"} if len(ts) > 1 else {}
        if series_labels:
            for item in series_labels[s].split("|"):
                k, _, v = item.partition(":")
                params[k.removeprefix("params.")] = v
        elif series:
            params["series"] = s + 1
        col.add(t_us=_t(statistics.median(ts), unit), t_min_us=_t(min(ts), unit),
                t_max_us=_t(max(ts), unit), reps=len(ts), np=np_, line=n, params=params)


def parse_time_line(text: str, col: Collector):
    """'/usr/bin/time' summary: the elapsed wall time of the whole command."""
    for n, line in numbered_lines(text):
        m = re.search(r"user\s*:\s*([\d.]+)\s+system\s*:\s*([\d.]+)\s+elapsed\s*:\s*([\d.]+)"
                      r"(?:\s+CPU\s*:\s*(\d+)%)?(?:\s+CMD\s*:\s*(.*))?", line)
        if not m:
            continue
        cmd = m.group(5) or ""
        col.facts.update(infer_from_command(cmd))
        params = {"user_s": float(m.group(1)), "system_s": float(m.group(2)),
                  "timer": "/usr/bin/time elapsed"}
        if m.group(4):
            params["cpu_percent"] = int(m.group(4))
        bench = "jacobi_elapsed" if re.search(r"jacob", cmd, re.IGNORECASE) else None
        col.add(t_us=_t(float(m.group(3)), "s"), line=n, params=params,
                **({"benchmark": bench} if bench else {}))
        return
    raise Refused(col.path, 0, "no 'user: .. system: .. elapsed: ..' line")


def parse_matrix_text(text: str, col: Collector):
    """'grid: (X Y Z),matrix sizes: AxBxC, mintime: T' and 'dim matrix: AxBxC,mintime: T'."""
    unit = col.hints.get("time_unit", "s")
    for n, line in numbered_lines(text):
        s = line.strip()
        if m := re.match(r"grid:\s*\((\d+)\s+(\d+)\s+(\d+)\)\s*,\s*matrix sizes:\s*(\S+?)\s*,\s*mintime:\s*([-\d.eE+]+)", s):
            g = [int(x) for x in m.groups()[:3]]
            col.add(t_us=_t(float(m.group(5)), unit), np=g[0] * g[1] * g[2], line=n,
                    algorithm="virtual_topology",
                    params={"grid": "x".join(map(str, g)), "matrix": m.group(4)})
        elif m := re.match(r"dim matrix:\s*(\S+?)\s*,\s*mintime:\s*([-\d.eE+]+)", s):
            col.add(t_us=_t(float(m.group(2)), unit), line=n, algorithm="no_topology",
                    params={"matrix": m.group(1)})
        elif s and not s.lower().startswith(("grid,", "grid\t")) and n > 1:
            raise Refused(col.path, n, f"'{s[:40]}' is neither a 'grid:' nor a 'dim matrix:' line")
    col.facts.setdefault("benchmark", "matrix_add")


FORMATS = {
    "imb": parse_imb, "osu": parse_osu, "table": parse_table, "values": parse_values,
    "jacobi": parse_jacobi, "rank-times": parse_rank_times, "pairs": parse_pairs,
    "time": parse_time_line, "matrix-text": parse_matrix_text,
}
NOT_DATA = {".md", ".rst", ".pdf", ".png", ".jpg", ".jpeg", ".svg", ".ipynb", ".py", ".c", ".h",
            ".sh", ".job", ".slurm", ".xlsx", ".zip", ".gz"}
FORMAT_ALIASES = {"csv": "table", "long": "table", "short": "table", "wide": "table",
                  "ring": "rank-times", "usr-bin-time": "time"}


# ------------------------------------------------------------------------------ entry points
def import_file(path, fmt: str | None = None, hints: dict | None = None,
                notes: list | None = None) -> pd.DataFrame:
    """Tidy rows from one file. Raises Refused (one line: file, line, reason)."""
    path = Path(path)
    hints = dict(hints or {})
    if hints.get("skip"):
        raise Refused(path, 0, f"left out: {hints['skip']}")
    if path.suffix.lower() in NOT_DATA or path.name.upper().startswith(("LICENSE", "README", "PROVENANCE")):
        raise Refused(path, 0, f"documentation or code ({path.name}), not benchmark output")
    text = read_text(path)
    try:
        if fmt:
            fmt = FORMAT_ALIASES.get(fmt, fmt)
            if fmt not in FORMATS:
                raise Refused(path, 0, f"unknown format '{fmt}'; known: {sorted(FORMATS)}")
            if not text.strip():
                raise Refused(path, 0, "empty file")
        else:
            fmt = hints.get("format") or detect_format(text, path)
        col = Collector(path, hints, fmt)
        FORMATS[fmt](text, col)
        df = col.table()
        if notes is not None:
            notes.extend(col.notes)
        return df
    except DataFormatError:
        raise
    except (ValueError, IndexError, KeyError, TypeError, ZeroDivisionError, OverflowError,
            AttributeError, statistics.StatisticsError, csv.Error) as e:
        doing = f"reading it as {fmt}" if fmt else "detecting its format"
        raise Refused(path, 0, f"internal error while {doing}: {type(e).__name__}: {e}") from e


def iter_files(paths) -> list[Path]:
    """Files named, and every file under directories named (sorted; hidden files skipped)."""
    out = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(f for f in p.rglob("*") if f.is_file()
                              and not any(part.startswith(".") for part in f.relative_to(p).parts)))
        else:
            out.append(p)
    return out


def describe(df: pd.DataFrame) -> str:
    """'412 rows: bcast (core, socket), np 2..48, sizes 1..1048576 B'."""
    if df.empty:
        return "0 rows"
    benches = ", ".join(sorted(df.benchmark.unique()))
    maps = ", ".join(sorted(df.mapping.unique()))
    return (f"{len(df)} rows: {benches} ({maps}), np {df.np.min()}..{df.np.max()}, "
            f"sizes {df.size_bytes.min()}..{df.size_bytes.max()} B")


def is_finite_table(df: pd.DataFrame) -> bool:
    return bool(df[["t_us", "t_min_us", "t_max_us"]].map(math.isfinite).all().all())
