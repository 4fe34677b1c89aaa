"""What the lab pages share: the verdict on what this machine's core count lets a lab show."""

from __future__ import annotations

from ..verdict import Verdict, cases


def engines_placed_by() -> str:
    """The setting that sends the labs' engines off this machine ('' when they run here)."""
    from .. import config

    if config.get("COMMBOOK_ENGINES") == "slurm":
        return "COMMBOOK_ENGINES=slurm"
    return "COMMBOOK_HOSTFILE" if config.get("COMMBOOK_HOSTFILE") else ""


@cases("one_core", "some_oversubscribed", "all_own_core", "elsewhere")
def machine_scope(cores: int, largest_run: int, placed_by: str = "") -> Verdict:
    """What the lab's runs (up to `largest_run` ranks) can show on a machine with `cores` cores;
    `elsewhere` when a setting (`placed_by`) sends the engines to other nodes, whose cores and
    links this machine's count does not tell."""
    numbers = {
        "cores": cores,
        "largest": largest_run,
        "oversubscribed_from": cores + 1,
        "setting": f"`{placed_by}`" if placed_by else "-",
    }
    if placed_by:
        return Verdict("elsewhere", numbers)
    if cores < 2:
        return Verdict("one_core", numbers)
    return Verdict("some_oversubscribed" if largest_run > cores else "all_own_core", numbers)
