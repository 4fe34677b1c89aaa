"""ORFEO summary tables, catalog, fetch-with-hashes and the chapters' load() helper."""

from __future__ import annotations

import pytest

from commbook import config, orfeo
from commbook.data import DataFormatError
from commbook.orfeo import fetching, loading, raw_catalog


def test_pingpong_seed_table_has_quoted_figures():
    df = orfeo.summary_table("pingpong_seed")
    row = df[(df.machine == "orfeo-thin") & (df.mapping == "node") & (df.transport == "ucx")]
    assert len(row) == 1
    assert row.latency_us.iloc[0] == pytest.approx(0.99)
    assert row.bandwidth_asymptotic_MBps.iloc[0] == 12060
    assert df.source.str.contains(r"\[(?:scorcia|verardo|loletti)-report\]").all()
    assert "units" in df.attrs["meta"]


def test_a_summary_table_is_read_again_when_its_file_changes_and_a_copy_is_given(tmp_path, monkeypatch):
    monkeypatch.setattr(orfeo.tables, "TABLES_DIR", tmp_path)
    table = tmp_path / "t.csv"
    table.write_text("x,source\n1,a\n")
    first = orfeo.summary_table("t")
    first.loc[0, "x"] = 99  # a caller's change stays in its copy
    assert orfeo.summary_table("t").x.tolist() == [1]
    table.write_text("x,source\n1,a\n2,b\n")
    assert orfeo.summary_table("t").x.tolist() == [1, 2]


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


@pytest.mark.parametrize("name", ["pingpong_seed", "hardware_seed", "core_latency_seed", "jacobi_seed", "ring_seed"])
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


# ------------------------------------------------------------------ catalog, fetch, load
import functools  # noqa: E402
import http.server  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import threading  # noqa: E402
from pathlib import Path  # noqa: E402

import pandas as pd  # noqa: E402

from commbook.cli import main  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
MIRROR = Path(os.environ.get("COMMBOOK_ORFEO_MIRROR") or REPO.parent / "shared" / "orfeo")
needs_mirror = pytest.mark.skipif(
    not (MIRROR / "README.md").exists(), reason=f"ORFEO mirror not found at {MIRROR} (set COMMBOOK_ORFEO_MIRROR)"
)
SMALL = "marcobarrasso1/bcast"  # a dataset of 3 small files for the download tests


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """An empty cache and no mirror configured; in-process caches cleared."""
    monkeypatch.setenv("COMMBOOK_DATA_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("COMMBOOK_ORFEO_MIRROR", raising=False)
    fetching._VERIFIED.clear()
    loading._import_entries.cache_clear()
    yield tmp_path / "cache"
    fetching._VERIFIED.clear()
    loading._import_entries.cache_clear()


def test_catalog_is_well_formed():
    cat = orfeo.catalog()
    assert cat.key.is_unique and len(cat) > 1000
    assert cat.sha256.str.fullmatch(r"[0-9a-f]{64}").all()
    assert cat.commit.str.fullmatch(r"[0-9a-f]{40}").all()
    assert set(cat.role) <= {"raw", "mean", "excluded", "license"}
    assert (cat[cat.role.isin(["excluded", "license"])].skip != "").all()
    url = orfeo.raw_url(orfeo.entry("mmunini99/Project_1/output/latency.txt"))
    assert url.endswith("/Project%201/output/latency.txt") and url.startswith(
        "https://raw.githubusercontent.com/mmunini99/"
    )


@pytest.mark.slow
@needs_mirror
def test_catalog_matches_the_mirror():
    """Every data file is catalogued with its hash, and the rules reproduce the catalog."""
    cat = orfeo.catalog().set_index("key")
    files = {
        p.relative_to(MIRROR).as_posix()
        for p in MIRROR.rglob("*")
        if p.is_file() and p.name not in ("PROVENANCE.md", "README.md")
    }
    assert files == set(cat.index)
    for key in files:
        assert orfeo.sha256_of(MIRROR / key) == cat.sha256[key], key
        assert (MIRROR / key).stat().st_size == int(cat["size"][key])
    rebuilt = orfeo.build_catalog(MIRROR).set_index("key")
    committed = orfeo.catalog().set_index("key")
    pd.testing.assert_frame_equal(rebuilt.astype(str), committed.astype(str).loc[rebuilt.index], check_dtype=False)


@needs_mirror
def test_fetch_from_local_mirror_and_raw_dataset(isolated):
    keys = list(orfeo.catalog().query("dataset == @SMALL").key)
    assert orfeo.raw_dataset(keys[0]) is None  # nothing cached, no mirror configured
    paths, errors = orfeo.fetch(keys, mirror=str(MIRROR))
    assert not errors and len(paths) == len(keys)
    for key, p in zip(keys, paths):
        assert p == isolated / key and orfeo.sha256_of(p) == orfeo.entry(key).sha256
        assert orfeo.raw_dataset(key) == p


@pytest.fixture
def http_mirror(tmp_path):
    """http.server on 127.0.0.1 serving a copy of one dataset laid out like the mirror."""
    root = tmp_path / "www"
    for key in orfeo.catalog().query("dataset == @SMALL").key:
        (root / key).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(MIRROR / key, root / key)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a, **k: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@needs_mirror
def test_fetch_over_http_checks_hashes(isolated, http_mirror, capsys):
    root, url = http_mirror
    assert main(["data", "fetch", "orfeo", "--mirror", url, "--dataset", SMALL]) == 0
    out = capsys.readouterr().out
    assert "fetched 3 file(s)" in out and "0 failed" in out
    key = orfeo.catalog().query("dataset == @SMALL").key.iloc[0]
    assert orfeo.sha256_of(isolated / key) == orfeo.entry(key).sha256
    # a mirror whose copy differs from the catalogued commit is refused, with a clear line
    (isolated / key).unlink()
    (root / key).write_bytes((root / key).read_bytes() + b"\n9,9.9,9.9,9.9\n")
    assert main(["data", "fetch", "orfeo", "--mirror", url, "--dataset", SMALL]) == 1
    captured = capsys.readouterr()
    assert f"error: {key}: sha256 mismatch" in captured.err and "1 failed" in captured.out
    assert not (isolated / key).exists()


def test_fetch_from_missing_mirror_fails_cleanly(isolated, tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["data", "fetch", "orfeo", "--mirror", str(tmp_path / "empty"), "--dataset", SMALL]) == 1
    assert "not in the mirror" in capsys.readouterr().err
    assert main(["data", "fetch", "orfeo", "--mirror", str(tmp_path / "nowhere")]) == 2
    assert "not a directory" in capsys.readouterr().err
    # nothing listening: three one-line errors, then it stops instead of trying every file
    assert main(["data", "fetch", "orfeo", "--mirror", "http://127.0.0.1:9"]) == 1
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 4 and "connection refused" in err[0] and err[-1].startswith("error: stopped")
    assert "3 failed" in captured.out and "not tried" in captured.out


def test_load_reads_derived_tables_offline(isolated, monkeypatch):
    monkeypatch.setenv("COMMBOOK_ORFEO_MIRROR", "none")  # offline: no mirror, nothing fetched
    df, caption = orfeo.load("pingpong")
    assert caption.startswith("ORFEO data: ") and "data/orfeo/derived/pingpong.csv.gz" in caption
    thin = df[(df.machine == "orfeo-thin") & (df.mapping == "node") & (df.transport == "ucx") & (df.size_bytes == 0)]
    assert 0.9 < thin.t_us.median() < 1.3  # the seed report's 0.99 µs inter-node UCX latency
    assert (df.t_min_us <= df.t_us).all() and (df.t_us <= df.t_max_us).all() and (df.runs >= 1).all()
    bcast, _ = orfeo.load("bcast", machine="orfeo-thin")
    assert set(bcast.machine) == {"orfeo-thin"} and "bcast" in set(bcast.benchmark)
    with pytest.raises(orfeo.DataUnavailable, match="commbook data fetch orfeo"):
        orfeo.load("bcast", raw=True)
    with pytest.raises(orfeo.DataUnavailable, match="not a catalog key"):
        orfeo.load("no-such-benchmark")
    assert orfeo.raw_dataset(orfeo.catalog().key.iloc[0]) is None


@needs_mirror
def test_load_uses_raw_data_from_the_mirror(isolated, monkeypatch):
    monkeypatch.setenv("COMMBOOK_ORFEO_MIRROR", str(MIRROR))
    df, caption = orfeo.load(SMALL, raw=True)
    assert caption.startswith("ORFEO raw data: 3 files") and "marcobarrasso1" in caption
    assert set(df.benchmark) == {"bcast"} and set(df.mapping) == {"core", "socket", "node"}
    assert df.source.str.startswith("marcobarrasso1/HPC_Project@d2972b0:").all()
    df, caption = orfeo.load("gather", machine="orfeo-epyc", raw=True)
    assert set(df.machine) == {"orfeo-epyc"} and set(df.benchmark) == {"gather"}


# ------------------------------------------------------------------ catalog rules (data file)
def test_catalog_rules_file_reads():
    folders, rules = orfeo.catalog_rules()
    assert set(folders) == {k.split("/")[0] for k in orfeo.catalog().key}
    assert all(f in folders for f, _, _ in rules) and len(rules) > 50
    assert folders["mmunini99"]["path_fixes"] == [["Project_1/", "Project 1/"]]


@pytest.mark.parametrize(
    "text, message",
    [
        ('[folders.a]\nmachine = "x"\n[[rules]]\nfolder = "a"\npattern = "("\n', "rule 1 .*bad regular expression"),
        ('[folders.a]\nmachine = "x"\n[[rules]]\nfolder = "b"\npattern = "x"\n', "rule 1 .*known folder"),
        (
            '[folders.a]\n[[rules]]\nfolder = "a"\npattern = "x"\nbenchmrk = "ring"\n',
            r"rule 1 .*unknown or non-text field\(s\) \['benchmrk'\]",
        ),
        ("[folders.a\n", "cannot read the catalog rules"),
    ],
)
def test_catalog_rules_errors_name_file_and_rule(tmp_path, monkeypatch, text, message):
    bad = tmp_path / "catalog_rules.toml"
    bad.write_text(text)
    monkeypatch.setattr(raw_catalog, "RULES_FILE", bad)
    orfeo.catalog_rules.cache_clear()
    try:
        with pytest.raises(DataFormatError, match="catalog_rules.toml: " + message):
            orfeo.catalog_rules()
    finally:
        orfeo.catalog_rules.cache_clear()


def test_orfeo_mirror_none_means_offline(monkeypatch):
    monkeypatch.setenv("COMMBOOK_ORFEO_MIRROR", "none")
    assert config.orfeo_mirror() is None
    monkeypatch.setenv("COMMBOOK_ORFEO_MIRROR", "/some/where")
    assert config.orfeo_mirror() == "/some/where"


def test_orfeo_mirror_beside_a_checkout(tmp_path, monkeypatch):
    (tmp_path / "shared" / "orfeo").mkdir(parents=True)
    checkout = tmp_path / "repo"
    monkeypatch.delenv("COMMBOOK_ORFEO_MIRROR", raising=False)
    assert config.orfeo_mirror() is None  # the package alone: GitHub
    assert config.orfeo_mirror(beside=checkout) == str(tmp_path / "shared" / "orfeo")
    monkeypatch.setenv("COMMBOOK_ORFEO_MIRROR", "none")
    assert config.orfeo_mirror(beside=checkout) is None


def test_fixes_are_data_and_every_named_fix_exists(tmp_path, monkeypatch):
    named = {
        item.partition("=")[2]
        for hints in orfeo.catalog().hints
        for item in hints.split(";")
        if item.startswith("fix=")
    }
    assert named and named <= set(raw_catalog.catalog_fixes())
    bad = tmp_path / "catalog_rules.toml"
    bad.write_text('[fixes.oops]\nwhere = { algorithm = "x" }\nrelabel = "y"\n')
    monkeypatch.setattr(raw_catalog, "RULES_FILE", bad)
    raw_catalog.catalog_fixes.cache_clear()
    try:
        with pytest.raises(DataFormatError, match=r"catalog_rules.toml: fix oops: unknown key\(s\) \['relabel'\]"):
            raw_catalog.catalog_fixes()
    finally:
        raw_catalog.catalog_fixes.cache_clear()


def test_a_fix_relabels_rows_as_its_table_says():
    import pandas as pd

    rows = pd.DataFrame(
        {
            "benchmark": ["bcast"] * 3,
            "algorithm": ["algo1", "algo3", "default"],
            "mapping": "core",
            "params": ["coll_tuned_id=0", "", ""],
        }
    )
    out = raw_catalog.catalog_fixes()["mmunini_bcast"](rows.copy())
    assert list(out.algorithm) == ["basic_linear", "binary_tree", "default"]
    assert list(out.params) == ["coll_tuned_id=1;file_label=algo1", "coll_tuned_id=5;file_label=algo3", ""]
