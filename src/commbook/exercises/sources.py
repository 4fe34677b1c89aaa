"""The ORFEO links several chapters' exercise references are computed from (the seed reports' figures)."""

from __future__ import annotations


def link(mapping: str, transport: str):
    from .. import orfeo

    return orfeo.link(mapping, transport)


def link_time_us(mapping: str, transport: str, n_bytes: int) -> float:
    """Hockney time λ + n/b of one message over an ORFEO link (the seed reports' figures)."""
    found = link(mapping, transport)
    return found.latency_us + n_bytes / found.asymptotic_MBps
