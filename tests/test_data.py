"""The tidy schema: normalising, atomic writes, and clear errors for malformed files."""

import os
import re

import pandas as pd
import pytest

from commbook import data


def table(**over):
    row = dict(benchmark="pingpong", np=2, size_bytes=8, t_us=0.5)
    row.update(over)
    return pd.DataFrame([row])


def test_round_trip_keeps_rows_and_metadata(tmp_path):
    path = tmp_path / "m.csv"
    data.write_measurements(path, table(), {"machine": "box", "command": "commbook measure x"})
    m = data.read_measurements(path)
    assert m.meta == {"machine": "box", "command": "commbook measure x"}
    assert list(m.table.columns) == data.COLUMNS
    row = m.table.iloc[0]
    assert (row["t_min_us"], row["t_max_us"], row["reps"]) == (0.5, 0.5, 1)


def test_malformed_number_names_file_and_line(tmp_path):
    path = tmp_path / "bad.csv"
    data.write_measurements(path, pd.concat([table(), table(size_bytes=16)]), {"machine": "m"})
    text = path.read_text().replace("pingpong,,,,2,16,0.5", "pingpong,,,,2,16,fast")
    path.write_text(text)
    with pytest.raises(data.DataFormatError) as err:
        data.read_measurements(path)
    assert str(err.value).startswith(f"{path}:4:")
    assert "'fast'" in str(err.value)


def test_ragged_row_names_line(tmp_path):
    path = tmp_path / "ragged.csv"
    path.write_text("# machine: m\nbenchmark,np,t_us\npingpong,2,0.5\npingpong,2\n")
    with pytest.raises(data.DataFormatError, match=r"ragged.csv:4: 2 fields but the header has 3"):
        data.read_measurements(path)


def test_unknown_column_and_missing_file(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text("benchmark,np,t_us,colour\npingpong,2,1,red\n")
    with pytest.raises(data.DataFormatError, match="unknown column"):
        data.read_measurements(path)
    with pytest.raises(data.DataFormatError, match="no such file"):
        data.read_measurements(tmp_path / "nope.csv")


def test_atomic_write_leaves_old_file_when_interrupted(tmp_path, monkeypatch):
    path = tmp_path / "m.csv"
    data.write_measurements(path, table(), {"machine": "old"})
    before = path.read_text()

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(data.os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        data.write_measurements(path, table(t_us=9.0), {"machine": "new"})
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["m.csv"]  # no temporary left behind


def test_reference_pingpong_is_shipped_with_provenance():
    ref = data.load_reference("pingpong")
    for key in ("machine", "cpu", "mpi_library", "date", "command"):
        assert ref.meta.get(key), key
    assert ref.table["size_bytes"].max() >= 64 * 2**20
    assert (ref.table["t_us"] > 0).all()


def test_unknown_metadata_is_left_out_not_written_as_none(tmp_path):
    path = data.write_measurements(tmp_path / "m.csv", table(), {"machine": "m", "cpu": None})
    text = path.read_text()
    assert "None" not in text and "# machine: m" in text and "cpu" not in text


def test_failed_write_keeps_rows_beside_the_path_or_in_a_temp_file(tmp_path, monkeypatch, capsys):
    wanted = tmp_path / "out.csv"
    real = data.atomic_write_text
    refused = {str(wanted)}
    monkeypatch.setattr(
        data,
        "atomic_write_text",
        lambda p, t: (_ for _ in ()).throw(OSError(28, "No space left on device")) if str(p) in refused else real(p, t),
    )
    with pytest.raises(data.SavedElsewhere) as err:
        data.write_measurements_keeping(wanted, table(), {"machine": "m"})
    assert err.value.saved.parent == tmp_path and "No space left" in str(err.value)
    assert len(data.read_measurements(err.value.saved).table) == 1
    refused.add(str(tmp_path / f"out.unsaved-{os.getpid()}.csv"))  # the folder fails too
    with pytest.raises(data.SavedElsewhere) as err:
        data.write_measurements_keeping(wanted, table(), {"machine": "m"})
    assert err.value.saved.parent != tmp_path and err.value.saved.name.startswith("commbook-out-")
    assert len(data.read_measurements(err.value.saved).table) == 1
    err.value.saved.unlink()


def test_output_path_check(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(data.OutputPathError, match="is a file, not a directory"):
        data.check_output_path(tmp_path / "f" / "sub" / "out.csv")
    with pytest.raises(data.OutputPathError, match="is a directory"):
        data.check_output_path(tmp_path)
    assert data.check_output_path(tmp_path / "new" / "out.csv").parent.is_dir()
    assert list((tmp_path / "new").iterdir()) == []  # the probe file is gone


def test_hostile_measurement_files_refused_at_once(tmp_path, capsys):
    """`commbook fit` and every reader of tidy files: one line, never a hang or a traceback."""
    from commbook.cli import main

    fifo = tmp_path / "pp.csv"
    os.mkfifo(fifo)
    long_field = tmp_path / "long.csv"
    long_field.write_text("benchmark,np,t_us\n" + '"' + "x" * 200_000 + '",2,1\n')
    cases = [
        (fifo, "not a regular file (a FIFO)"),
        ("/dev/zero", "not a regular file (a device)"),
        (long_field, "not a CSV table"),
    ]
    for path, said in cases:
        with pytest.raises(data.DataFormatError, match=re.escape(said)):
            data.read_measurements(path)
        assert main(["fit", "hockney", str(path)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"commbook: error: {path}") and said in err[0]


def test_impossible_values_name_file_and_line(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("# machine: m\nbenchmark,np,size_bytes,t_us\npingpong,2,8,0.5\npingpong,2,16,-1\n")
    with pytest.raises(data.DataFormatError, match=re.escape(f"{path}:4: negative time: t_us = -1")):
        data.read_measurements(path)
