"""What the intro page says this machine's measurements can show (its words are in book/intro.md)."""

from __future__ import annotations

from ... import machine, mpi_env
from ...verdict import Verdict

CASES = ("one_core", "one_socket", "sockets")


def scope(cores: int | None = None, sockets: int | None = None) -> Verdict:
    """`one_core`, `one_socket` or `sockets`, with the core and socket counts (this machine's by
    default)."""
    cores = mpi_env.cores() if cores is None else cores
    sockets = machine.sockets() if sockets is None else sockets
    case = "one_core" if cores < 2 else "one_socket" if sockets == 1 else "sockets"
    return Verdict(case, {"cores": cores, "sockets": sockets}, CASES)
