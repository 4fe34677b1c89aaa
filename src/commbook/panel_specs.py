"""What a chapter's run panel lets a reader change, checked without a browser.

A :class:`PanelSpec` names the chapter's kernel, its controls (each bounded, its label giving
its unit) and how the values become kernel options, one run per point of the swept control (the
progress bar counts them) and the equivalent ``commbook measure`` command. :func:`check` turns
the raw values a panel holds into checked ones or raises :class:`PanelInputError` with one line
naming what is wrong; nothing here starts a process.
"""

from __future__ import annotations

import importlib
import math
import re
import shlex
from dataclasses import dataclass
from typing import Callable

from . import machine, mpi_env, units

MAX_SIZE = 64 * 2**20  # the ping-pong kernel's largest message
MAX_POINTS = 40  # runs of one Run click
MAX_PROCESSES = 64


class PanelInputError(ValueError):
    """A value a panel refuses; the message is one line naming the control and the bound."""


@dataclass(frozen=True)
class Control:
    name: str  # key in the values dict
    label: str  # what the panel shows, with the unit
    kind: str  # "int", "ints", "choice", "sizes", "bytes", "grids", "text"
    default: object
    lo: float = 0
    hi: float = 0
    choices: tuple = ()
    help: str = ""


@dataclass
class PanelSpec:
    chapter: str
    kernel: str  # registry name: `commbook measure KERNEL`
    controls: list[Control]
    sweep: str  # control whose points are one run each
    points: Callable[[dict], list]  # checked values -> the swept points
    options: Callable[[dict, object], dict]  # (checked values, one point) -> kernel options
    command_options: Callable[[dict], dict]  # checked values -> `commbook measure` flags
    x: str = "size_bytes"  # column the figure puts on its x axis
    x_label: str = "message size n (bytes)"
    x_log: bool = True
    y: str = "t_us"  # a tidy column or a params key (jacobi's mlups)
    y_label: str = "time t (µs)"
    point_values: Callable[[dict, object], dict] = lambda values, point: values
    validate: Callable[[dict], None] | None = None  # checks across controls; PanelInputError

    def kernel_name(self, values: dict) -> str:
        """The registry name: the chosen operation when the panel has one."""
        return values.get("operation", self.kernel)

    def control(self, name: str) -> Control:
        return next(c for c in self.controls if c.name == name)

    def defaults(self) -> dict:
        return {c.name: c.default for c in self.controls}


# --- parsing, one line per refusal ------------------------------------------------------------


def parse_bytes(text: str, what: str = "size") -> int:
    """'4', '64K', '1M' -> bytes."""
    try:
        return units.parse_size(text)
    except ValueError as e:
        raise PanelInputError(f"{what}: {e}") from None


def parse_sizes(text: str, lo: int, hi: int, label: str = "sizes") -> list[int]:
    """commbook.units.parse_sizes ('MIN:MAX' doubling, as the kernels read it, or 'a,b,c'),
    bounded to lo..hi and MAX_POINTS runs."""
    try:
        sizes = units.parse_sizes(text)
    except ValueError as e:
        raise PanelInputError(f"{label}: {e}") from None
    bad = [s for s in sizes if not lo <= s <= hi]
    if bad:
        raise PanelInputError(f"{label}: {bad[0]} B is outside {lo} B .. {units.format_bytes(hi, exact=True)}")
    if len(sizes) > MAX_POINTS:
        raise PanelInputError(f"{label}: {len(sizes)} sizes, at most {MAX_POINTS} in one run")
    return sizes


def parse_int(text, lo: int, hi: int, label: str) -> int:
    try:
        value = int(str(text).strip())
    except ValueError:
        raise PanelInputError(f"{label}: '{text}' is not a whole number") from None
    if not lo <= value <= hi:
        raise PanelInputError(f"{label}: {value} is outside {lo} .. {hi}")
    return value


def parse_grid(text: str, processes: int, label: str = "process grid") -> str:
    text = str(text).strip().lower()
    if text in ("auto", "0x1x1"):
        return text
    m = re.fullmatch(r"(\d+)x(\d+)x(\d+)", text)
    if not m:
        raise PanelInputError(f"{label}: '{text}' is not AxBxC or auto")
    if math.prod(int(g) for g in m.groups()) != processes:
        raise PanelInputError(f"{label}: {text} has {math.prod(int(g) for g in m.groups())} processes, not {processes}")
    return text


def check(spec: PanelSpec, raw: dict) -> dict:
    """The panel's raw values, checked and converted; PanelInputError (one line) otherwise."""
    out = {}
    for c in spec.controls:
        value = raw.get(c.name, c.default)
        if c.kind == "int":
            out[c.name] = parse_int(value, int(c.lo), int(c.hi), c.label)
        elif c.kind == "choice":
            if value not in c.choices:
                raise PanelInputError(f"{c.label}: '{value}' is not one of {', '.join(map(str, c.choices))}")
            out[c.name] = value
        elif c.kind == "sizes":
            out[c.name] = parse_sizes(value, int(c.lo), int(c.hi), c.label)
        elif c.kind == "bytes":
            n = parse_bytes(value, c.label)
            if not c.lo <= n <= c.hi:
                raise PanelInputError(
                    f"{c.label}: {n} B is outside {int(c.lo)} B .. {units.format_bytes(int(c.hi), exact=True)}"
                )
            out[c.name] = n
        elif c.kind == "grids":
            items = [p for p in str(value).replace(" ", "").split(",") if p]
            if not items or len(items) > MAX_POINTS:
                raise PanelInputError(f"{c.label}: give 1 to {MAX_POINTS} grids (e.g. 2x1x1,1x2x1)")
            out[c.name] = items  # checked against the processes below
        elif c.kind == "ints":
            items = [p for p in str(value).replace(" ", "").split(",") if p]
            if not items:
                raise PanelInputError(f"{c.label}: empty; give a list (e.g. 32,64)")
            vals = sorted({parse_int(p, int(c.lo), int(c.hi), c.label) for p in items})
            if len(vals) > MAX_POINTS:
                raise PanelInputError(f"{c.label}: {len(vals)} values, at most {MAX_POINTS}")
            out[c.name] = vals
        else:
            out[c.name] = str(value).strip()
    if "grids" in out:
        out["grids"] = [parse_grid(g, out.get("processes", 1)) for g in out["grids"]]
    if spec.validate:
        spec.validate(out)
    return out


def command(spec: PanelSpec, values: dict) -> str:
    """The `commbook measure` command that measures what the panel would (for the static book)."""
    flags = spec.command_options(values)
    words = ["commbook", "measure", spec.kernel_name(values)]
    for k, v in flags.items():
        words += [f"--{k}", str(v)]
    return " ".join(shlex.quote(w) for w in words)


def size_range(sizes: list[int]) -> str:
    """The kernel's MIN:MAX when sizes are MIN doubling up to MAX, else a list."""
    lo, hi = min(sizes), max(sizes)
    if parse_sizes(f"{lo}:{hi}", lo, hi) == sizes:
        return f"{units.format_bytes(lo, compact=True)}:{units.format_bytes(hi, compact=True)}"
    return ",".join(units.format_bytes(s, compact=True) for s in sizes)


# --- what this machine offers -----------------------------------------------------------------


def emulated_nodes() -> int:
    """How many emulated nodes are up (0: none). Hook for `commbook nodes`: reads its status API
    (`commbook.nodes.status()`, a mapping with the list "up") once that module exists."""
    try:
        nodes = importlib.import_module("commbook.nodes")
        status = nodes.status()
    except Exception:  # no such module yet, or nothing running: no node placement
        return 0
    up = status.get("up", []) if isinstance(status, dict) else getattr(status, "up", [])
    return len(up) if isinstance(up, (list, tuple)) else int(up or 0)


def placements() -> tuple[str, ...]:
    """The --map-by choices this machine has: core always, socket with two sockets or more,
    node when emulated nodes are up."""
    return ("core",) + (("socket",) if machine.sockets() > 1 else ()) + (("node",) if emulated_nodes() > 1 else ())


def map_by(placement: str) -> str | None:
    """The cluster's --map-by for a placement (None: the launcher's default, by core)."""
    return placement if placement != "core" else None


def max_processes() -> int:
    return min(MAX_PROCESSES, max(2, 4 * mpi_env.cores()))


# controls several chapters' panels share


def placement_control() -> Control:
    return Control(
        "placement",
        "placement (mpiexec --map-by)",
        "choice",
        "core",
        choices=placements(),
        help="where the ranks sit: cores, sockets, nodes",
    )


def repetitions_control(default: int = 3) -> Control:
    return Control("repetitions", "repetitions (timed runs per point)", "int", default, 1, 20)


def processes_list_control(default: str, lo: int = 1) -> Control:
    return Control("processes", "processes (MPI ranks, list)", "ints", default, lo, max_processes())


def with_processes(values: dict, P: int) -> dict:
    return {**values, "processes": P}
