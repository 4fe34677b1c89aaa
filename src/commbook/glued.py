"""Glue what a page measured into its prose (MyST-NB `glue`), never typed.

    glued.number("pp_lat_us", 0.42)          -> {glue:text}`pp_lat_us:.2f` µs
    glued.text("pp_verdict", "is cheaper")   -> {glue:md}`pp_verdict`  (a verdict chosen by code)
    glued.measured_by("pp")                  -> {glue:md}`pp_measured_by` ("Measured with ...")
"""
from __future__ import annotations


def number(name: str, value: float) -> float:
    from myst_nb import glue
    value = float(value)
    glue(name, value, display=False)
    return value


def text(name: str, markdown: str) -> str:
    from IPython.display import Markdown
    from myst_nb import glue
    glue(name, Markdown(markdown), display=False)
    return markdown


def choose(condition: bool, if_true: str, if_false: str) -> str:
    """The verdict the measurement supports (both wordings live in the page's code)."""
    return if_true if condition else if_false


def measured_by(prefix: str) -> str:
    """Glue `<prefix>_measured_by`: which MPI (library and version) and machine measured the page."""
    from . import machine, mpi_env
    info = mpi_env.detect()
    line = (f"*Measured while this page was built, with **{info.version}** on `{machine.name()}` "
            f"({machine.describe()['cores']} cores, load average {machine.load_average()}).*")
    return text(f"{prefix}_measured_by", line)
