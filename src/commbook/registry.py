"""What `commbook measure NAME` can run: the kernel registry beside the CLI.

A kernel's options, defaults and help live once, in its C option table (``CB_OPTIONS`` in
``kernels_c/<name>.c``; the kernel prints the same table with ``--help``). This module reads
that table from the source and adds only what is about the command line: which 0/1 options are
shown as switches (``--echo``), which are negated (``--no-validate``), which are hidden because
they exist for tests (help text starting with "testing only"). `tests/test_registry.py` compares
the table read here with what the compiled kernel prints.

Chapter glue that runs after a kernel (its summary line, an MPI library's algorithm selection)
is imported inside the hooks, so building the CLI parser stays cheap.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable

from . import c_tables, config

HIDDEN = argparse.SUPPRESS  # help text of testing-only options: kept out of --help


@dataclass(frozen=True)
class COption:
    """One row of a kernel's C option table."""

    name: str
    default: str
    help: str

    @property
    def testing_only(self) -> bool:
        return self.help.lower().startswith("testing only")


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
    summary: Callable[[object], str] | None = None


@lru_cache(maxsize=None)
def c_option_table(path: Path, table: str = "CB_OPTIONS") -> tuple[COption, ...]:
    """The rows of `static const cb_optspec TABLE[] = {{"name", "default", "help"}, ...}` in a C file."""
    return tuple(
        COption(*row)
        for row in c_tables.string_rows(Path(path), "cb_optspec", table, ("name", "default", "help"), "option")
    )


def kernel_options(
    source: str,
    table: str = "CB_OPTIONS",
    file: str | None = None,
    *,
    switches: tuple[str, ...] = (),
    negations: dict[str, str] | None = None,
    order: tuple[str, ...] = (),
) -> list[Option]:
    """The CLI options of a kernel, made from its C table.

    switches: 0/1 options shown as a flag that sets 1 (``--echo``); negations: flag -> option
    set to 0 (``{"--no-validate": "validate"}``); order: options listed first in --help."""
    path = config.kernels_dir() / (file or f"{source}.c")
    rows = {r.name: r for r in c_option_table(path, table)}
    negated = {name: flag for flag, name in (negations or {}).items()}
    names = [n for n in order if n in rows] + [n for n in rows if n not in order]
    out = []
    for name in names:
        row = rows[name]
        help_text = HIDDEN if row.testing_only else row.help
        if name in negated:
            shown = help_text if help_text is HIDDEN else f"--{name} 0 ({row.help})"
            out.append(Option(negated[name], name, shown, flag_only=True, set_value=0))
        elif name in switches:
            shown = help_text if help_text is HIDDEN else re.sub(r"^1:\s*", "", row.help)
            out.append(Option(f"--{name}", name, shown, flag_only=True))
        else:
            # not passed unless given: the kernel applies its own default (some options
            # exclude each other, e.g. jacobi's --grid and --decomp)
            shown = help_text if help_text is HIDDEN else f"{help_text} (default {row.default})"
            out.append(Option(f"--{name}", name, shown))
    return out


KERNELS: dict[str, KernelSpec] = {}


def register(spec: KernelSpec) -> KernelSpec:
    KERNELS[spec.name] = spec
    return spec


def _ring_summary(out) -> str:
    from .run_lines import ring

    return ring(out)


def _matrix_add_summary(out) -> str:
    from .run_lines import matrix_add

    return matrix_add(out)


def _stream_summary(out) -> str:
    from .run_lines import stream

    return stream(out)


def _jacobi_summary(out) -> str:
    from .models.jacobi import summary_line

    return summary_line(out)


def _collective_prepare(op: str, table: str, file: str | None):
    # the library choice needs the algorithm list even when the user gave none: the kernel's own
    default = {r.name: r.default for r in c_option_table(config.kernels_dir() / (file or f"{op}.c"), table)}[
        "algorithm"
    ]

    def prepare(options: dict) -> tuple[dict, dict]:
        from .collective_runs import prepare_for

        return prepare_for(op)({**options, "algorithm": options.get("algorithm") or default})

    return prepare


def _collective_summary(op: str):
    def summary(out) -> str:
        from .collective_runs import run_summary

        return run_summary(op, out)

    return summary


register(
    KernelSpec(
        "pingpong",
        "pingpong",
        "ping-pong latency and bandwidth between ranks 0 and 1",
        kernel_options("pingpong", switches=("hugepages", "echo"), negations={"--no-validate": "validate"}),
    )
)

register(
    KernelSpec(
        "bandwidth",
        "bandwidth",
        "streaming bandwidth one way (uni) and both ways at once (bi), for one or several pairs of ranks",
        kernel_options("bandwidth"),
    )
)

register(
    KernelSpec(
        "ring",
        "ring",
        "messages both ways round a periodic 1-D Cartesian ring, P steps per ring",
        kernel_options("ring", switches=("nonblocking", "ssend", "barrier-per-ring")),
        summary=_ring_summary,
    )
)

register(
    KernelSpec(
        "matrix-add",
        "matrix_add",
        "C = A + B on 3-D matrices: scatter, add, gather over a process grid",
        kernel_options("matrix_add"),
        summary=_matrix_add_summary,
    )
)

for _op, _help, _table, _file in [
    (
        "bcast",
        "broadcast by hand (linear, chain, pipeline, binary, binomial, scatter-allgather) against MPI_Bcast",
        "CB_OPTIONS",
        None,
    ),
    ("gather", "gather by hand (linear, binomial) against MPI_Gather", "CB_OPTIONS", None),
    (
        "allreduce",
        "allreduce by hand (butterfly in both bit orders, ring, rabenseifner) against MPI_Allreduce",
        "CC_ALLREDUCE_OPTIONS",
        "collectives_algos.c",
    ),
    ("allgather", "MPI_Allgather, OSU-style, with the library's algorithm forced and read back", "CB_OPTIONS", None),
    ("alltoall", "MPI_Alltoall, OSU-style, with the library's algorithm forced and read back", "CB_OPTIONS", None),
    (
        "reduce_scatter",
        "MPI_Reduce_scatter, OSU-style, with the library's algorithm forced and read back",
        "CB_OPTIONS",
        None,
    ),
]:
    register(
        KernelSpec(
            _op.replace("_", "-"),  # the command: commbook measure reduce-scatter
            _op,
            _help,
            kernel_options(_op, _table, _file, switches=("trace", "monitor")),
            prepare=_collective_prepare(_op, _table, _file),
            summary=_collective_summary(_op),
        )
    )

register(
    KernelSpec(
        "jacobi",
        "jacobi3d",
        "7-point Jacobi sweeps on an L^3 grid over a Cartesian process grid",
        kernel_options(
            "jacobi3d", switches=("weak",), negations={"--no-check": "check"}, order=("L", "sweeps", "grid", "decomp")
        ),
        summary=_jacobi_summary,
    )
)

register(
    KernelSpec(
        "stream",
        "stream",
        "STREAM-like memory bandwidth (copy, scale, add, triad) on every rank",
        kernel_options("stream"),
        default_np=1,
        summary=_stream_summary,
    )
)
