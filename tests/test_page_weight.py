"""commbook.page_weight: the theme's icon script leaves the pages, figures become palette PNGs
only when they look the same (the page weight itself is weighed in test_book.py)."""

import numpy as np
import pytest

from commbook import page_weight

PIL = pytest.importorskip("PIL.Image")


def test_the_fontawesome_script_tag_and_nothing_else_leaves_the_page():
    page = (
        '<head>\n  <script defer src="../_static/scripts/fontawesome.js?digest=55c2"></script>\n'
        '  <link rel="preload" as="script" href="../_static/scripts/bootstrap.js?digest=55c2" />\n'
        '<script src="../_static/fontawesome-like.js"></script>\n</head>'
    )
    lean = page_weight.drop_fontawesome_js(page)
    assert "scripts/fontawesome.js" not in lean
    assert "bootstrap.js" in lean and "fontawesome-like.js" in lean
    assert page_weight.drop_fontawesome_js(lean) == lean


def _figure(path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3), dpi=100)
    x = np.logspace(0, 6, 50)
    for k, style in enumerate(("-", "--", ":")):
        ax.loglog(x, (k + 1) * x**0.5, style, label=f"series {k}")
    ax.legend()
    fig.savefig(path, metadata={"Description": "Figure: three lines, log-log"})
    plt.close(fig)


def test_a_figure_becomes_a_smaller_palette_png_that_looks_the_same(tmp_path):
    png = tmp_path / "fig.png"
    _figure(png)
    before, size = np.asarray(PIL.open(png).convert("RGB"), dtype=int), png.stat().st_size
    assert page_weight.palette_png(png)
    after = PIL.open(png)
    assert after.mode == "P" and png.stat().st_size < size
    assert np.abs(np.asarray(after.convert("RGB"), dtype=int) - before).max() <= page_weight.MAX_CHANNEL_CHANGE
    assert after.text["Description"] == "Figure: three lines, log-log"  # the alt text's source stays
    assert not page_weight.palette_png(png)  # already a palette: left alone


def test_an_image_a_palette_would_change_visibly_is_left_alone(tmp_path):
    rng = np.random.default_rng(1)
    photo = tmp_path / "noise.png"
    PIL.fromarray(rng.integers(0, 256, (64, 64, 3), dtype=np.uint8)).save(photo)
    clear = tmp_path / "clear.png"
    PIL.fromarray(np.zeros((8, 8, 4), dtype=np.uint8)).save(clear)
    before = photo.read_bytes(), clear.read_bytes()
    assert not page_weight.palette_png(photo)
    assert not page_weight.palette_png(clear)
    assert (photo.read_bytes(), clear.read_bytes()) == before
