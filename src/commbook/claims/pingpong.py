"""Claims of the ping-pong chapter (book/pingpong.md)."""
from __future__ import annotations

from . import claim
from .sources import pingpong as pp

SEED = "data/orfeo/pingpong_seed.csv (Scorcia report, sec. 2)"


@claim("pp-ucx-core-latency", page="pingpong", unit="us", source=SEED)
def _():
    return pp("core", "ucx", "latency_us")


@claim("pp-ucx-socket-latency", page="pingpong", unit="us", source=SEED)
def _():
    return pp("socket", "ucx", "latency_us")


@claim("pp-ucx-node-latency", page=("pingpong", "intro"), unit="us", source=SEED)
def _():
    return pp("node", "ucx", "latency_us")
