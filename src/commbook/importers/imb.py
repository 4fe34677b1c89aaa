"""IMB-MPI1 output: the standard text, and csv/tab/; copies of its tables."""

from __future__ import annotations

import re

from .collector import Collector
from .sniffing import infer_from_command, infer_machine, numbered_lines, sniff, split
from .vocabulary import Refused, canonical_benchmark, norm_name, parse_number


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
            nxt = [ln for _, ln in lines[i + 1 : i + 6] if ln.strip()]
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
            if len(fields) < len(header) and all(not ln.strip() for _, ln in lines[i + 1 :]):
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
        row = {"t_us": t, "line": n, "size_bytes": int(size) if size is not None else 0, "params": {}}
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
