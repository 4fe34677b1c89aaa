"""Explorers: every control is bounded and labelled, the embedded data comes from the models, the
page weight stays small, and the static figures refuse impossible values. The browser side is
in test_explorers_browser.py (the model the browser computes equals these Python models)."""

import matplotlib
import pytest

matplotlib.use("Agg")

from explorer_specs import built as _explorer  # noqa: E402
from explorer_specs import spec as _spec  # noqa: E402

from commbook import explorers  # noqa: E402
from commbook.explorers import ALL, render  # noqa: E402


def _params(spec):
    return {p["name"]: p for p in spec.get("params", [])}


@pytest.mark.parametrize("name", ALL)
def test_every_control_is_bounded_and_labelled(name):
    spec = _spec(name)
    params = _params(spec)
    assert params, "an explorer without controls"
    for p in params.values():
        if "bind" not in p:  # a value derived from the controls (a preset's λ, b), not a control
            assert "expr" in p and p["name"].endswith("_used"), p
            continue
        bind = p["bind"]
        assert bind["name"].strip(), f"{p['name']} has no label"
        if bind["input"] == "range":
            assert bind["min"] <= p["value"] <= bind["max"]
            assert "(" in bind["name"], f"slider {bind['name']!r} does not give its unit"
        else:
            assert bind["input"] == "select" and p["value"] in bind["options"]


@pytest.mark.parametrize("name", ALL)
def test_test_points_are_values_the_controls_allow(name):
    mod = explorers.module(name)
    params = _params(_spec(name))
    for point in mod.TEST_POINTS:
        assert set(point) <= set(params), f"{set(point) - set(params)} are not controls"
        for k, v in point.items():
            bind = params[k]["bind"]
            if bind["input"] == "range":
                assert bind["min"] <= v <= bind["max"], (k, v)
            else:
                assert v in bind["options"], (k, v)


@pytest.fixture(scope="module")
def bundle_bytes():
    """vl-convert's Vega + Vega-Lite + vega-embed, as the book serves it."""
    return len(render.javascript_bundle().encode())


@pytest.mark.parametrize("name", ALL)
def test_page_weight_of_an_explorer(name, bundle_bytes):
    """Spec + the shared bundle (loaded once per page) stay under 1.5 MB per page."""
    html = _explorer(name).html(inline_bundle=False)
    assert len(html.encode()) + bundle_bytes <= 1_500_000, (
        f"{name}: {len(html.encode()):,} B of explorer + {bundle_bytes:,} B of bundle"
    )


def test_javascript_bundle_defines_vega_embed_in_its_own_scope():
    js = render.javascript_bundle()
    assert js.startswith("(function(){") and "window.vegaEmbed=" in js


def test_explorer_html_escapes_script_ends_and_inlines_the_bundle_once(monkeypatch):
    monkeypatch.delenv(render.ENV_STATIC, raising=False)
    monkeypatch.setitem(render._inlined, "done", False)
    ex = _explorer("pingpong")
    first, second = ex._repr_mimebundle_()["text/html"], ex._repr_mimebundle_()["text/html"]
    assert "window.vegaEmbed=" in first and "window.vegaEmbed=" not in second
    monkeypatch.setitem(render._inlined, "done", False)
    monkeypatch.setenv(render.ENV_STATIC, "1")  # the book serves the file instead
    assert "window.vegaEmbed=" not in ex._repr_mimebundle_()["text/html"]
    hostile = render.Explorer(ex.chart.properties(title="</script><script>alert(1)</script>"), "pingpong")
    page = hostile.html(inline_bundle=False)
    assert page.count("</script>") == 1 and page.rstrip().endswith("</script>")  # only its own end


def test_controls_refuse_defaults_outside_their_bounds():
    with pytest.raises(ValueError, match="outside"):
        render.slider("lam", "λ (µs)", 0.0, 50.0, 0.01, 60.0)
    with pytest.raises(ValueError, match="not one of"):
        render.menu("P", "processes P", (2, 4), 3)


def test_collectives_explorer_offers_every_algorithm_of_the_models():
    from commbook.chapters.collectives import explorer as collectives
    from commbook.models import collective_schedules as schedules

    rows = collectives._coefficients()
    for op, algorithms in schedules.ALGORITHMS.items():
        assert set(rows[rows.op == op].alg) == set(algorithms)


def test_ring_classes_come_from_the_placement():
    from commbook.chapters.ring import explorer as ring

    rows = ring._classes_used().set_index(["cps", "spn", "P"])
    # ORFEO THIN by core: a socket is crossed from P = 13, a node from P = 25
    assert rows.loc[(12, 2, 12)].uses_socket == 0 and rows.loc[(12, 2, 13)].uses_socket == 1
    assert rows.loc[(12, 2, 24)].uses_node == 0 and rows.loc[(12, 2, 25)].uses_node == 1


@pytest.mark.parametrize("name", ["pingpong", "ring"])
def test_presets_offer_orfeo_and_the_emulated_nodes(name):
    """The preset menu lists ORFEO's links and the emulated nodes' (shipped reference run); a
    chosen preset's values are clamped to the slider's range, the sliders rule otherwise."""
    from commbook.explorers import presets

    params = _params(_spec(name))
    options = params["preset"]["bind"]["options"]
    assert options[0] == presets.START
    assert any(o.startswith("ORFEO") for o in options)
    assert any(o.startswith("emulated nodes") for o in options)
    lam = "lam" if name == "pingpong" else "lam_node"
    assert params[f"{lam}_used"]["expr"].endswith(f"({lam})" + ")" * (len(options) - 2))
    expr = presets.value_expr("preset", "lam", {"a": 99.0, "b": -1.0}, 0.0, 50.0, 2)
    assert expr == "preset == 'b' ? 0.0 : (preset == 'a' ? 50.0 : (lam))"


def test_mathjax_waits_for_the_first_explorer_on_explorer_pages():
    """On a page with an explorer the MathJax script tag becomes a loader started by the first
    explorer (or the load event); the tag leaves the page, nothing else does."""
    from types import SimpleNamespace

    from sphinx.builders.html._assets import _JavaScript

    from commbook.explorers import sphinx as ext

    added = []
    app = SimpleNamespace(
        config=SimpleNamespace(mathjax_path="mathjax/tex-chtml.js"),
        add_js_file=lambda name, **kw: added.append((name, kw)),
    )
    theme = _JavaScript("_static/scripts/theme.js")
    scripts = [theme, _JavaScript("_static/mathjax/tex-chtml.js", defer="defer")]
    context = {
        "body": '<div class="commbook-explorer"></div>',
        "script_files": scripts,
        "pathto": lambda name, resource=False: "../" + name,
    }
    ext._add_to_page(app, "book/ring", "page.html", context, None)
    assert scripts == [theme]
    loader = [kw["body"] for name, kw in added if name is None]
    assert len(loader) == 1 and '"../_static/mathjax/tex-chtml.js"' in loader[0]
    assert "commbook:explorer-ready" in loader[0] and '"load"' in loader[0]
    assert all(kw.get("loading_method") == "defer" for name, kw in added if name)

    added.clear()
    plain = {"body": "<p>no explorer</p>", "script_files": list(scripts)}
    ext._add_to_page(app, "book/data", "page.html", plain, None)
    assert added == [] and plain["script_files"] == scripts


def test_rows_given_as_a_tuple_make_the_spec_a_list_makes():
    """render.records returns a tuple (Altair does not deep-copy it at every layer); the chart's
    JSON is what the same rows as a list give, NaN as null."""
    import altair as alt
    import pandas as pd

    df = pd.DataFrame({"n": [1, 2], "t": [0.5, float("nan")]})
    rows = render.records(df)
    assert isinstance(rows, tuple)

    def chart(values):
        return alt.layer(alt.Chart(alt.Data(values=values)).mark_point().encode(x="n:Q", y="t:Q")).to_dict()

    assert chart(rows) == chart(list(rows))
    assert chart(rows)["data"]["values"] == [{"n": 1, "t": 0.5}, {"n": 2, "t": None}]
