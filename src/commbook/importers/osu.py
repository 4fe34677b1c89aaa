"""OSU micro-benchmark text output (latency, bandwidth, collectives), several blocks per file."""

from __future__ import annotations

import re

from .collector import Collector
from .sniffing import infer_from_command, infer_machine, numbered_lines
from .vocabulary import Refused, canonical_benchmark, norm_name, parse_number

OSU_TITLES = {
    "latency": "latency",
    "bandwidth": "bw",
    "bi-directional bandwidth": "bibw",
    "broadcast": "bcast",
    "barrier": "barrier",
    "gather": "gather",
    "scatter": "scatter",
    "reduce": "reduce",
    "allreduce": "allreduce",
    "allgather": "allgather",
    "all-to-all": "alltoall",
    "alltoall": "alltoall",
    "all-to-all personalized exchange": "alltoall",
    "reduce_scatter": "reduce_scatter",
    "reduce scatter": "reduce_scatter",
    "non-blocking broadcast": "ibcast",
}


def parse_osu(text: str, col: Collector):
    """OSU micro-benchmark text: '# OSU MPI ... Test', '# Size  Latency (us)', value lines."""
    col.facts.update(infer_from_command(text))
    bench, names, context, block, fresh_marker = None, None, {}, 0, False
    lines = numbered_lines(text)
    for i, (n, line) in enumerate(lines):
        s = line.strip()
        if not s:
            continue
        if m := re.match(
            r"#\s*OSU MPI[-\w]*\s+(.*?)\s*(Latency|Bandwidth|Bi-Directional Bandwidth)?\s*Test", s, re.IGNORECASE
        ):
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
        cols = names or (
            ["Size", "Latency (us)"] if len(nums) == 2 else ["Avg Latency(us)"] if len(nums) == 1 else None
        )
        if cols is None or len(cols) != len(nums):
            if cols and len(nums) < len(cols) and all(not ln.strip() for _, ln in lines[i + 1 :]):
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
