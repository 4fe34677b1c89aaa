"""The references of the exercises of the ping-pong page (book/pingpong.md): computed from the Scorcia report's figures."""

from __future__ import annotations

from ...exercises.core import _exercise
from ...exercises.sources import link as _link
from ...exercises.sources import link_time_us as _link_time_us


@_exercise("pp-nhalf", "pingpong", rel_tol=0.05, unit="B")
def _pp_nhalf():
    link = _link("node", "ucx")
    return link.latency_us * 1e-6 * link.asymptotic_MBps * 1e6


@_exercise("pp-tcp", "pingpong", rel_tol=0.03, unit="µs")
def _pp_tcp():
    return _link_time_us("node", "ob1-tcp", 2**20)
