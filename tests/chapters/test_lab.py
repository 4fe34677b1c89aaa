"""What the lab pages share (commbook.chapters.lab)."""

from commbook.chapters import jacobi, lab, matrix_add


def test_machine_scope_follows_the_core_count():
    assert lab.machine_scope(1, 3).case == "one_core"
    v = lab.machine_scope(2, 3)
    assert v.case == "some_oversubscribed" and v.numbers["oversubscribed_from"] == 3
    assert lab.machine_scope(4, 3).case == "all_own_core"
    # the labs that word it call the same verdict
    assert jacobi.what_this_machine_shows is lab.machine_scope is matrix_add.machine_scope
