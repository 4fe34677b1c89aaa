"""The references of the exercises of the ping-pong page (book/pingpong.md): computed from the Scorcia report's figures."""

from __future__ import annotations

from ...exercises.core import _exercise
from ...exercises.sources import link as _link
from ...exercises.sources import link_time_us as _link_time_us


@_exercise("pp-nhalf", "pingpong", rel_tol=0.05, unit="B")
def _pp_nhalf():
    """Hint: n½ = λ·b; convert µs to s and MB/s to B/s first.

    Method: read λ and b of the node/UCX row of the report's table; λ·b with λ in s and b in B/s is a size in bytes.
    """
    link = _link("node", "ucx")
    return link.latency_us * 1e-6 * link.asymptotic_MBps * 1e6


@_exercise("pp-tcp", "pingpong", rel_tol=0.03, unit="µs")
def _pp_tcp():
    """Hint: n/b with n in bytes and b in MB/s is already in µs.

    Method: take the TCP row between nodes; 1 MiB is 1,048,576 bytes; t = λ + n/b.
    """
    return _link_time_us("node", "ob1-tcp", 2**20)
