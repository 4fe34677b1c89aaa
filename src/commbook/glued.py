"""Glue what a page measured into its prose (MyST-NB `glue`), never typed.

glued.number("pp_lat_us", 0.42)          -> {glue:text}`pp_lat_us:.2f` µs
glued.text("pp_verdict", "is cheaper")   -> {glue:md}`pp_verdict`  (a verdict chosen by code)
glued.measured_by("pp")                  -> the MPI, machine, cores and load its sentence quotes
"""

from __future__ import annotations


def number(name: str, value: float) -> None:
    """Glue a number (shown with {glue:text}`name:.2f`); returns nothing, so a cell ending
    with it displays nothing."""
    from myst_nb import glue

    glue(name, float(value), display=False)


def text(name: str, markdown: str) -> None:
    """Glue a Markdown sentence (shown with {glue:md}`name`, rendered as inline CommonMark)."""
    from IPython.display import Markdown
    from myst_nb import glue

    glue(name, Markdown(markdown), display=False)


def verdict(name: str, v) -> None:
    """Glue a :class:`commbook.verdict.Verdict`: its case for the page's ``{verdict}`` directive
    and each number as ``<name>_<number>`` (shown with {glue:text}`name_number:.2f`)."""
    from myst_nb import glue

    glue(name, v, display=False)
    for key, value in v.numbers.items():
        if isinstance(value, str):
            text(f"{name}_{key}", value)
        else:
            number(f"{name}_{key}", value)


def choose(condition: bool, if_true: str, if_false: str) -> str:
    """The verdict the measurement supports (both wordings live in the page's code)."""
    return if_true if condition else if_false


def measured_by(prefix: str) -> None:
    """Glue which MPI (library and version) and machine measured the page, for its sentence
    (the words stay in the page)::

        *Measured while this page was built, with **{glue:md}`p_measured_by`** on
        {glue:md}`p_measured_on` (cores: {glue:text}`p_measured_cores:.0f`, load average {glue:md}`p_measured_load`).*
    """
    from . import machine, mpi_env

    text(f"{prefix}_measured_by", mpi_env.detect().version)
    text(f"{prefix}_measured_on", f"`{machine.name()}`")
    number(f"{prefix}_measured_cores", machine.describe()["cores"])
    text(f"{prefix}_measured_load", str(machine.load_average()))
