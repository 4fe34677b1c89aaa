"""The derived ORFEO tables (data/orfeo/derived/): within budget, traceable to their raw files,
regenerated identically from the raw files, and drawing the same chapter figures as the raw
files do."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from commbook import orfeo  # noqa: E402
from commbook.chapters import pingpong as pingpong_chapter
from commbook.chapters import topology as topology_chapter
from commbook.cli import main  # noqa: E402
from commbook.orfeo import derived, fetching, loading, rebuild  # noqa: E402

BUDGET_BYTES = 3_000_000
# what the chapters and the data page load (book/*.md)
CHAPTER_DATASETS = [
    "pingpong",
    "jacobi",
    "matteoscorcia/ring",
    "francesc0rtu/ring",
    "matteoscorcia/matrix_add",
    "francesc0rtu/matrix_add",
    "mzampar/latency",
    "giuliofantuzzi/bcast",
    "marcotallone/latency",
    "matteoscorcia/pingpong_mean",
    "barbaralol/barrier",
    "giuliofantuzzi/barrier",
    "marcobarrasso1/gather",
]


def all_derived() -> pd.DataFrame:
    index = orfeo.derived_table("index.csv")
    return pd.concat([orfeo.derived_table(b) for b in sorted(set(index.benchmark))], ignore_index=True)


def test_derived_tables_fit_the_budget():
    files = list(orfeo.DERIVED_DIR.iterdir())
    assert sum(p.stat().st_size for p in files) <= BUDGET_BYTES
    index = orfeo.derived_table("index.csv")
    assert {f"{b}.csv.gz" for b in index.benchmark} == {p.name for p in files if p.suffix == ".gz"}


def test_every_derived_row_names_its_raw_files_and_commit():
    index = orfeo.derived_table("index.csv")
    df = all_derived()
    assert len(df) == index.rows.sum()
    counts = df.groupby(["dataset", "benchmark"]).size()
    assert counts.to_dict() == index.set_index(["dataset", "benchmark"]).rows.to_dict()
    cat = orfeo.catalog()
    for dataset, rows in df.groupby("dataset"):
        files = cat[cat.dataset == dataset]
        repo, commit = files.repository.iloc[0], files.commit.iloc[0]
        assert (index[index.dataset == dataset].commit == commit).all(), dataset
        head = f"{repo}@{commit[:7]}:"
        assert rows.source.str.startswith(head).all(), dataset
        named = set(rows.source.str.slice(len(head)).str.split("|").explode())
        assert named <= set(files.path), (dataset, sorted(named - set(files.path))[:3])


def test_derived_rows_are_sorted_unique_and_consistent():
    df = all_derived()
    for bench, t in df.groupby("benchmark", sort=False):
        keys = t[orfeo.CONFIG_KEY]
        assert not keys.duplicated().any(), bench
        assert keys.equals(keys.sort_values(orfeo.CONFIG_KEY)), f"{bench} rows not sorted"
    assert (df.t_min_us <= df.t_us).all() and (df.t_us <= df.t_max_us).all()
    assert (df.runs >= 1).all() and (df.reps >= 1).all()
    assert not df.params.str.contains(r"(?:^|;)(?:run|block|bw_MBps)=").any()


def test_merging_again_changes_nothing():
    for bench in ("pingpong", "barrier", "jacobi"):
        t = orfeo.derived_table(bench)
        pd.testing.assert_frame_equal(orfeo.per_configuration(t), t, check_dtype=False)


def test_per_configuration_merges_runs_only():
    rows = pd.DataFrame(
        {
            "dataset": "d",
            "benchmark": "pingpong",
            "algorithm": "",
            "mapping": "core",
            "transport": "ucx",
            "machine": "orfeo-thin",
            "mpi_library": "Open MPI",
            "np": 2,
            "size_bytes": [8, 8, 8, 16],
            "params": ["run=1;bw_MBps=4", "run=2;bw_MBps=2", "run=3", "run=1"],
            "t_us": [2.0, 4.0, 9.0, 3.0],
            "t_min_us": [1.5, 3.0, 8.0, 3.0],
            "t_max_us": [2.5, 5.0, 9.5, 3.0],
            "reps": 1000,
            "source": ["r@abc:a.csv", "r@abc:b.csv", "r@abc:c.csv", "r@abc:a.csv"],
        }
    )
    out = orfeo.per_configuration(rows)
    assert list(out.size_bytes) == [8, 16]
    eight = out.iloc[0]
    assert (eight.t_us, eight.t_min_us, eight.t_max_us, eight.runs, eight.reps) == (4.0, 1.5, 9.5, 3, 3000)
    assert eight.source == "r@abc:a.csv|b.csv|c.csv" and eight.params == ""


def test_derived_table_errors_name_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(derived, "DERIVED_DIR", tmp_path)
    (tmp_path / "ring.csv.gz").write_bytes(b"not gzip at all")
    with pytest.raises(orfeo.DataFormatError, match=r"ring\.csv\.gz: cannot read derived table"):
        orfeo.derived_table("ring")
    with pytest.raises(orfeo.DataUnavailable, match="commbook data derive"):
        orfeo.derived_table("bcast")


def test_derive_refuses_missing_and_changed_raw_files(tmp_path):
    cat = rebuild.usable_entries().head(1)
    key = cat.key.iloc[0]
    with pytest.raises(rebuild.DeriveError, match=f"{key}: not in"):
        rebuild.import_raw(tmp_path, cat)
    (tmp_path / key).parent.mkdir(parents=True)
    (tmp_path / key).write_text("1 2.0\n")
    with pytest.raises(rebuild.DeriveError, match="sha256 differs from the catalog"):
        rebuild.import_raw(tmp_path, cat)


def test_derive_cli_writes_and_checks(tmp_path, monkeypatch, capsys):
    """The command's writing and --check logic, fed the committed tables as if regenerated."""
    committed = {p.name: rebuild.read_text(p) for p in orfeo.DERIVED_DIR.iterdir()}
    monkeypatch.setattr(rebuild, "derive", lambda source, cat=None: dict(committed))
    assert main(["data", "derive", "--mirror", str(tmp_path), "--check"]) == 0
    out = tmp_path / "out"
    assert main(["data", "derive", "--mirror", str(tmp_path), "--out", str(out)]) == 0
    assert f"wrote {len(committed)} derived table(s)" in capsys.readouterr().out
    for name, text in committed.items():
        assert rebuild.read_text(out / name) == text
        assert (out / name).stat().st_mode & 0o644 == 0o644
    (out / "ring.csv.gz").write_bytes(b"")
    assert main(["data", "derive", "--mirror", str(tmp_path), "--out", str(out), "--check"]) == 1
    captured = capsys.readouterr()
    assert f"differs: {out / 'ring.csv.gz'}" in captured.err and "1 differ" in captured.out
    assert main(["data", "derive", "--mirror", str(tmp_path / "nowhere")]) == 2


# ------------------------------------------------------------------ against the raw files
@pytest.fixture(scope="module")
def regenerated(orfeo_mirror):
    return rebuild.derive(orfeo_mirror)


@pytest.mark.slow
def test_committed_tables_equal_the_regenerated_ones(regenerated):
    committed = {p.name for p in orfeo.DERIVED_DIR.iterdir()}
    assert set(regenerated) == committed
    for name, text in regenerated.items():
        assert rebuild.read_text(orfeo.DERIVED_DIR / name) == text, (
            f"{name} drifted from the raw files: run `commbook data derive`"
        )


@pytest.fixture(scope="module")
def raw_available(orfeo_mirror, tmp_path_factory):
    """The raw files fetched from the mirror into a fresh cache, once for this module's tests
    (fetching and importing them again for each dataset only repeated the same work)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("COMMBOOK_ORFEO_MIRROR", str(orfeo_mirror))
        mp.setenv("COMMBOOK_DATA_CACHE", str(tmp_path_factory.mktemp("raw") / "cache"))
        fetching._VERIFIED.clear()
        loading._import_entries.cache_clear()
        yield
        fetching._VERIFIED.clear()
        loading._import_entries.cache_clear()


@pytest.mark.slow
@pytest.mark.parametrize("name", CHAPTER_DATASETS)
def test_chapter_data_from_raw_files_equals_derived(raw_available, name):
    raw, _ = orfeo.load(name, raw=True)
    derived, caption = orfeo.load(name)
    assert "data/orfeo/derived/" in caption  # names the derived table it read
    pd.testing.assert_frame_equal(
        orfeo.per_configuration(raw), derived[orfeo.per_configuration(raw).columns], check_dtype=False, rtol=1e-9
    )


def line_data(fig) -> list:
    return [(ax.get_title(), line.get_label(), line.get_xydata()) for ax in fig.axes for line in ax.lines]


def assert_same_figure(a, b):
    la, lb = line_data(a), line_data(b)
    assert len(la) == len(lb) > 0
    for (ta, na, xa), (tb, nb, xb) in zip(la, lb):
        assert (ta, na) == (tb, nb)
        np.testing.assert_allclose(xa, xb, rtol=1e-9)


@pytest.mark.slow
def test_chapter_figures_same_from_raw_and_derived(raw_available):
    import matplotlib.pyplot as plt

    from commbook.models import jacobi as jm

    raw, _ = orfeo.load("pingpong", raw=True)
    derived, _ = orfeo.load("pingpong")
    assert_same_figure(pingpong_chapter.plot_orfeo_pingpong(raw), pingpong_chapter.plot_orfeo_pingpong(derived))
    assert_same_figure(pingpong_chapter.plot_orfeo_machines(raw), pingpong_chapter.plot_orfeo_machines(derived))
    lat_raw, _ = orfeo.load("marcotallone/latency", raw=True)
    lat, _ = orfeo.load("marcotallone/latency")
    assert_same_figure(
        topology_chapter.plot_core_latency(lat_raw, size_bytes=1), topology_chapter.plot_core_latency(lat, size_bytes=1)
    )
    seed = orfeo.summary_table("jacobi_seed")
    runs_raw, _ = orfeo.load("jacobi", raw=True)
    runs, _ = orfeo.load("jacobi")
    a = jm.orfeo_comparison(runs_raw, seed).sort_values(["source", "np", "mapping"]).reset_index(drop=True)
    b = jm.orfeo_comparison(runs, seed).sort_values(["source", "np", "mapping"]).reset_index(drop=True)
    assert len(a) > 50
    pd.testing.assert_frame_equal(a, b, check_dtype=False, rtol=1e-9)
    plt.close("all")
