"""What the lab pages share (commbook.chapters.lab)."""

from commbook.chapters import jacobi, lab, matrix_add


def test_machine_scope_follows_the_core_count():
    assert lab.machine_scope(1, 3).case == "one_core"
    v = lab.machine_scope(2, 3)
    assert v.case == "some_oversubscribed" and v.numbers["oversubscribed_from"] == 3
    assert lab.machine_scope(4, 3).case == "all_own_core"
    # the labs that word it call the same verdict
    assert jacobi.what_this_machine_shows is lab.machine_scope is matrix_add.machine_scope


def test_engines_sent_elsewhere_override_this_machines_core_count(monkeypatch):
    """With the engines on Slurm's or a hostfile's nodes, this machine's cores say nothing of the
    runs: a core count that would read `all_own_core` reads `elsewhere`."""
    monkeypatch.delenv("COMMBOOK_ENGINES", raising=False)
    monkeypatch.delenv("COMMBOOK_HOSTFILE", raising=False)
    assert lab.engines_placed_by() == ""
    assert lab.machine_scope(64, 3, lab.engines_placed_by()).case == "all_own_core"
    monkeypatch.setenv("COMMBOOK_ENGINES", "slurm")
    v = lab.machine_scope(64, 3, lab.engines_placed_by())
    assert v.case == "elsewhere" and v.numbers["setting"] == "`COMMBOOK_ENGINES=slurm`" and v.numbers["cores"] == 64
    monkeypatch.delenv("COMMBOOK_ENGINES")
    monkeypatch.setenv("COMMBOOK_HOSTFILE", "/nonexistent/hosts")
    assert lab.machine_scope(1, 3, lab.engines_placed_by()).case == "elsewhere"
