"""The one tidy schema every measurement in the book uses, and its CSV files.

A measurement file is CSV with a metadata header of ``# key: value`` lines (machine, CPU,
MPI library, date, command, ...) followed by one header row and the data rows. Each row is
one (benchmark, algorithm, mapping, transport, np, size) point:

    benchmark    pingpong, ring, matrix_add, bcast, gather, allreduce, barrier, reduce,
                 scatter, latency, jacobi, stream ...
    algorithm    e.g. "blocking", "binomial", "library:6", "" when not applicable
    mapping      core | socket | node | self | oversubscribed | unknown  (how ranks were placed)
    transport    e.g. "vader", "ob1-tcp", "ucx", "shm", "" when unknown
    np           number of MPI processes
    size_bytes   message size in bytes (Jacobi: bytes of one halo face; see params)
    t_us         the time in microseconds (median of repetitions when there are several)
    t_min_us, t_max_us   its spread (equal to t_us for a single value)
    reps         how many repetitions t_us summarises
    machine      "orfeo-thin", "orfeo-gpu", "orfeo-epyc", or this machine's name
    mpi_library  e.g. "Open MPI 5.0.11"
    source       where the row came from: a file, a repository path, a document
    params       extra benchmark parameters as "key=value;key=value" (L=64;sweeps=10;mlups=..)

Writes are atomic (temporary file in the same folder, then ``os.replace``), so an interrupted
run never leaves half a file where a good one was; files get the user's umask like any other.
Commands that measure check their output path before they start (:func:`check_output_path`) and
never lose a measurement to a failed write (:func:`write_measurements_keeping`).
"""

from __future__ import annotations

import csv
import io
import os
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from . import config

COLUMNS = [
    "benchmark",
    "algorithm",
    "mapping",
    "transport",
    "np",
    "size_bytes",
    "t_us",
    "t_min_us",
    "t_max_us",
    "reps",
    "machine",
    "mpi_library",
    "source",
    "params",
]
INT_COLUMNS = ["np", "size_bytes", "reps"]
FLOAT_COLUMNS = ["t_us", "t_min_us", "t_max_us"]
TEXT_COLUMNS = [c for c in COLUMNS if c not in INT_COLUMNS + FLOAT_COLUMNS]
MAPPINGS = {"core", "socket", "node", "self", "oversubscribed", "unknown"}
# (column, smallest possible value, what is wrong below it): refused wherever a file is read
IMPOSSIBLE = [
    ("t_us", 0, "negative time"),
    ("t_min_us", 0, "negative time"),
    ("t_max_us", 0, "negative time"),
    ("size_bytes", 0, "negative message size"),
    ("np", 1, "fewer than one process"),
    ("reps", 1, "fewer than one repetition"),
]


class OutputPathError(ValueError):
    """An output path that cannot be written: found before a measurement starts."""


class SavedElsewhere(OSError):
    """The requested file could not be written; the rows were saved at .saved instead."""

    def __init__(self, wanted, saved, reason):
        self.wanted, self.saved, self.reason = Path(wanted), Path(saved), reason
        super().__init__(f"could not write {wanted} ({reason}); the results are kept in {saved}")


class DataFormatError(ValueError):
    """A data file that cannot be read; the message names the file and the line."""

    def __init__(self, path, line, what):
        self.path, self.line, self.what = str(path), line, what
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {what}")


@dataclass
class Measurements:
    """A tidy table plus the metadata that says where and how it was measured."""

    table: pd.DataFrame
    meta: dict = field(default_factory=dict)


def empty_table() -> pd.DataFrame:
    return normalise(pd.DataFrame(columns=COLUMNS))


def normalise(df: pd.DataFrame, path="(table)") -> pd.DataFrame:
    """Return df with exactly the schema's columns, in order, with the schema's types.

    Missing text columns become "", missing spread columns copy t_us, missing reps is 1.
    Values that cannot be converted raise DataFormatError naming the row.
    """
    df = df.copy()
    unknown = [c for c in df.columns if c not in COLUMNS]
    if unknown:
        raise DataFormatError(path, 0, f"unknown column(s) {unknown}; expected {COLUMNS}")
    for required in ("benchmark", "np", "t_us"):
        if required not in df.columns:
            raise DataFormatError(path, 0, f"missing required column '{required}'")
    if "t_min_us" not in df.columns:
        df["t_min_us"] = df["t_us"]
    if "t_max_us" not in df.columns:
        df["t_max_us"] = df["t_us"]
    defaults = {"size_bytes": 0, "reps": 1}
    for c in COLUMNS:
        if c not in df.columns:
            df[c] = defaults.get(c, "")
    for c in INT_COLUMNS + FLOAT_COLUMNS:
        converted = pd.to_numeric(df[c], errors="coerce")
        bad = converted.isna() & df[c].notna() & (df[c].astype(str).str.strip() != "")
        missing = converted.isna()
        if bad.any() or (missing.any() and c in ("np", "t_us")):
            i = int((bad | missing).to_numpy().nonzero()[0][0])
            raise DataFormatError(path, i + 2, f"column '{c}' has '{df[c].iloc[i]}', not a number")
        if c in INT_COLUMNS:
            df[c] = converted.fillna(defaults.get(c, 0)).astype("int64")
        else:
            df[c] = converted.astype("float64")
    for c in TEXT_COLUMNS:
        df[c] = df[c].fillna("").astype(str)
    return df[COLUMNS].reset_index(drop=True)


def write_measurements(path, table: pd.DataFrame, meta: dict | None = None) -> Path:
    """Write a tidy table with its metadata header, atomically."""
    path = Path(path)
    table = normalise(table)
    buf = io.StringIO()
    for key, value in (meta or {}).items():
        if value is None:  # unknown: left out, never written as the word None
            continue
        text = " ".join(str(value).split())  # one line per key
        buf.write(f"# {key}: {text}\n")
    table.to_csv(buf, index=False, lineterminator="\n")
    atomic_write_text(path, buf.getvalue())
    return path


def write_measurements_keeping(path, table: pd.DataFrame, meta: dict | None = None) -> Path:
    """write_measurements, but a failed write never loses the rows: they go next to the
    requested path, or else to a temporary file, and SavedElsewhere says where."""
    path = Path(path)
    try:
        return write_measurements(path, table, meta)
    except OSError as e:
        reason = e.strerror or str(e)
    try:
        beside = path.with_name(f"{path.stem}.unsaved-{os.getpid()}{path.suffix or '.csv'}")
        write_measurements(beside, table, meta)
        saved = beside
    except OSError:
        fd, tmp = tempfile.mkstemp(prefix=f"commbook-{path.stem}-", suffix=path.suffix or ".csv")
        os.close(fd)
        saved = write_measurements(tmp, table, meta)
    raise SavedElsewhere(path, saved, reason)


def check_output_path(path) -> Path:
    """Raise OutputPathError unless a file can be created at path (before a long measurement).

    Catches a directory where the file should be, a file where a folder should be, and a
    folder that cannot be written (read-only, no permission), by creating and removing a
    temporary file there. Missing folders are created, as the write would."""
    path = Path(path)
    if path.is_dir():
        raise OutputPathError(f"--out {path}: is a directory; give a file name")
    for parent in path.parents:
        if parent.exists() and not parent.is_dir():
            raise OutputPathError(f"--out {path}: {parent} is a file, not a directory")
        if parent.exists():
            break
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".check", dir=path.parent)
        os.close(fd)
        os.unlink(tmp)
    except OSError as e:
        raise OutputPathError(f"--out {path}: cannot write in {path.parent} ({e.strerror or e})") from None
    return path


def _umask() -> int:
    mask = os.umask(0)  # the only portable way to read it is to set it
    os.umask(mask)
    return mask


def atomic_write_text(path, text: str) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; a written file follows the umask
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


MAX_INPUT_BYTES = 32 << 20  # far beyond any benchmark table; bigger inputs are refused at once


def read_regular_file(path, error=DataFormatError, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of a regular file of at most limit bytes; anything else raises error(path, 0, why)
    at once (a FIFO would block, /dev/zero never ends)."""
    path = Path(path)
    try:
        st = path.stat()
    except FileNotFoundError:
        raise error(path, 0, "no such file") from None
    except OSError as e:
        raise error(path, 0, f"cannot read ({e.strerror})") from None
    if stat.S_ISDIR(st.st_mode):
        raise error(path, 0, "is a directory")
    if not stat.S_ISREG(st.st_mode):
        kind = (
            "a FIFO"
            if stat.S_ISFIFO(st.st_mode)
            else "a device"
            if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
            else "a socket"
            if stat.S_ISSOCK(st.st_mode)
            else "special"
        )
        raise error(path, 0, f"not a regular file ({kind})")
    try:
        with open(path, "rb") as f:
            raw = f.read(limit + 1)
    except OSError as e:
        raise error(path, 0, f"cannot read ({e.strerror})") from None
    if len(raw) > limit:
        raise error(path, 0, f"larger than {limit >> 20} MB")
    return raw


def read_metadata_csv(path) -> tuple[dict, int, list[str], list[tuple[int, list[str]]]]:
    """The parts of a CSV file with a `# key: value` metadata header: (metadata, line number of
    the header row, header names, [(line number, fields), ...]). Blank lines are skipped; a
    missing file, non-UTF-8 bytes, no header, or a row with the wrong number of fields raise
    DataFormatError naming the file and the line."""
    path = Path(path)
    raw = read_regular_file(path)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise DataFormatError(path, line, f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    meta, body = {}, []
    for n, line in enumerate(text.splitlines(), start=1):
        if not body and line.startswith("#"):
            key, sep, value = line[1:].partition(":")
            if sep:
                meta[key.strip()] = value.strip()
        elif line.strip():
            body.append((n, line))
    if not body:
        raise DataFormatError(path, 0, "no header row and no data")
    try:
        parsed = list(csv.reader([line for _, line in body]))
    except csv.Error as e:  # e.g. a field longer than csv's limit
        raise DataFormatError(path, 0, f"not a CSV table ({e})") from None
    header_line, header = body[0][0], [h.strip() for h in parsed[0]]
    rows = []
    for (n, _), row in zip(body[1:], parsed[1:]):
        if len(row) != len(header):
            raise DataFormatError(path, n, f"{len(row)} fields but the header has {len(header)}")
        rows.append((n, row))
    return meta, header_line, header, rows


def read_measurements(path) -> Measurements:
    """Read a file written by write_measurements (or by hand in the same form)."""
    path = Path(path)
    meta, header_line, header, rows = read_metadata_csv(path)
    records = [dict(zip(header, row)) for _, row in rows]
    df = pd.DataFrame(records, columns=header)
    try:
        df = normalise(df, path)
    except DataFormatError as e:
        if e.line:  # normalise numbers rows from 2; give the file's own line
            raise DataFormatError(path, rows[e.line - 2][0] if e.line >= 2 else header_line, e.what) from None
        raise
    for column, lowest, what in IMPOSSIBLE:
        bad = (df[column] < lowest).to_numpy().nonzero()[0]
        if len(bad):
            i = int(bad[0])
            raise DataFormatError(path, rows[i][0], f"{what}: {column} = {df[column].iloc[i]:g}")
    return Measurements(df, meta)


def measurement_path(name: str) -> Path:
    """Where a notebook saves what it measured: $COMMBOOK_MEASUREMENTS/<machine>/<name>.csv
    (default ~/.cache/commbook/measurements), never inside the book's sources."""
    from . import machine

    return config.measurements_dir() / machine.name() / f"{name}.csv"


REFERENCE_DIR = config.data_dir() / "reference"


def load_reference(benchmark: str, machine_name: str | None = None) -> Measurements:
    """A measurement shipped in data/reference/<machine>/<benchmark>*.csv (the first machine
    folder that has one, unless machine_name is given)."""
    folders = (
        [REFERENCE_DIR / machine_name] if machine_name else sorted(p for p in REFERENCE_DIR.glob("*") if p.is_dir())
    )
    for folder in folders:
        files = sorted(folder.glob(f"{benchmark}*.csv"))
        if files:
            m = read_measurements(files[0])
            m.meta.setdefault("file", str(files[0].relative_to(REFERENCE_DIR.parent.parent)))
            return m
    raise DataFormatError(
        REFERENCE_DIR,
        0,
        f"no reference measurement of '{benchmark}'" + (f" for machine '{machine_name}'" if machine_name else ""),
    )


def describe(meta: dict, keys=("file", "machine", "cpu", "cores", "mpi_library", "date", "command")) -> str:
    """The metadata lines that say where a measurement comes from, one per line."""
    return "\n".join(f"{k}: {meta[k]}" for k in keys if meta.get(k) not in (None, ""))


def params_to_dict(params: str) -> dict:
    """'L=64;sweeps=10' -> {'L': '64', 'sweeps': '10'}."""
    out = {}
    for item in filter(None, (p.strip() for p in str(params).split(";"))):
        key, _, value = item.partition("=")
        out[key.strip()] = value.strip()
    return out


def dict_to_params(d: dict) -> str:
    return ";".join(f"{k}={v}" for k, v in d.items())


def concat(tables) -> pd.DataFrame:
    tables = [normalise(t) for t in tables]
    return normalise(pd.concat(tables, ignore_index=True)) if tables else empty_table()
