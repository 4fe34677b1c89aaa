"""Each explorer built once per test process: building one evaluates its model over the whole
grid of controls (topology about 5 s), and several test modules read the same spec."""

import copy
import functools

from commbook import explorers


@functools.cache
def built(name: str):
    """The explorer object (not to be changed by a test)."""
    return explorers.module(name).explorer()


@functools.cache
def _spec(name: str) -> dict:
    return built(name).spec()


def spec(name: str) -> dict:
    """A copy of the explorer's Vega-Lite spec, the test's to change."""
    return copy.deepcopy(_spec(name))
