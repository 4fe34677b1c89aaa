"""ORFEO summary tables, catalog, fetch-with-hashes and the chapters' load() helper."""
from __future__ import annotations

import pytest

from commbook import orfeo
from commbook.data import DataFormatError


def test_pingpong_seed_table_has_quoted_figures():
    df = orfeo.summary_table("pingpong_seed")
    row = df[(df.machine == "orfeo-thin") & (df.mapping == "node") & (df.transport == "ucx")]
    assert len(row) == 1
    assert row.latency_us.iloc[0] == pytest.approx(0.99)
    assert row.bandwidth_asymptotic_MBps.iloc[0] == 12060
    assert (df.source.str.startswith("seeds/")).all()
    assert "units" in df.attrs["meta"]


def test_summary_table_unknown_name():
    with pytest.raises(DataFormatError, match="no summary table 'nope'"):
        orfeo.summary_table("nope")


def test_read_table_names_file_and_line(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("# what: x\na,b,source\n1,2,doc\n3,4\n")
    with pytest.raises(DataFormatError, match=r"t\.csv:4: 2 fields but the header has 3"):
        orfeo.read_table(p)
    p.write_text("a,source\n1,doc\n2,\n")
    with pytest.raises(DataFormatError, match=r"t\.csv:3: empty 'source'"):
        orfeo.read_table(p, required=("source",))
