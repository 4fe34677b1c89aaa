"""Widgets refuse impossible values and draw their default figures."""
import math

import matplotlib
import pytest

matplotlib.use("Agg")

from commbook import orfeo, widgets  # noqa: E402


@pytest.mark.parametrize("bad", [0, -1, math.nan, math.inf, None])
def test_positive_refuses(bad):
    with pytest.raises(ValueError, match="must be a positive number"):
        widgets.positive("b (MB/s)", bad)


def test_hockney_figure_refuses_nonphysical_bandwidth():
    with pytest.raises(ValueError, match="b \\(MB/s\\)"):
        widgets.hockney_figure(1.0, -5.0)


def test_hockney_figure_draws_model_labelled_as_model():
    fig = widgets.hockney_figure(0.5, 5000.0)
    labels = [l.get_label() for ax in fig.axes for l in ax.get_lines()]
    assert any("model" in l.lower() for l in labels)


def test_explorer_sliders_are_bounded_to_physical_ranges():
    presets = widgets.pingpong_presets(orfeo.summary_table("pingpong_seed"))
    assert presets["orfeo-thin by node: ucx (Open MPI 4.1.1)"] == (0.99, 12090.0)
    box = widgets.hockney_explorer(None, presets)
    sliders = [w for w in box.children[1].children]
    lam, bw = sliders
    lam.value = -3          # ipywidgets clamps instead of accepting
    bw.value = 1e12
    assert lam.value >= 10 ** lam.min > 0
    assert bw.value <= 10 ** bw.max
    box.children[0].value = "orfeo-thin by node: ucx (Open MPI 4.1.1)"
    assert (round(lam.value, 2), round(bw.value)) == (0.99, 12090)
