"""`commbook fit hockney` and `commbook predict hockney`: output, files, and every bad input.

The measurement files here are synthetic test inputs (model + noise), written in the tidy
schema with source "synthetic test data"."""

import json

import numpy as np
import pandas as pd
import pytest

from commbook.cli import main
from commbook.data import write_measurements

SIZES = [0] + [2**k for k in range(25)]


def tidy(lam=0.4, bw=6000.0, sizes=SIZES, noise=0.02, seed=0, **cols):
    rng = np.random.default_rng(seed)
    n = np.asarray(sizes, float)
    t = (lam + n / bw) * (1 + noise * rng.standard_normal(n.size))
    return pd.DataFrame(
        {
            "benchmark": "pingpong",
            "np": 2,
            "size_bytes": n.astype(int),
            "t_us": t,
            "mapping": "core",
            "machine": "test",
            "source": "synthetic test data",
            **cols,
        }
    )


@pytest.fixture
def csv(tmp_path):
    return write_measurements(tmp_path / "pp.csv", tidy(), {"note": "synthetic test data"})


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_fit_prints_latency_and_bandwidth_with_ci(capsys, csv):
    rc, out, err = run(capsys, "fit", "hockney", csv, "--bootstrap", "50")
    assert rc == 0, err
    lam = float(out.split("λ  = ")[1].split(" µs")[0])
    bw = float(out.split("b  = ")[1].split(" MB/s")[0])
    assert lam == pytest.approx(0.4, rel=0.1) and bw == pytest.approx(6000, rel=0.1)
    assert "95% bootstrap CI" in out and "mapping core" in out


def test_fit_json_out_then_predict_from_file(capsys, csv, tmp_path):
    out_file = tmp_path / "fit.json"
    rc, out, err = run(capsys, "fit", "hockney", csv, "--json", "--bootstrap", "30", "--out", out_file)
    assert rc == 0, err
    d = json.loads(out)
    assert d["model"] == "hockney" and d["fit"]["ci"]["n_boot"] == 30
    assert d["source"]["rows"] == len(SIZES) and d["source"]["mapping"] == "core"
    assert json.loads(out_file.read_text()) == d
    rc, out, err = run(capsys, "predict", "hockney", "--model", out_file, "--sizes", "0,1M", "--json")
    assert rc == 0, err
    pred = json.loads(out)["predictions"]
    lam, bw = d["lambda_us"], d["bandwidth_MBps"]
    assert pred[0]["t_us"] == pytest.approx(lam)
    assert pred[1]["t_us"] == pytest.approx(lam + (1 << 20) / bw)
    assert pred[1]["bandwidth_MBps"] == pytest.approx((1 << 20) / (lam + (1 << 20) / bw))


def test_piecewise_fit_lists_segments_and_predicts_by_segment(capsys, tmp_path):
    n = np.asarray(SIZES, float)
    t = np.where(n <= 4096, 0.3 + n / 3000, 3.0 + n / 8000)  # synthetic protocol switch
    table = tidy(sizes=SIZES, noise=0.0)
    table["t_us"] = t
    f = write_measurements(tmp_path / "switch.csv", table)
    rc, out, err = run(capsys, "fit", "hockney", f, "--piecewise", "--bootstrap", "0", "--out", tmp_path / "pw.json")
    assert rc == 0, err
    assert "2 segment(s)" in out and "segment 1: 0 B to 4 KiB" in out and "segment 2: 4097 B and up" in out
    rc, out, err = run(capsys, "predict", "hockney", "--model", tmp_path / "pw.json", "--sizes", "4K,8K", "--json")
    rows = json.loads(out)["predictions"]
    assert [r["segment"] for r in rows] == [1, 2]
    assert rows[1]["t_us"] == pytest.approx(3.0 + 8192 / 8000, rel=1e-3)


def test_predictive_setting_is_the_packages_and_predict_says_which(capsys, tmp_path):
    from commbook import fit

    n = np.asarray(SIZES, float)
    table = tidy(sizes=SIZES, noise=0.0)
    table["t_us"] = np.where(n <= 4096, 0.3 + n / 3000, 3.0 + n / 8000)
    f = write_measurements(tmp_path / "switch.csv", table)
    rc, out, err = run(capsys, "fit", "hockney", f, "--predictive", "--bootstrap", "0")
    assert rc == 2 and "--piecewise --predictive" in err
    rc, out, err = run(
        capsys,
        "fit",
        "hockney",
        f,
        "--piecewise",
        "--predictive",
        "--bootstrap",
        "0",
        "--json",
        "--out",
        tmp_path / "pred.json",
    )
    assert rc == 0, err
    d = json.loads(out)
    expect = fit.fit_piecewise(n, table.t_us.to_numpy(), **fit.PREDICTIVE, n_boot=0).to_dict()
    assert d["setting"] == "predictive" and d["segments"] == expect["segments"]
    rc, out, err = run(capsys, "predict", "hockney", "--model", tmp_path / "pred.json", "--sizes", "1K")
    assert rc == 0 and "predictive setting" in out
    with pytest.raises(SystemExit):
        main(["fit", "hockney", "--help"])
    out = capsys.readouterr().out
    assert "--predictive" in out and "PREDICTING" in out and "DESCRIBES" in out


def test_predict_from_parameters(capsys):
    rc, out, err = run(
        capsys, "predict", "hockney", "--lambda-us", "0.5", "--bandwidth-MBps", "2000", "--sizes", "0,1K", "--json"
    )
    assert rc == 0, err
    d = json.loads(out)
    assert d["model"]["n_half_bytes"] == pytest.approx(1000)
    assert [r["t_us"] for r in d["predictions"]] == pytest.approx([0.5, 0.5 + 1024 / 2000])
    rc, out, err = run(capsys, "predict", "hockney", "--lambda-us", "0.5", "--bandwidth-MBps", "2000", "--sizes", "1K")
    assert rc == 0 and "model values, not measurements" in out and "1024" in out


def test_select_narrows_a_mixed_file(capsys, tmp_path):
    table = pd.concat([tidy(), tidy(lam=5.0, bw=2000, mapping="node")])
    f = write_measurements(tmp_path / "mixed.csv", table)
    rc, out, err = run(capsys, "fit", "hockney", f, "--bootstrap", "0")
    assert rc == 2 and "mix 2 values of mapping (core, node)" in err and "--select mapping=" in err
    rc, out, err = run(capsys, "fit", "hockney", f, "--bootstrap", "0", "--select", "mapping=node", "--json")
    assert rc == 0, err
    assert json.loads(out)["lambda_us"] == pytest.approx(5.0, rel=0.1)


def bad_files(tmp_path):
    wrong_bench = write_measurements(tmp_path / "ring.csv", tidy().assign(benchmark="ring"))
    one_size = write_measurements(tmp_path / "one.csv", tidy(sizes=[64, 64, 64]))
    junk = tmp_path / "junk.csv"
    junk.write_text("benchmark,np,size_bytes,t_us\npingpong,2,0,0.3\npingpong,2,8,fast\n")
    model_junk = tmp_path / "bad.json"
    model_junk.write_text('{"model": "hockney",\n "lambda_us": 0.3,,\n}')
    model_kind = tmp_path / "kind.json"
    model_kind.write_text(json.dumps({"model": "loggp"}))
    return wrong_bench, one_size, junk, model_junk, model_kind


def test_every_bad_input_gives_one_clear_line(capsys, csv, tmp_path):
    wrong_bench, one_size, junk, model_junk, model_kind = bad_files(tmp_path)
    cases = [
        (["fit", "hockney", tmp_path / "nope.csv"], "nope.csv: no such file"),
        (["fit", "hockney", junk], "junk.csv:3: column 't_us' has 'fast'"),
        (["fit", "hockney", wrong_bench], "no rows with benchmark 'pingpong' (it has: ring)"),
        (["fit", "hockney", one_size], "two different message sizes"),
        (["fit", "hockney", csv, "--select", "color=red"], "no column 'color'"),
        (["fit", "hockney", csv, "--select", "mapping"], "not KEY=VALUE"),
        (["fit", "hockney", csv, "--select", "mapping=socket"], "values there: core"),
        (["fit", "hockney", csv, "--max-segments", "0"], "--max-segments must be at least 1"),
        (["fit", "hockney", csv, "--bootstrap", "-1"], "--bootstrap must be 0 or more"),
        (["predict", "hockney", "--lambda-us", "1"], "need --lambda-us and --bandwidth-MBps"),
        (["predict", "hockney", "--lambda-us", "-1", "--bandwidth-MBps", "10"], "latency must be >= 0"),
        (["predict", "hockney", "--lambda-us", "1", "--bandwidth-MBps", "0"], "bandwidth must be > 0"),
        (["predict", "hockney", "--lambda-us", "1", "--bandwidth-MBps", "nan"], "must be finite"),
        (["predict", "hockney", "--model", csv, "--lambda-us", "1"], "not both"),
        (
            ["predict", "hockney", "--lambda-us", "1", "--bandwidth-MBps", "9", "--sizes", "8,big"],
            "'big' is not a byte count",
        ),
        (["predict", "hockney", "--model", model_junk], "bad.json:2: not valid JSON"),
        (["predict", "hockney", "--model", model_kind], "kind.json: not a Hockney model"),
        (["predict", "hockney", "--model", tmp_path / "none.json"], "none.json: no such file"),
    ]
    for argv, what in cases:
        rc, out, err = run(capsys, *argv)
        assert rc == 2, (argv, out, err)
        assert what in err, (argv, err)
        assert err.startswith("commbook: error:") and err.count("\n") == 1, err


def test_junk_number_is_refused_by_the_parser(capsys):
    with pytest.raises(SystemExit) as e:
        main(["predict", "hockney", "--lambda-us", "slow", "--bandwidth-MBps", "1"])
    assert e.value.code == 2
    assert "invalid float value: 'slow'" in capsys.readouterr().err
