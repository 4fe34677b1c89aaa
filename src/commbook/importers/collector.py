"""Column roles of a table and the Collector that turns parsed rows into a tidy table."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from ..data import COLUMNS, IMPOSSIBLE, MAPPINGS
from .sniffing import infer_from_name
from .vocabulary import (
    COLL_TUNED,
    TIME_FACTORS,
    Refused,
    canonical_algorithm,
    canonical_benchmark,
    canonical_mapping,
    norm_name,
)

# ----------------------------------------------------------------------- column roles (tables)
ROLE_NAMES = {
    "np": {
        "processes",
        "np",
        "nprocs",
        "nproc",
        "procs",
        "processors",
        "cores",
        "idxprocess",
        "numberprocesses",
        "numprocs",
        "numberofprocesses",
        "ranks",
        "p",
    },
    "size_bytes": {
        "messagesize",
        "size",
        "bytes",
        "xbytes",
        "msgsize",
        "dimensionsize",
        "messagesizebytes",
        "sizebytes",
        "messagesizeb",
    },
    "t": {
        "latency",
        "avglatency",
        "avglatencyus",
        "latencyus",
        "avg",
        "avgus",
        "tusec",
        "tavgusec",
        "t",
        "timeus",
        "tus",
        "time",
        "avglat",
        "avgtime",
        "mean",
    },
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
        maps = [canonical_mapping(m or "") for m in pick("mapping", facts.get("mapping"), named.get("mapping"))]
        nps = [r.get("np") or h.get("np") or facts.get("np") for r in rows]  # the file first
        for i, (b, v) in enumerate(zip(benches, nps)):
            if v is None:
                if b in ("pingpong", "latency", "bw", "bibw", "pingping"):
                    nps[i] = 2
                else:
                    raise Refused(self.path, rows[i].get("line", 0), "no process count in the file (give --np)")
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
            ints = {
                c: np.asarray(v, dtype=np.int64)
                for c, v in (
                    ("np", nps),
                    (
                        "size_bytes",
                        [r["size_bytes"] if r.get("size_bytes") is not None else size_default for r in rows],
                    ),
                    ("reps", [reps_forced or r.get("reps") or 1 for r in rows]),
                )
            }
        except (TypeError, ValueError) as e:
            raise Refused(self.path, 0, f"a process count, size or repetition count is not an integer ({e})") from None
        text = lambda v: [str(x) for x in v]  # noqa: E731
        # Built with the schema's types directly (data.normalise is slow on many small files;
        # tests check that normalise leaves these tables unchanged).
        df = pd.DataFrame(
            {
                "benchmark": benches,
                "algorithm": algs,
                "mapping": [m or "unknown" for m, _ in maps],
                "transport": text(pick("transport", facts.get("transport"), named.get("transport"), "")),
                "np": ints["np"],
                "size_bytes": ints["size_bytes"],
                "t_us": np.asarray(t, dtype=float),
                "t_min_us": np.asarray([r.get("t_min_us", r["t_us"]) for r in rows], dtype=float),
                "t_max_us": np.asarray([r.get("t_max_us", r["t_us"]) for r in rows], dtype=float),
                "reps": ints["reps"],
                "machine": text(pick("machine", facts.get("machine"), named.get("machine"), "")),
                "mpi_library": [str(h.get("mpi_library") or facts.get("mpi_library") or "")] * n,
                "source": [str(h.get("source") or self.path)] * n,
                "params": params,
            },
            columns=COLUMNS,
        )
        if not np.isfinite(df[["t_us", "t_min_us", "t_max_us"]].to_numpy()).all():
            raise Refused(self.path, 0, "a time is not a finite number")
        for column, lowest, what in IMPOSSIBLE:
            bad = np.flatnonzero(df[column].to_numpy() < lowest)
            if len(bad):
                i = int(bad[0])
                raise Refused(self.path, rows[i].get("line", 0), f"{what}: {column} = {df[column].iloc[i]:g}")
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


def to_us(value: float, unit: str) -> float:
    return float(value) * TIME_FACTORS[unit]
