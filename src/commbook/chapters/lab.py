"""What the lab pages share: the verdict on what this machine's core count lets a lab show."""

from __future__ import annotations

from ..verdict import Verdict, cases


@cases("one_core", "some_oversubscribed", "all_own_core")
def machine_scope(cores: int, largest_run: int) -> Verdict:
    """What the lab's runs (up to `largest_run` ranks) can show on a machine with `cores` cores."""
    numbers = {"cores": cores, "largest": largest_run, "oversubscribed_from": cores + 1}
    if cores < 2:
        return Verdict("one_core", numbers)
    return Verdict("some_oversubscribed" if largest_run > cores else "all_own_core", numbers)
