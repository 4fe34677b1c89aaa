"""CSV tables with a header row: long, short and wide collective tables, latency tables,
ring/matrix/Jacobi summaries."""

from __future__ import annotations

import csv
import re
from collections import Counter

from .collector import ROLE_NAMES, Collector, assign_roles, to_us
from .sniffing import infer_from_command, infer_from_name, infer_machine, numbered_lines, sniff, split
from .vocabulary import (
    COLL_TUNED,
    Refused,
    canonical_algorithm,
    canonical_benchmark,
    is_number,
    norm_name,
    parse_number,
    time_unit_of,
)


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
        return (
            len(fields) >= 2
            and nums >= max(1, len(fields) // 2)
            and is_number(next((f for f in fields if f.strip().strip('"')), ""), dc)
            or (len(fields) >= 2 and nums >= len(fields) - 2 and nums >= 2)
        )

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
        for _, ln in lines[: first - 1]:
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
                raise Refused(col.path, header_line, f"column '{header[roles['t']]}' has no unit (give time_unit)")
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
            if len(fields) > len(header) and all(not f.strip() for f in fields[len(header) :]):
                fields = fields[: len(header)]
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
                col.add(**{**base, "params": dict(base["params"]), "algorithm": alg, "t_us": to_us(v, unit)})
            continue
        raw = get("t")
        v = parse_number(raw, dc)
        if v is None:
            if raw.strip() == "":
                col.note("rows with an empty time skipped")
                continue
            raise Refused(col.path, n, f"column '{header[roles['t']]}' has '{raw}', not a number")
        row = {**base, "t_us": to_us(v, unit)}
        for role, key in (("t_min", "t_min_us"), ("t_max", "t_max_us")):
            if (raw := get(role)) is not None and (x := parse_number(raw, dc)) is not None:
                row[key] = to_us(x, unit)
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
        col.note(f"header has {len(header)} names but rows have {width} fields; used the first {width}: {kept}")
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
