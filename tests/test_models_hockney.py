"""The Hockney model and its piecewise form: evaluation, derived quantities, JSON files."""

import json

import numpy as np
import pytest

from commbook.data import DataFormatError
from commbook.model_files import load_model, save_model
from commbook.models.hockney import Hockney, PiecewiseHockney, Segment, model_from_json


def test_time_and_units():
    m = Hockney(2.0, 1000.0)  # 1000 MB/s = 1000 B/µs
    assert m.time_us([0, 1000, 1_000_000]).tolist() == pytest.approx([2.0, 3.0, 1002.0])
    assert m.n_half == pytest.approx(2000.0)


def test_effective_bandwidth_is_half_of_b_at_n_half():
    m = Hockney(0.7, 6000.0)
    assert m.effective_bandwidth([m.n_half])[0] == pytest.approx(3000.0)
    assert m.effective_bandwidth([0])[0] == 0.0
    assert m.effective_bandwidth([1e12])[0] == pytest.approx(6000.0, rel=1e-5)


@pytest.mark.parametrize(
    "lam,bw,what", [(-0.1, 100, "latency"), (1, 0, "bandwidth"), (float("nan"), 100, "finite"), (1, "fast", "number")]
)
def test_refuses_impossible_parameters(lam, bw, what):
    with pytest.raises(ValueError, match=what):
        Hockney(lam, bw)


def test_refuses_negative_size():
    with pytest.raises(ValueError, match="sizes must be >= 0"):
        Hockney(1, 1).time_us([8, -1])


def two_segments():
    return PiecewiseHockney((Segment(0, 4096, Hockney(0.3, 3000.0)), Segment(4097, None, Hockney(3.0, 8000.0))))


def test_piecewise_picks_segment_by_size():
    m = two_segments()
    t = m.time_us([0, 4096, 4097, 8 << 20])
    assert t.tolist() == pytest.approx([0.3, 0.3 + 4096 / 3000, 3.0 + 4097 / 8000, 3.0 + (8 << 20) / 8000])
    assert m.segment_index([0, 4096, 4097]).tolist() == [0, 0, 1]
    assert m.breakpoints == [4096]


@pytest.mark.parametrize(
    "segs,what",
    [
        ((), "at least one"),
        ((Segment(1, None, Hockney(1, 1)),), "start at 0"),
        ((Segment(0, 10, Hockney(1, 1)),), "open-ended"),
        ((Segment(0, 10, Hockney(1, 1)), Segment(20, None, Hockney(1, 1))), "contiguous"),
    ],
)
def test_piecewise_refuses_bad_segments(segs, what):
    with pytest.raises(ValueError, match=what):
        PiecewiseHockney(segs)


def test_json_round_trip_single_and_piecewise(tmp_path):
    for m in (Hockney(0.25, 6278.5), two_segments()):
        assert model_from_json(m.to_json()) == m
        path = save_model(tmp_path / "m.json", m)
        assert load_model(path) == m
    # a fit file carries extra keys; the model is still read
    d = Hockney(1.5, 2000).to_dict()
    d["fit"] = {"rms_rel": 0.01}
    assert model_from_json(json.dumps(d)) == Hockney(1.5, 2000)
    with pytest.raises(ValueError, match="piecewise"):
        Hockney.from_json(two_segments().to_json())


def test_malformed_model_file_names_file_and_line(tmp_path):
    bad = tmp_path / "fit.json"
    bad.write_text('{\n "model": "hockney",\n "lambda_us": 0.3,\n oops\n}\n')
    with pytest.raises(DataFormatError) as e:
        load_model(bad)
    assert str(bad) in str(e.value) and e.value.line == 4
    bad.write_text(json.dumps({"model": "logp", "L": 1}))
    with pytest.raises(DataFormatError, match="expected 'hockney'"):
        load_model(bad)
    bad.write_text(json.dumps({"model": "hockney", "lambda_us": 1}))
    with pytest.raises(DataFormatError, match="missing 'bandwidth_MBps'"):
        load_model(bad)
    bad.write_text(
        json.dumps(
            {
                "model": "hockney-piecewise",
                "segments": [{"min_bytes": 0, "max_bytes": None, "lambda_us": -2, "bandwidth_MBps": 5}],
            }
        )
    )
    with pytest.raises(DataFormatError, match="segment 1: latency"):
        load_model(bad)
    with pytest.raises(DataFormatError, match="no such file"):
        load_model(tmp_path / "missing.json")


def test_sizes_may_be_a_scalar_or_numpy():
    m = Hockney(1.0, 10.0)
    assert m.time_us(np.int64(20))[0] == pytest.approx(3.0)
