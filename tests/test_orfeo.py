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


@pytest.mark.parametrize("name", ["pingpong_seed", "hardware_seed", "core_latency_seed",
                                  "jacobi_seed", "ring_seed"])
def test_every_seed_table_reads_and_names_sources(name):
    df = orfeo.summary_table(name)
    assert len(df) > 0
    assert (df.source.str.strip() != "").all()
    assert {"what", "source"} <= set(df.attrs["meta"])


def test_seed_values_match_the_documents():
    hw = orfeo.summary_table("hardware_seed")
    thin = hw[hw.node_type == "THIN (Xeon Gold 6126)"].iloc[0]
    assert (thin.cores_per_node, thin.memory_GiB, thin.infiniband_Gbps) == (24, 768, 100)
    jac = orfeo.summary_table("jacobi_seed")
    ts = jac[jac.quantity == "T_s"].set_index("machine").value
    assert ts["orfeo-thin"] == pytest.approx(15.24) and ts["orfeo-gpu"] == pytest.approx(22.07)
    ring = orfeo.summary_table("ring_seed").set_index("quantity").value_us
    assert ring["lambda used in the model"] == pytest.approx(0.99)
    assert ring["lambda fitted to the data"] == pytest.approx(0.73)
