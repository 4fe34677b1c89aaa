"""The file behind commbook.algorithms: one per collective algorithm (what it is called in the
models, the kernels, Open MPI's coll_tuned and MPICH, its description, colour and aliases),
read from the table data/collective_algorithms.csv, a row per record. Read them through
:mod:`commbook.algorithms`, which documents where the names come from."""

from __future__ import annotations

import csv
from dataclasses import dataclass, fields
from pathlib import Path

from . import config, mpi_env

TABLE = "collective_algorithms.csv"


@dataclass(frozen=True)
class Algorithm:
    operation: str  # bcast, gather, scatter, reduce, allreduce, barrier, allgather, alltoall, reduce_scatter
    model: str | None = None  # name in commbook.models.collective_schedules.ALGORITHMS
    kernel: str | None = None  # label in the kernel's cc_algo table
    ompi_id: int | None = None  # Open MPI coll_tuned number
    ompi_name: str | None = None  # Open MPI's name for that number
    mpich: str | None = None  # MPICH's MPIR_CVAR_<OP>_INTRA_ALGORITHM value
    mpich_index: int | None = None  # its position in MPICH's list of values (0 is "auto")
    smpi: str | None = None  # SimGrid SMPI's algorithm of the Open MPI row's schedule (--cfg=smpi/<op>:<name>)
    description: str = ""
    colour: str | None = None  # matplotlib colour of its curves (None: one by position)
    aliases: tuple[str, ...] = ()  # other spellings in the students' files

    @property
    def label(self) -> str:
        """The tidy-data label: Open MPI's name with '-' as '_' ('in-order_binary' ->
        'in_order_binary'), else the MPICH, model or kernel name."""
        name = self.ompi_name or self.mpich or self.model or self.kernel or ""
        return name.replace("-", "_")


class RecordError(ValueError):
    """A row of the table that is not a record; the message names the file and the line."""

    def __init__(self, path, line: int, what: str):
        super().__init__(f"{path}:{line}: {what}" if line else f"{path}: {what}")


COLUMNS = tuple(f.name for f in fields(Algorithm))
# Names that come in pairs: a library's number or index names nothing without its name (each MPI
# family's columns, mpi_env.MPIFamily.algorithm_columns).
PAIRS = tuple(f.algorithm_columns for f in mpi_env.FAMILIES.values() if f.algorithm_columns)


def _record(path, line: int, row: dict[str, str]) -> Algorithm:
    """One row ({column: text}) as a record: empty text is None, numbers are whole, aliases split."""
    if not row["operation"]:
        raise RecordError(path, line, "no operation")
    values: dict = {k: v or None for k, v in row.items()}
    for key, _ in PAIRS:
        if row[key]:
            try:
                values[key] = int(row[key])
            except ValueError:
                raise RecordError(path, line, f"{key} {row[key]!r} is not a whole number") from None
    for number, name in PAIRS:
        if bool(row[number]) != bool(row[name]):
            raise RecordError(path, line, f"{number} and {name} go together: give both or neither")
    if not any(row[k] for k in ("model", "kernel", *(name for _, name in PAIRS))):
        raise RecordError(path, line, "no name: give a model, kernel, ompi_name or mpich")
    values["description"] = row["description"]
    values["aliases"] = tuple(row["aliases"].split())
    return Algorithm(**values)


def read_records(path: Path) -> tuple[Algorithm, ...]:
    """The records of a table like data/collective_algorithms.csv: `# ...` lines and blank lines
    skipped, then a header naming the fields of Algorithm (in any order), then a row per record."""
    rows = [
        (n, line)
        for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1)
        if line.strip() and not line.startswith("#")
    ]
    if not rows:
        raise RecordError(path, 0, "no header row and no records")
    (header_line, header), *body = [(n, next(csv.reader([line]))) for n, line in rows]
    if sorted(header) != sorted(COLUMNS):
        raise RecordError(path, header_line, f"the header must name each of {', '.join(COLUMNS)} once")
    out = []
    for n, fields_ in body:
        if len(fields_) != len(header):
            raise RecordError(path, n, f"{len(fields_)} fields but the header has {len(header)}")
        out.append(_record(path, n, dict(zip(header, fields_))))
    return tuple(out)


ALGORITHMS: tuple[Algorithm, ...] = read_records(config.data_dir() / TABLE)
