"""Where commbook finds its files, and every ``COMMBOOK_*`` environment variable it reads.

Resources (``kernels_c/``, ``data/``) come from the checkout this package runs from (an
editable install or ``PYTHONPATH=src``), else from the copy a wheel ships in
``commbook/_resources`` (``pip install .``; see setup.py). The book (``book/``, ``_config.yml``)
is built from the checkout only (booktools.repo_root). Caches live in ``~/.cache/commbook``.

The variables are listed in :data:`VARIABLES` (name, default, meaning; unset or empty means
the default) and appended to this docstring as a table, so ``help(commbook.config)`` shows them.
Read them with :func:`get` (which refuses a name not listed in :data:`VARIABLES`) or the path
functions below, never with ``os.environ`` elsewhere: ``tests/test_config.py`` checks that.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
PACKAGED = PACKAGE / "_resources"  # filled by setup.py when a wheel is built
RESOURCES = ("kernels_c", "data")  # what a wheel ships; book/ is built from a checkout only


@dataclass(frozen=True)
class Variable:
    name: str
    default: str  # "" = unset
    meaning: str


VARIABLES = {
    v.name: v
    for v in [
        Variable("COMMBOOK_KERNELS", "", "folder of the C kernels (with commbench.h)"),
        Variable("COMMBOOK_BUILD_DIR", "~/.cache/commbook/build", "compiled kernels, a folder per MPI"),
        Variable("COMMBOOK_DATA_CACHE", "~/.cache/commbook/orfeo", "raw ORFEO files, hash-checked"),
        Variable("COMMBOOK_ORFEO_MIRROR", "", "local ORFEO tree or URL to fetch from; 'none' = offline"),
        Variable("COMMBOOK_MEASUREMENTS", "~/.cache/commbook/measurements", "where notebooks save what they measure"),
        Variable("COMMBOOK_MACHINE", "", "machine name recorded in measurements"),
        Variable("COMMBOOK_ENGINES", "mpi", "ipyparallel engines: mpi or slurm"),
        Variable("COMMBOOK_IPP_PROFILE", "", "ipyparallel profile to start clusters from"),
        Variable("COMMBOOK_SLURM_QUEUE", "", "Slurm partition of the engines' job"),
        Variable("COMMBOOK_SLURM_ACCOUNT", "", "Slurm account of the engines' job"),
        Variable("COMMBOOK_SLURM_TIME", "", "Slurm time limit of the engines' job"),
        Variable("COMMBOOK_SLURM_OPTIONS", "", "extra #SBATCH options of the engines' job"),
        Variable("COMMBOOK_SLURM_MPI", "", "how the engines' job starts ranks: srun --mpi plugin or mpiexec"),
        Variable("COMMBOOK_HOSTFILE", "", "hostfile for mpiexec outside a batch job: ranks and engines over its nodes"),
        Variable("COMMBOOK_NODES_DIR", "", "where `commbook nodes` records its emulated cluster"),
        Variable("COMMBOOK_NODES_REFERENCE", "", "book: draw the node-boundary sections from data/reference"),
        Variable("COMMBOOK_BUILD_SHARED", "", "set by the book build: where its pages share one live run"),
        Variable(
            "COMMBOOK_QUIET_RUNS", "", "set by the book build: a run that measures pauses its background work here"
        ),
        Variable("COMMBOOK_DEBUG", "", "the CLI shows tracebacks instead of one line"),
        Variable("COMMBOOK_REQUIRE_BROWSER", "", "tests: fail instead of skip without chromium"),
        Variable(
            "COMMBOOK_LAB_CHAPTERS", "", "tests: the chapters the JupyterLab test runs (comma list; default every page)"
        ),
        Variable("COMMBOOK_REQUIRE_SLURM", "", "tests: fail instead of skip without Slurm or root"),
        Variable("COMMBOOK_REQUIRE_SMPI", "", "tests: fail instead of skip without SimGrid's smpirun"),
    ]
}
if __doc__:  # None under python -OO
    __doc__ += "\n" + "\n".join(f"  {v.name:<25} {v.default or '-':<31} {v.meaning}" for v in VARIABLES.values()) + "\n"


def get(name: str) -> str:
    """The value of a COMMBOOK_* variable, stripped, or its default ('' when it has none)."""
    if name not in VARIABLES:
        raise KeyError(f"{name} is not a commbook setting; known: {', '.join(VARIABLES)}")
    return os.environ.get(name, "").strip() or VARIABLES[name].default


def set_default(name: str, value: str) -> None:
    """Export a COMMBOOK_* variable for child processes (a build's notebooks) unless already set."""
    if name not in VARIABLES:
        raise KeyError(f"{name} is not a commbook setting; known: {', '.join(VARIABLES)}")
    os.environ.setdefault(name, value)


def _path(name: str) -> Path:
    return Path(get(name)).expanduser()


# ----------------------------------------------------------------------------------- files
def checkout() -> Path | None:
    """The repository this package runs from (src layout: <root>/src/commbook), or None when
    installed from a wheel."""
    root = PACKAGE.parents[1]
    if (root / "pyproject.toml").is_file() and (root / "kernels_c" / "commbench.h").is_file():
        return root
    return None


def resource(name: str) -> Path:
    """A top-level folder of the repository (kernels_c, data): the checkout's, else the packaged copy."""
    if name not in RESOURCES:
        raise KeyError(f"{name} is not a packaged resource; known: {', '.join(RESOURCES)}")
    root = checkout()
    return root / name if root else PACKAGED / name


def kernels_dir() -> Path:
    """$COMMBOOK_KERNELS, else kernels_c/ of the checkout or the wheel."""
    if get("COMMBOOK_KERNELS"):
        return _path("COMMBOOK_KERNELS")
    path = resource("kernels_c")
    if not (path / "commbench.h").is_file():
        raise FileNotFoundError(
            f"kernels_c/ not found at {path}: install a wheel (pip install .) "
            "or set COMMBOOK_KERNELS to the folder with commbench.h"
        )
    return path


def data_dir() -> Path:
    """data/ (reference measurements, ORFEO tables) of the checkout or the wheel."""
    return resource("data")


def build_cache() -> Path:
    """$COMMBOOK_BUILD_DIR: compiled kernels (kernels.build_dir adds a folder per MPI version)."""
    return _path("COMMBOOK_BUILD_DIR")


def data_cache() -> Path:
    """$COMMBOOK_DATA_CACHE: the raw ORFEO files fetched with their hashes."""
    return _path("COMMBOOK_DATA_CACHE")


def measurements_dir() -> Path:
    """$COMMBOOK_MEASUREMENTS: what notebooks measured, one folder per machine."""
    return _path("COMMBOOK_MEASUREMENTS")


def orfeo_mirror(beside: Path | None = None) -> str | None:
    """$COMMBOOK_ORFEO_MIRROR; 'none' means offline (no mirror, no download). Unset: None (the
    package then fetches from GitHub), or, when `beside` is given (the book's or the tests'
    checkout), the ORFEO tree ``shared/orfeo`` next to it if there is one."""
    value = get("COMMBOOK_ORFEO_MIRROR")
    if value.lower() == "none":
        return None
    if value:
        return value
    if beside is not None and (Path(beside).parent / "shared" / "orfeo").is_dir():
        return str(Path(beside).parent / "shared" / "orfeo")
    return None
