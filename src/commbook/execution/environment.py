"""The environment the book's kernels execute in (make book, make execute)."""

from __future__ import annotations

from .. import mpi_env


def execution_environment(base: dict) -> dict:
    """`base` with what the book's kernels need while the pages execute (make book, make execute):
    this MPI's run environment, ipyparallel without prompts, the inline plots, and the marker
    that says the page will be static HTML (explorers load the shared bundle, run panels show
    their command instead of widgets)."""
    from ..explorers.render import ENV_STATIC

    env = dict(base)
    env.update(mpi_env.run_environment())
    env["IPP_NONINTERACTIVE"] = "1"
    env.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    env[ENV_STATIC] = "1"
    return env
