"""What a reader who cannot see colour or the figure gets: every matplotlib figure carries a
description (its alt text), colours come from colour-blind-safe palettes, and colour is never the
only difference between series. The browser audit (axe-core) is in test_book.py."""

import base64
import io

import matplotlib
import pytest

matplotlib.use("Agg")

import explorer_specs  # noqa: E402

from commbook import (  # noqa: E402
    figure_alt,
    plotting,
)
from commbook.explorers import ALL, layout  # noqa: E402


def _figure():
    fig, ax = plotting.new_axes(
        "Ping-pong time on this machine", "message size n (bytes)", "time t (µs)", logx=True, logy=True
    )
    plotting.measured(ax, [1, 2, 4], [1.0, 1.1, 1.3], [0.9, 1.0, 1.2], [1.1, 1.2, 1.4], label="core")
    plotting.measured(ax, [1, 2, 4], [2.0, 2.1, 2.3], label="node")
    plotting.model_line(ax, [1, 4], [1.0, 1.3], label="Hockney")
    plotting.model_line(ax, [1, 4], [2.0, 2.3], label="LogGP")
    ax.legend()
    return fig, ax


def test_description_says_what_the_figure_shows():
    fig, _ = _figure()
    text = figure_alt.describe(fig)
    for part in (
        "Ping-pong time on this machine",
        "time t (µs)",
        "message size n (bytes)",
        "logarithmic",
        "core",
        "node",
        "Hockney (model)",
        "LogGP (model)",
    ):
        assert part in text, (part, text)
    assert len(text) <= figure_alt.MAX_CHARS


def test_description_counts_labels_in_words_a_reader_reads():
    """One label is "1 label", and a label's line break reads as a space."""
    fig, ax = _figure()
    ax.text(2, 1.5, " ring crosses\n a node")
    assert "1 label (ring crosses a node)" in figure_alt.describe(fig)
    ax.text(3, 1.5, "socket")
    assert "2 labels (ring crosses a node, socket)" in figure_alt.describe(fig)


def test_png_carries_the_description_and_sphinx_copies_it_into_alt(tmp_path):
    from types import SimpleNamespace

    from docutils import nodes
    from docutils.utils import new_document
    from PIL import Image

    fig, _ = _figure()
    png = base64.b64decode(figure_alt.png_with_description(fig))
    assert Image.open(io.BytesIO(png)).text[figure_alt.PNG_KEY] == figure_alt.describe(fig)
    (tmp_path / "fig.png").write_bytes(png)
    doc = new_document("page")
    doc += nodes.image(uri="fig.png", alt="fig.png")
    app = SimpleNamespace(srcdir=str(tmp_path), outdir=str(tmp_path), env=SimpleNamespace(docname="page"))
    figure_alt._add_alt(app, doc)
    assert next(iter(doc.findall(nodes.image)))["alt"] == figure_alt.describe(fig)


def test_series_differ_by_more_than_colour():
    fig, ax = _figure()
    lines = ax.get_lines()
    markers = {ln.get_marker() for ln in lines if ln.get_linewidth() == 0} - {"_", "|"}  # caps
    dashes = {
        str(ln.get_linestyle()) for ln in lines if ln.get_linewidth() > 0 and ln.get_marker() in ("None", None, "")
    }
    assert len(markers) == 2 and len(dashes) == 2, (markers, dashes)
    cycle = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    assert cycle == matplotlib.style.library["tableau-colorblind10"]["axes.prop_cycle"].by_key()["color"]


@pytest.mark.parametrize("name", ALL)
def test_explorer_colours_have_a_second_carrier(name):
    spec = explorer_specs.spec(name)
    assert spec["config"]["range"]["category"] == layout.OKABE_ITO
    assert spec["description"]
    for view in layout._walk(spec):
        enc = view.get("encoding") or {}
        color = enc.get("color")
        kind = layout._mark_type(view)
        if isinstance(color, dict) and "field" in color and kind in ("line", "rule", "point"):
            other = enc.get("strokeDash" if kind != "point" else "shape")
            assert other and other["field"] == color["field"], (name, kind, color)
