"""Every explorer in a real browser (Debian's chromium, every non-file request aborted): the model
the browser computes equals the commbook.models function at a grid of parameter points, and
every control moves the figure. The pages here are standalone (the explorer's HTML plus the
vendored bundle), so this runs without building the book; test_book.py checks the book's pages."""

import chromium
import explorer_browser as eb
import pytest

from commbook import explorers
from commbook.explorers import ALL, render

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    path = tmp_path_factory.mktemp("explorers") / render.BUNDLE_NAME
    path.write_text(render.javascript_bundle() + render.page_script(), encoding="utf-8")
    return path


@pytest.fixture
def page(browser, bundle, tmp_path):
    """Open an explorer on a standalone offline page; yields (tab, div id, console errors)."""
    context = browser.new_context(viewport={"width": 900, "height": 1100})
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file://") else route.abort())
    external, errors = [], []

    def open_(explorer):
        html = tmp_path / f"{explorer.name}.html"
        html.write_text(
            f'<!doctype html><html><head><meta charset="utf-8"><script src="{bundle.as_uri()}">'
            f'</script></head><body style="width:760px">{explorer.html(False)}</body></html>',
            encoding="utf-8",
        )
        tab = context.new_page()
        chromium.watch(tab, external, errors)
        tab.goto(html.as_uri(), wait_until="load")
        (div,) = eb.wait_for_explorers(tab, 1)
        return tab, div

    yield open_, external, errors
    context.close()


@pytest.mark.parametrize("name", ALL)
def test_browser_model_equals_python_model(page, name):
    open_, external, errors = page
    mod = explorers.module(name)
    tab, div = open_(mod.explorer())
    compared = eb.compare_models(tab, div)
    assert compared >= len(mod.TEST_POINTS)
    assert errors == [] and external == []


@pytest.mark.parametrize("name", ALL)
def test_every_control_moves_the_figure(page, name, tmp_path):
    open_, external, errors = page
    mod = explorers.module(name)
    tab, div = open_(mod.explorer())
    controls = eb.controls(tab, div)
    assert controls, "no controls"
    for c in controls:
        assert c["name"] and "(" in c["name"] or c["tag"] == "SELECT", f"control without unit: {c}"
        assert eb.move_changes_figure(tab, div, c), f"{name}: moving '{c['name']}' changed nothing"
        eb.set_value(tab, div, c, c["value"])  # back, so the next control moves from the default
        eb.settle(tab, div)
    assert errors == [] and external == []


STATE = "([id, names]) => JSON.stringify(names.map(n => window.commbookExplorers[id].view.signal(n)))"


@pytest.mark.parametrize("name", ALL)
def test_controls_are_named_and_sliders_work_from_the_keyboard(page, name):
    """Every control has a name a screen reader reads (its label); Tab reaches the sliders and
    the End/Home keys move them and the chart's parameters."""
    open_, external, errors = page
    mod = explorers.module(name)
    explorer = mod.explorer()
    tab, div = open_(explorer)
    names = [p["name"] for p in explorer.spec()["params"] if "bind" in p]
    unnamed = tab.evaluate(
        """id => Array.from(document.querySelectorAll(
        '#' + id + ' .vega-bindings input, #' + id + ' .vega-bindings select'))
        .filter(e => e.type !== 'hidden' && !(e.getAttribute('aria-label') || '').trim()
                     && !(e.closest('label') && e.closest('label').textContent.trim()))
        .map(e => e.outerHTML)""",
        div,
    )
    assert unnamed == []
    sliders = tab.locator(f"#{div} .vega-bindings input[type=range]")
    for i in range(sliders.count()):
        s = sliders.nth(i)
        s.focus()
        assert tab.evaluate("e => document.activeElement === e", s.element_handle())
        before, value = tab.evaluate(STATE, [div, names]), s.input_value()
        s.press("End" if float(value) < float(s.get_attribute("max")) else "Home")
        eb.settle(tab, div)
        assert s.input_value() != value and tab.evaluate(STATE, [div, names]) != before, f"{name}: slider {i}"
    assert errors == [] and external == []
