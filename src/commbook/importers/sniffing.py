"""Reading a file's text safely, what its command line and name say, its separator, its format."""

from __future__ import annotations

import csv
import re
from collections import Counter
from pathlib import Path

from ..data import MAX_INPUT_BYTES, read_regular_file
from .vocabulary import (
    ALIAS_WORDS,
    COLL_TUNED,
    DECIMAL_COMMA,
    MACHINE_PATTERNS,
    Refused,
    canonical_mapping,
    is_number,
    norm_name,
    parse_number,
)

MAX_BYTES = MAX_INPUT_BYTES  # 50 times the largest ORFEO file: anything bigger is not a benchmark log
MAX_LINE = 100_000  # characters; the longest ORFEO line has about 2,000


def read_text(path) -> str:
    """The file's text: BOM removed, CRLF and CR made LF; binary, special and huge files refused.

    Only regular files are opened (a FIFO would block, /dev/zero never ends), and at most
    MAX_BYTES are read, so every refusal comes within seconds."""
    path = Path(path)
    raw = read_regular_file(path, Refused, MAX_BYTES)
    if b"\x00" in raw:
        line = raw[: raw.index(b"\x00")].count(b"\n") + 1
        raise Refused(path, line, "binary data (NUL byte); not a text benchmark output")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
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
    order = [
        ("allreduce", "allreduce"),
        ("pingpong", "pingpong"),
        ("broadcast", "bcast"),
        ("bcast", "bcast"),
        ("barrier", "barrier"),
        ("allgather", "allgather"),
        ("gather", "gather"),
        ("scatter", "scatter"),
        ("reduce", "reduce"),
        ("latenc", "latency"),
        ("p2p", "latency"),
        ("ring", "ring"),
        ("matrix", "matrix_add"),
        ("jacobi", "jacobi"),
    ]
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
                cand = "_".join(words[i : i + j])
                if norm_name(cand) in ALIAS_WORDS or any(
                    norm_name(cand) == norm_name(a) for table in COLL_TUNED.values() for a in table
                ):
                    if cand not in ("core", "node", "socket"):
                        out.setdefault("alg_token", cand)
    tokens = set(re.split(r"[^a-z0-9]+", name)) | set(re.split(r"[^a-z0-9]+", where))
    for word, mapping in (
        ("core", "core"),
        ("bycore", "core"),
        ("socket", "socket"),
        ("bysocket", "socket"),
        ("sock", "socket"),
        ("node", "node"),
        ("bynode", "node"),
    ):
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
            out["transport"] = ("ob1-" + word) if word in ("vader",) or (word == "tcp" and "ob1" in name) else word
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
        dc = sep != "," and any(DECIMAL_COMMA.match(f.strip().strip('"')) for ln in sample for f in split(ln, sep))
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
    if re.search(
        r"Benchmarking\s+\w+|#?\s*\"?(X\.)?bytes\"?\s*[,;\t ]\s*\"?#?\s*(X\.)?repetition", head, re.IGNORECASE
    ):
        return "imb"
    if re.search(r"^# OSU MPI", head, re.MULTILINE) or (
        re.search(r"latency between core|Testing with cores|^\d+:\s*$", head, re.MULTILINE | re.IGNORECASE)
        and sum(bool(re.fullmatch(r"\s*\d+\s+[-+\d.eE]+\s*", ln)) for ln in lines[:200]) > 3
    ):
        return "osu"
    body = lines[1:] if lines and not is_number(lines[0]) else lines
    if (
        body
        and all(is_number(ln) for ln in body)
        and all(is_number(ln) or re.fullmatch(r"\s*[A-Za-z_]+\s*", ln) for ln in lines[:1])
    ):
        return "values"
    sep, dc = sniff(lines[:40])
    first = split(lines[0], sep)
    if len(first) == 2 and all(is_number(f, dc) for f in first):
        col = [split(ln, sep) for ln in lines]
        if all(len(c) == 2 and all(is_number(f, dc) for f in c) for c in col):
            ranks = [parse_number(c[0]) for c in col]
            return "rank-times" if rank_blocks(ranks) else "pairs"
    return "table"


def rank_blocks(ranks: list) -> list[tuple[int, int]] | None:
    """[(start, P), ...] when the first column is blocks of ranks {0..P-1} for P = 1, 2, 3, ..."""
    blocks, i, p = [], 0, 1
    while i < len(ranks):
        block = ranks[i : i + p]
        if len(block) < p or sorted(block) != list(range(p)):
            return None
        blocks.append((i, p))
        i, p = i + p, p + 1
    return blocks if len(blocks) >= 2 else None
