"""Out-of-sample validation: the harness, the predictive piecewise fit, the committed tables."""

import numpy as np
import pandas as pd
import pytest

from commbook import fit, validate
from commbook.cli import main
from commbook.fit import piecewise
from commbook.models.hockney import Hockney

SIZES = np.array([0] + [2**k for k in range(23)], float)


def test_loglog_interpolation_is_exact_on_a_power_law_and_between_points():
    n_fit, t_fit = np.array([0, 4, 16.0]), np.array([1.0, 5.0, 17.0])
    got = validate.loglog_interpolate(n_fit, t_fit, [4, 8])
    assert got[0] == pytest.approx(5.0)
    assert 5.0 < got[1] < 17.0


def test_crossing_breakpoint_gives_the_gap_to_the_faster_line():
    # two lines fitted on 0..1 KiB and 64 KiB..: they cross inside the unmeasured gap
    low, high = Hockney(1.0, 1000.0), Hockney(20.0, 10000.0)
    cross = (20.0 - 1.0) / (1 / 1000 - 1 / 10000)  # 21 111 B
    assert piecewise._gap_breakpoint(1024, 65536, low, high) == int(cross)
    # no crossing in the gap: the whole gap goes to the line that is lower in it
    assert piecewise._gap_breakpoint(1024, 2048, low, high) == 2047
    assert piecewise._gap_breakpoint(1024, 2048, high, low) == 1024


def test_predictive_setting_beats_the_descriptive_one_on_a_held_out_cache_edge():
    # latency regime, bandwidth regime, then a cache edge: bandwidth halves beyond 1 MiB
    t = np.where(SIZES <= 1024, 1.0 + SIZES / 500, np.where(SIZES <= 1 << 20, 3.0 + SIZES / 8000, SIZES / 4000))
    keep = np.arange(SIZES.size) % 2 == 0
    err = {}
    for name, kw in (("bic", {}), ("predictive", fit.PREDICTIVE)):
        f = fit.fit_piecewise(SIZES[keep], t[keep], n_boot=0, **kw)
        err[name] = np.median(np.abs(f.time_us(SIZES[~keep]) / t[~keep] - 1))
    assert err["predictive"] < 0.05 and err["predictive"] <= err["bic"]
    with pytest.raises(ValueError, match="criterion"):
        fit.fit_piecewise(SIZES, t, criterion="cv")
    with pytest.raises(ValueError, match="gap"):
        fit.fit_piecewise(SIZES, t, gap="middle")


def _curve(source, t, machine="orfeo-thin", curve=""):
    return {
        "source": source,
        "machine": machine,
        "mapping": "core",
        "transport": "ucx",
        "mpi_library": "Open MPI",
        "curve": curve,
        "n": SIZES,
        "t": np.asarray(t, float),
    }


def test_pingpong_sizes_split_scores_each_method_on_the_odd_sizes_only():
    line = 0.5 + SIZES / 5000
    rows, points = validate.pingpong_sizes([_curve("a@1:x.csv", line)])
    r = rows.iloc[0]
    assert r.n_fit == 12 and r.n_test == 12 and r.source == "a@1:x.csv"
    assert r.err_piecewise_predictive < 1e-3 and r.err_interpolation > 1e-3
    assert list(points.size_bytes) == [int(s) for s in SIZES[1::2][:: validate.PINGPONG_POINT_STEP]]


def test_runs_and_machines_pair_the_right_curves():
    line = 0.5 + SIZES / 5000
    curves = [
        _curve("m@1:thin/core-ucx-1.csv", line, curve="run=1"),
        _curve("m@1:thin/core-ucx-2.csv", line * 1.2, curve="run=2"),
        _curve("m@1:gpu/core-ucx-1.csv", line * 1.5, machine="orfeo-gpu", curve="run=1"),
    ]
    runs = validate.pingpong_runs(curves)
    assert list(runs.what) == ["run 1 -> run 2"]
    assert runs.err_model.iloc[0] == pytest.approx(1 - 1 / 1.2, abs=1e-3)  # model of run 1 vs run 2
    machines = validate.pingpong_machines(curves)
    assert len(machines) == 1 and machines.machine_test.iloc[0] == "orfeo-gpu"
    assert machines.err_model.iloc[0] == pytest.approx(1 - 1 / 1.5, abs=1e-3)


def test_collective_choice_is_scored_against_measured_times():
    from commbook.models.collective_costs import predict

    rows = []
    for P in (2, 4, 8, 16, 32):
        for n in (1, 1024, 1 << 20):
            for alg, model in (("basic_linear", "linear"), ("binomial", "binomial")):
                rows.append(
                    {"algorithm": alg, "np": P, "size_bytes": n, "t_us": predict("bcast", model, P, n, 2.0, 5000.0)}
                )
    g = pd.DataFrame(rows)
    table, pts = validate.collective_processes(
        [
            ("bcast", "x/y", "orfeo-thin", "core", g),
            ("barrier", "x/y", "orfeo-thin", "core", "no model of barrier algorithms"),
        ],
        cores={"orfeo-thin": 8},
    )
    ok = table.iloc[0]
    assert ok.status == "ok" and ok.train == "P <= 8 (one node's cores)" and ok.cases == 6
    assert ok.chosen_fastest == 1.0 and ok.median_model_error < 1e-6
    assert table.iloc[1].status == "no model of barrier algorithms"
    assert set(pts.np) <= {16, 32} and len(pts)


def test_tables_write_read_and_summarise(tmp_path):
    line = 0.5 + SIZES / 5000
    curves = [_curve("a@1:x.csv", line), _curve("b@2:y.csv", line * (1 + 0.3 * (SIZES > 4096)))]
    tables = {}
    tables["pingpong_sizes"], tables["pingpong_points"] = validate.pingpong_sizes(curves)
    tables["pingpong_runs"] = validate.pingpong_runs(curves)
    tables["pingpong_machines"] = validate.pingpong_machines(curves)
    tables["collectives"] = pd.DataFrame(
        [
            {
                "op": "bcast",
                "dataset": "x/y",
                "machine": "orfeo-thin",
                "mapping": "core",
                "status": "ok",
                "algorithms": "linear binomial",
                "train": "P <= 8 (one node's cores)",
                "cases": 10,
                "chosen_fastest": 0.7,
                "chosen_within_10": 0.9,
                "always_one": 0.9,
                "median_model_error": 0.2,
                "worst_model_error": 0.3,
            }
        ]
    )
    tables["collectives_points"] = pd.DataFrame({"op": ["bcast"], "t_us": [1.0], "pred_us": [1.2]})
    tables["jacobi"] = pd.DataFrame(
        {
            "machine": ["orfeo-thin", "orfeo-gpu"],
            "np": [4, 48],
            "measured_mlups": [450.0, 1900.0],
            "model_mlups": [453.0, 3750.0],
            "model_over_measured": [453 / 450, 3750 / 1900],
            "within_15": [True, False],
        }
    )
    validate.write_tables(tables, tmp_path, command="test")
    text = (tmp_path / "pingpong_sizes.csv").read_text()
    assert text.startswith("# what:") and "# regenerate: test" in text
    s = validate.summary(tmp_path)
    j = s[s.model == "Jacobi P(L, N)"].iloc[0]
    assert j.share_within == 0.5 and j.met == "no"
    v = validate.jacobi_verdict(validate.load_table("jacobi", tmp_path))
    assert v.case == "some_outside" and v.numbers["runs"] == 2 and v.numbers["outside"] == 1
    assert validate.pingpong_verdict(validate.load_table("pingpong_sizes", tmp_path)).numbers["curves"] == 2
    with pytest.raises(FileNotFoundError, match="commbook validate"):
        validate.load_table("jacobi", tmp_path / "missing")


def test_committed_tables_give_the_book_its_numbers():
    """The book renders from the committed tables alone (no raw data)."""
    s = validate.summary()
    pp = s[(s.model == "ping-pong") & s.split.str.startswith("sizes")].set_index("method")
    assert pp.loc["piecewise predictive", "share_within"] >= 0.95
    assert pp.loc["piecewise predictive", "median_error"] <= pp.loc["interpolation", "median_error"]
    for name, path in validate.TABLE_FILES.items():
        assert (validate.TABLES_DIR / path).stat().st_size < 300_000, name


def test_cli_summary_and_bad_part(capsys):
    assert main(["validate", "summary"]) == 0
    assert "piecewise predictive" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["validate", "ring"])
    assert main(["validate", "summary", "--write"]) == 2
    assert "only reads" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.starts_first
@pytest.mark.timeout(1500)  # about 4 min on 2 idle cores; CI runs it beside other tests (pytest-xdist)
def test_committed_tables_are_what_the_raw_files_give(orfeo_mirror, tmp_path, monkeypatch, capsys):
    """Regenerate every table from the hash-checked raw files: the committed ones must not drift.
    (Numbers compared to 1e-4 relative: the files print 6 significant digits, and the last one
    may differ between BLAS builds.)"""
    monkeypatch.setenv("COMMBOOK_ORFEO_MIRROR", str(orfeo_mirror))
    assert main(["validate", "all", "--write", "--out", str(tmp_path)]) == 0
    for name, path in validate.TABLE_FILES.items():
        fresh, committed = validate.load_table(name, tmp_path), validate.load_table(name)
        pd.testing.assert_frame_equal(
            fresh, committed, check_exact=False, rtol=1e-4, obj=f"{path} (regenerate: commbook validate all --write)"
        )
        meta = lambda p: [
            x
            for x in p.read_text().splitlines()  # noqa: E731
            if x.startswith("#") and not x.startswith("# regenerate:")
        ]
        assert meta(tmp_path / path) == meta(validate.TABLES_DIR / path)


def test_overview_pools_collectives_per_operation():
    o = validate.overview()
    assert list(o.columns[:3]) == ["model", "split", "method"]
    assert o.model.iloc[-1] == "Jacobi P(L, N)"
    bcast = o[o.model == "bcast algorithm choice"].iloc[0]
    assert bcast.met.endswith(f"of {bcast.cases.split()[0]}")


def _sizes(model, interp):
    """A pingpong_sizes table: one row per curve, each method's median relative error."""
    return pd.DataFrame({"err_piecewise_predictive": model, "err_interpolation": interp, "err_piecewise_bic": interp})


def test_pingpong_verdict_reads_every_curve():
    ahead = validate.pingpong_verdict(_sizes([0.01, 0.02, 0.03], [0.02, 0.03, 0.2]))
    assert ahead.case == "model_ahead" and ahead.numbers["curves"] == 3
    assert ahead.numbers["model_error"] == pytest.approx(2.0) and ahead.numbers["interp_within"] == pytest.approx(
        200 / 3
    )
    # both 100 % within the band: a lower error alone is not "ahead on both counts"
    even = validate.pingpong_verdict(_sizes([0.01, 0.02, 0.03], [0.02, 0.03, 0.04]))
    assert even.case == "even" and even.numbers["model_within"] == even.numbers["interp_within"] == pytest.approx(100)
    assert (
        validate.pingpong_verdict(_sizes([0.02, 0.02, 0.5], [0.01, 0.02, 0.03])).case == "even"
    )  # the same median error
    # one more curve the model misses and interpolation does not: lower median error, smaller share
    split = validate.pingpong_verdict(_sizes([0.01, 0.02, 0.03, 0.5], [0.02, 0.03, 0.04, 0.05]))
    assert split.case == "split" and split.numbers["model_within"] == pytest.approx(75)
    behind = validate.pingpong_verdict(_sizes([0.3, 0.4], [0.01, 0.02]))
    assert behind.case == "interpolation_ahead"


def test_jacobi_verdict_counts_every_run():
    runs = pd.DataFrame({"within_15": [True, True], "model_over_measured": [1.02, 0.95]})
    v = validate.jacobi_verdict(runs)
    assert v.case == "all_within" and v.numbers == {"runs": 2, "outside": 0, "error": pytest.approx(3.5), "band": 15.0}
    one_more = pd.concat([runs, pd.DataFrame({"within_15": [False], "model_over_measured": [1.9]})])
    v = validate.jacobi_verdict(one_more)
    assert v.case == "some_outside" and v.numbers["outside"] == 1 and v.numbers["runs"] == 3
