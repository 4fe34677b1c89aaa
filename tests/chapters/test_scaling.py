"""The scaling page (commbook.chapters.scaling): the scaling laws, the ORFEO Jacobi runs and its verdicts."""

import numpy as np
import pandas as pd
import pytest

from commbook.chapters import scaling as S


def test_scaling_local_verdict_names_each_range_of_the_speedup():
    from commbook.chapters import scaling as S

    assert "less than twice" in S.local_verdict(1.64, 0.79, "1.15")
    assert "far from twice" in S.local_verdict(1.3, 0.9, "1.0")
    assert "close to the ideal" in S.local_verdict(2.1, 0.97, "0.1")
    assert "more than the ideal" in S.local_verdict(2.5, 1.0, "0.1")
    slower = S.local_verdict(0.8, 0.7, "0.2")
    assert "*slower*" in slower and "where other work holds a core" in slower
    assert S.serial_fraction(44.7, 48) == pytest.approx(0.00157, abs=1e-5)


def test_amdahl_and_gustafson():
    assert S.amdahl_speedup(0, 16) == pytest.approx(16)
    assert S.amdahl_speedup(1, 16) == pytest.approx(1)
    assert S.amdahl_speedup(0.05, 1e9) == pytest.approx(20, rel=1e-6)
    assert S.gustafson_speedup(0.05, 48) == pytest.approx(48 - 0.05 * 47)
    assert S.serial_fraction(float(S.amdahl_speedup(0.02, 48)), 48) == pytest.approx(0.02)
    with pytest.raises(ValueError):
        S.amdahl_speedup(1.5, 4)


def test_serial_fraction_fit_recovers_amdahl():

    P = np.array([1, 2, 4, 8, 16, 48])
    strong = pd.DataFrame({"np": P, "speedup": S.amdahl_speedup(0.01, P)})
    assert S.fit_serial_fraction(strong) == pytest.approx(0.01, rel=1e-6)


def test_orfeo_jacobi_strong_and_weak():
    strong, weak = S.orfeo_jacobi()
    for df in (strong, weak):
        assert df.np.iloc[0] == 1 and df.np.is_unique and df.speedup.iloc[0] == pytest.approx(1)
        assert (df.efficiency > 0.5).all() and (df.efficiency <= 1.01).all()
    assert strong.t_us.is_monotonic_decreasing  # strong: more processes, less time
    assert weak.t_us.max() / weak.t_us.min() < 1.2  # weak: about the same time


def test_scaling_verdict_follows_the_speedup():
    assert "slower" in S.local_verdict(0.5, 0.4, "9.0")
    assert "far from twice" in S.local_verdict(1.3, 0.9, "1.0")
    assert "close to the ideal" in S.local_verdict(1.9, 0.97, "0.1")
