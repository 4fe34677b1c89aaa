"""The small formats: one value per line, the course Jacobi code's stdout, rank,time and
np,seconds lines, /usr/bin/time lines, the matrix code's grid lines."""

from __future__ import annotations

import re
import statistics

from .collector import Collector, to_us
from .sniffing import infer_from_command, numbered_lines, rank_blocks
from .vocabulary import Refused, is_number, parse_number


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
        col.add(t_us=to_us(v, unit), np=int(start) + k * int(step), line=n, params={})
        k += 1


def parse_jacobi(text: str, col: Collector):
    """Course Jacobi stdout: grid and dims from the header, one row summarising the sweeps."""
    dims = [int(m.group(1)) for m in re.finditer(r"-Dim Input\s+(\d+)", text)]
    grid = re.search(r"Process grid\s+(\d+)\s+(\d+)\s+(\d+)", text)
    maxt, mint, mlups, first = [], [], [], 0
    for n, line in numbered_lines(text):
        if "Maxtime" not in line:
            continue
        m = re.search(
            r"JacobiMa\s+([-\d.eE+]+)\s+([-\d.eE+]+)\s+([-\d.eE+]+)\s+([-\d.eE+]+)"
            r".*?MLUPs\s+([-\d.eE+]+)",
            line,
        )
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
    params = {
        "grid": "x".join(map(str, g)),
        "L": "x".join(map(str, dims)) if dims else "",
        "sweeps": len(maxt),
        "mlups": statistics.median(mlups),
        "t_min_rank_us": to_us(statistics.median(mint), "s"),
        "stat": "median over sweeps of the slowest rank",
    }
    col.add(
        t_us=to_us(med, "s"),
        t_min_us=to_us(min(maxt), "s"),
        t_max_us=to_us(max(maxt), "s"),
        reps=len(maxt),
        np=np_,
        line=first,
        benchmark="jacobi",
        params=params,
    )
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
    blocks = rank_blocks([r for _, r, _ in vals])
    if not blocks:
        raise Refused(col.path, vals[0][0] if vals else 0, "ranks do not form blocks 0..P-1 for P = 1, 2, 3, ...")
    for start, p in blocks:
        times = [t for _, _, t in vals[start : start + p]]
        col.add(
            t_us=to_us(max(times), unit),
            t_min_us=to_us(min(times), unit),
            t_max_us=to_us(max(times), unit),
            np=p,
            line=vals[start][0],
            params={"stat": "slowest rank; min = fastest rank"},
        )


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
        col.add(
            t_us=to_us(statistics.median(ts), unit),
            t_min_us=to_us(min(ts), unit),
            t_max_us=to_us(max(ts), unit),
            reps=len(ts),
            np=np_,
            line=n,
            params=params,
        )


def parse_time_line(text: str, col: Collector):
    """'/usr/bin/time' summary: the elapsed wall time of the whole command."""
    for n, line in numbered_lines(text):
        m = re.search(
            r"user\s*:\s*([\d.]+)\s+system\s*:\s*([\d.]+)\s+elapsed\s*:\s*([\d.]+)"
            r"(?:\s+CPU\s*:\s*(\d+)%)?(?:\s+CMD\s*:\s*(.*))?",
            line,
        )
        if not m:
            continue
        cmd = m.group(5) or ""
        col.facts.update(infer_from_command(cmd))
        params = {"user_s": float(m.group(1)), "system_s": float(m.group(2)), "timer": "/usr/bin/time elapsed"}
        if m.group(4):
            params["cpu_percent"] = int(m.group(4))
        bench = "jacobi_elapsed" if re.search(r"jacob", cmd, re.IGNORECASE) else None
        col.add(t_us=to_us(float(m.group(3)), "s"), line=n, params=params, **({"benchmark": bench} if bench else {}))
        return
    raise Refused(col.path, 0, "no 'user: .. system: .. elapsed: ..' line")


def parse_matrix_text(text: str, col: Collector):
    """'grid: (X Y Z),matrix sizes: AxBxC, mintime: T' and 'dim matrix: AxBxC,mintime: T'."""
    unit = col.hints.get("time_unit", "s")
    for n, line in numbered_lines(text):
        s = line.strip()
        if m := re.match(
            r"grid:\s*\((\d+)\s+(\d+)\s+(\d+)\)\s*,\s*matrix sizes:\s*(\S+?)\s*,\s*mintime:\s*([-\d.eE+]+)", s
        ):
            g = [int(x) for x in m.groups()[:3]]
            col.add(
                t_us=to_us(float(m.group(5)), unit),
                np=g[0] * g[1] * g[2],
                line=n,
                algorithm="virtual_topology",
                params={"grid": "x".join(map(str, g)), "matrix": m.group(4)},
            )
        elif m := re.match(r"dim matrix:\s*(\S+?)\s*,\s*mintime:\s*([-\d.eE+]+)", s):
            col.add(t_us=to_us(float(m.group(2)), unit), line=n, algorithm="no_topology", params={"matrix": m.group(1)})
        elif s and not s.lower().startswith(("grid,", "grid\t")) and n > 1:
            raise Refused(col.path, n, f"'{s[:40]}' is neither a 'grid:' nor a 'dim matrix:' line")
    col.facts.setdefault("benchmark", "matrix_add")
