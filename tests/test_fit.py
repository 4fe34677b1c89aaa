"""Fitting Hockney lines: recovery of known parameters, positivity, breakpoints, bootstrap,
input checks, JSON; and one real ping-pong measurement (mpi) where plain least squares fails.

Unit-test inputs marked "synthetic" are generated from the model with noise, on purpose."""

import json

import numpy as np
import pandas as pd
import pytest

from commbook import fit
from commbook.chapters import pingpong as pingpong_chapter
from commbook.fit.relative_error import DEFAULT_F_SCALE
from commbook.model_files import load_model, save_model
from commbook.models.hockney import Hockney

SIZES = np.array([0] + [2**k for k in range(27)], float)  # 0 B .. 64 MiB


def synthetic(lam, bw, noise=0.03, seed=1, sizes=SIZES, reps=1):
    """Synthetic times from the model with multiplicative noise (test input, not a measurement)."""
    rng = np.random.default_rng(seed)
    n = np.repeat(sizes, reps)
    t = (lam + n / bw) * (1 + noise * rng.standard_normal(n.size))
    return n, t


def test_recovers_known_parameters():
    n, t = synthetic(0.5, 8000.0)
    f = fit.fit_hockney(n, t, n_boot=0)
    assert f.lambda_us == pytest.approx(0.5, rel=0.05)
    assert f.bandwidth_MBps == pytest.approx(8000.0, rel=0.05)
    assert f.n_half == pytest.approx(4000.0, rel=0.1)
    assert f.rms_rel < 0.05 and not f.warnings
    assert f.size_range == (0, 64 << 20) and f.n_points == SIZES.size


def test_never_negative_latency_where_plain_least_squares_is():
    # synthetic shared-memory-like curve: fast up to 4 MiB (cache), slower beyond (DRAM)
    n = SIZES
    t = np.where(n <= 4 << 20, 0.25 + n / 20000, 0.25 + (4 << 20) / 20000 + (n - (4 << 20)) / 6300)
    assert fit.ols_hockney(n, t).lambda_us < -10  # the seed reports' failure
    f = fit.fit_hockney(n, t, n_boot=0)
    assert 0 < f.lambda_us and f.lambda_us == pytest.approx(0.25, rel=0.2)


def test_orfeo_student_fit_negative_latency_is_fixed(orfeo_mirror):
    ORFEO = orfeo_mirror / "matteoscorcia/assignment1/section2/thin/results/intel/core-mlx.csv"
    # the student's own file: 3 header lines, then IMB columns and the student's model
    header = ORFEO.read_text().splitlines()[2]
    assert "-> -38.61" in header  # the student's λ
    d = pd.read_csv(ORFEO, skiprows=3)
    n, t = d["#bytes"].to_numpy(float), d["t[usec]"].to_numpy(float)
    assert fit.ols_hockney(n, t).lambda_us == pytest.approx(-38.61, abs=0.05)  # we reproduce it
    f = fit.fit_hockney(n, t, n_boot=0)
    assert f.lambda_us == pytest.approx(t[0], rel=0.2)  # 0.25 µs measured at 0 B
    p = fit.fit_piecewise(n, t, n_boot=0)
    assert p.rms_rel < f.rms_rel
    assert all(s.model.lambda_us >= 0 for s in p.model.segments)


def test_piecewise_finds_protocol_switch():
    lo = SIZES <= 4096
    rng = np.random.default_rng(7)
    t = np.where(lo, 0.3 + SIZES / 3000, 3.0 + SIZES / 8000) * (1 + 0.02 * rng.standard_normal(SIZES.size))
    p = fit.fit_piecewise(SIZES, t, max_segments=3, n_boot=0)
    assert p.n_segments == 2 and p.breakpoints == [4096]
    low, high = p.segments
    assert low.lambda_us == pytest.approx(0.3, rel=0.1)
    assert high.lambda_us == pytest.approx(3.0, rel=0.15)
    assert high.bandwidth_MBps == pytest.approx(8000, rel=0.05)
    assert p.bic[2] < p.bic[1]
    assert p.model.segments[1].min_bytes == 4097


def test_piecewise_keeps_one_segment_for_one_line():
    n, t = synthetic(1.0, 5000.0, noise=0.03, seed=3)
    p = fit.fit_piecewise(n, t, n_boot=0)
    assert p.n_segments == 1 and p.breakpoints == []


def test_bootstrap_intervals_cover_the_truth():
    hits_l = hits_b = 0
    for seed in range(10):
        n, t = synthetic(0.5, 8000.0, noise=0.05, seed=100 + seed)
        ci = fit.bootstrap_ci(n, t, n_boot=100, seed=seed)
        assert ci.method == "points" and ci.n_boot + ci.n_failed == 100
        hits_l += ci.lambda_us[0] <= 0.5 <= ci.lambda_us[1]
        hits_b += ci.bandwidth_MBps[0] <= 8000 <= ci.bandwidth_MBps[1]
        assert ci.n_half_bytes[0] < ci.n_half_bytes[1]
    assert hits_l >= 7 and hits_b >= 7


def test_bootstrap_resamples_repetitions_when_given():
    hits_l = hits_b = 0
    for seed in range(5):
        n, t = synthetic(2.0, 3000.0, noise=0.04, seed=200 + seed, reps=4)
        f = fit.fit_hockney(n, t, n_boot=100, seed=seed)
        assert f.ci.method == "repetitions"
        assert f.n_sizes == SIZES.size and f.n_points == 4 * SIZES.size
        hits_l += f.ci.lambda_us[0] <= 2.0 <= f.ci.lambda_us[1]
        hits_b += f.ci.bandwidth_MBps[0] <= 3000 <= f.ci.bandwidth_MBps[1]
    assert hits_l >= 3 and hits_b >= 3
    with pytest.raises(ValueError, match="two rows for every size"):
        fit.bootstrap_ci(SIZES, synthetic(2.0, 3000.0)[1], method="repetitions")


def test_residuals_are_relative():
    n = np.array([0, 1000, 10000.0])
    m = Hockney(1.0, 1000.0)
    assert fit.residuals(m, n, m.time_us(n)) == pytest.approx(0.0)
    assert fit.residuals(m, n, m.time_us(n) / 1.1) == pytest.approx([0.1] * 3)


@pytest.mark.parametrize(
    "sizes,times,what",
    [
        ([], [], "empty"),
        ([0, 8], [1.0], "2 sizes but 1 times"),
        ([0, -8], [1.0, 2.0], "negative message size"),
        ([0, 8], [1.0, 0.0], "not positive"),
        ([0, 8], [1.0, -3.0], "not positive"),
        ([8, 8], [1.0, 1.1], "two different message sizes"),
        ([0, 8], [1.0, float("nan")], "not a finite"),
    ],
)
def test_refuses_bad_input(sizes, times, what):
    with pytest.raises(ValueError, match=what):
        fit.fit_hockney(sizes, times, n_boot=0)


def test_refuses_bad_options():
    n, t = synthetic(1.0, 1000.0)
    with pytest.raises(ValueError, match="loss"):
        fit.fit_hockney(n, t, loss="l3")
    with pytest.raises(ValueError, match="max_segments"):
        fit.fit_piecewise(n, t, max_segments=0)
    with pytest.raises(ValueError, match="at least 3 different sizes"):
        fit.fit_piecewise([0, 1], [1.0, 1.1], n_boot=0)


def test_fit_json_round_trip(tmp_path):
    n, t = synthetic(0.5, 8000.0)
    f = fit.fit_hockney(n, t, n_boot=50)
    again = fit.HockneyFit.from_dict(json.loads(json.dumps(f.to_dict())))
    assert again == f
    save_model(tmp_path / "f.json", f)
    assert load_model(tmp_path / "f.json") == f.model  # what `predict --model` reads
    lo = SIZES <= 4096
    t2 = np.where(lo, 0.3 + SIZES / 3000, 3.0 + SIZES / 8000)
    p = fit.fit_piecewise(SIZES, t2, n_boot=20)
    p2 = fit.PiecewiseFit.from_dict(json.loads(json.dumps(p.to_dict())))
    assert p2.model == p.model and p2.bic == p.bic and p2.segments == p.segments


@pytest.mark.mpi
def test_relative_fit_beats_plain_least_squares_on_a_real_measurement():
    from commbook.kernels import run_mpiexec

    # 100 round trips per repetition (not 1000): the same kernel, quicker on a busy 2-core box
    out = run_mpiexec("pingpong", 2, {"sizes": "0:4M", "repetitions": 3, "iterations": 100}, timeout=120)
    n = out.table["size_bytes"].to_numpy(float)
    t = out.table["t_median_us"].to_numpy(float)
    ours = fit.fit_hockney(n, t, n_boot=0)
    plain = fit.ols_hockney(n, t)
    small = n <= 1024
    err_ours = np.median(np.abs(fit.residuals(ours.model, n[small], t[small])))
    assert err_ours < 0.3, f"relative fit misses small messages by {err_ours:.0%}"

    def relative_loss(model):  # what the relative fit minimises: soft_l1 of the relative residuals
        z = (fit.residuals(model, n, t) / DEFAULT_F_SCALE) ** 2
        return float(np.sum(2 * (np.sqrt(1 + z) - 1)))

    # Whether plain least squares also lands near the small messages depends on the run (it did,
    # 1.7 % against 4.3 %, once under MPICH); over every size it cannot do better on that loss
    # unless the fit is broken, or it puts λ below 0, which no latency can be.
    if plain.lambda_us >= 0:
        assert relative_loss(ours.model) <= relative_loss(plain) * (1 + 1e-3), (ours.model, plain)
    assert ours.lambda_us > 0 and ours.lambda_us == pytest.approx(np.median(t[n <= 64]), rel=0.5)


def test_plots_label_models_and_drop_unphysical_times():
    import matplotlib

    matplotlib.use("Agg")
    n = SIZES
    t = np.where(n <= 4 << 20, 0.25 + n / 20000, 0.25 + (4 << 20) / 20000 + (n - (4 << 20)) / 6300)
    ours, plain = fit.fit_hockney(n, t, n_boot=0), fit.ols_hockney(n, t)
    fig = pingpong_chapter.plot_pingpong_fit(n, ours, times=t, others={"plain least squares": plain})
    ax_t, ax_b = fig.axes[:2]
    lines = {ln.get_label(): ln for ln in ax_t.get_lines() if not ln.get_label().startswith("_")}
    assert "measured" in lines and all("model" in k for k in lines if k != "measured"), lines.keys()
    ols_y = lines["plain least squares (model)"].get_ydata()
    assert np.isnan(ols_y[0]) and np.all(np.isfinite(ols_y[-5:]))  # negative λ not drawn
    fig = pingpong_chapter.plot_residuals(ours, n, t)
    drawn = fig.axes[0].get_lines()[0].get_ydata()
    assert drawn == pytest.approx(100 * fit.residuals(ours.model, n, t))
    matplotlib.pyplot.close("all")


def test_segments_fitted_at_once_reach_scipys_optimum_bounds_included():
    """The piecewise search fits every segment at once (_soft_l1_params_many); each must reach
    the robust loss scipy's least_squares reaches one segment at a time, also where a bound
    holds (λ = 0: a line through the origin with noise that would make λ negative; β at its
    floor: flat times)."""
    from commbook.fit.relative_error import DEFAULT_F_SCALE, _fit_params, _soft_l1_params_many

    rng = np.random.default_rng(7)
    n = np.repeat(2.0 ** np.arange(0, 24, 2), 2)
    curves = {
        "hockney": 1.5 + n / 8000.0,
        "through the origin": 1e-3 + n / 5000.0,
        "flat": np.full(n.size, 3.0),
        "protocol switch": np.where(n < 2**12, 0.5 + n / 3000.0, 9.0 + n / 9000.0),
    }
    for name, t0 in curves.items():
        t = t0 * (1 + 0.08 * rng.standard_normal(n.size)).clip(0.5)
        ranges = [(i, j) for i in range(0, n.size, 2) for j in range(i + 4, n.size + 1, 2)]
        lam, beta = _soft_l1_params_many(n, t, ranges)
        for (a, b), la, be in zip(ranges, lam, beta):
            assert la >= 0 and be > 0, name

            def loss(lam_, beta_, a=a, b=b):
                r = ((lam_ + beta_ * n[a:b]) / t[a:b] - 1) / DEFAULT_F_SCALE
                return np.sum(np.sqrt(1 + r**2) - 1)

            ref = loss(*_fit_params(n[a:b], t[a:b]))
            assert loss(la, be) <= ref * (1 + 1e-7) + 1e-12, (name, a, b, loss(la, be), ref)
