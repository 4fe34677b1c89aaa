"""Helpers to drive live explorers in a real browser (used by test_explorers_browser.py and
test_book.py): read the model the browser computed, move every control."""

import math

# Rows of every dataset of an explorer's Vega view that carry the browser-computed model field,
# after setting the given parameters (signals) and letting the view re-run.
READ_MODEL = """async ([id, params, field]) => {
  const r = window.commbookExplorers[id];
  for (const [k, v] of Object.entries(params)) r.view.signal(k, v);
  await r.view.runAsync();
  const rows = [];
  for (const d of r.vgSpec.data) {
    for (const row of r.view.data(d.name)) {
      if (row[field] !== undefined) rows.push(Object.assign({}, row));
    }
  }
  return rows;
}"""

EXPLORERS = "() => Object.keys(window.commbookExplorers || {})"


def wait_for_explorers(tab, expected: int, timeout_ms: int = 20000) -> list[str]:
    tab.wait_for_function(f"Object.keys(window.commbookExplorers || {{}}).length >= {expected}", timeout=timeout_ms)
    return tab.evaluate(EXPLORERS)


def module_of(tab, div_id: str):
    name = tab.evaluate("id => document.getElementById(id).dataset.explorer", div_id)
    from commbook import explorers

    return explorers.module(name)


def compare_models(tab, div_id: str, rel: float = 1e-9) -> int:
    """Set each of the module's TEST_POINTS in the browser and compare every model row with the
    Python model; returns how many values were compared."""
    mod = module_of(tab, div_id)
    field = getattr(mod, "MODEL_FIELD", "model")
    compared = 0
    for params in mod.TEST_POINTS:
        rows = tab.evaluate(READ_MODEL, [div_id, params, field])
        assert rows, f"{mod.NAME}: no model rows in the browser at {params}"
        for row in rows:
            want = mod.python_model(row, params)
            got = row[field]
            if want is None or (isinstance(want, float) and math.isnan(want)):
                assert got is None or (isinstance(got, float) and math.isnan(got)), (row, params)
                continue
            assert got is not None, f"{mod.NAME}: browser gave no value for {row} at {params}"
            assert abs(got - want) <= rel * max(abs(want), 1e-300), (
                f"{mod.NAME}: browser {got!r} != python {want!r} for {row} at {params}"
            )
            compared += 1
    return compared


def controls(tab, div_id: str) -> list[dict]:
    """Every input of the explorer's bindings: its kind, label and bounds or options."""
    return tab.evaluate(
        """id => Array.from(document.querySelectorAll(
        '#' + id + ' .vega-bindings input, #' + id + ' .vega-bindings select'))
        .filter(e => e.type !== 'hidden' && !(e.type === 'text' && e.previousElementSibling
                     && e.previousElementSibling.type === 'range'))
        .map((e, i) => ({index: i, tag: e.tagName, type: e.type, min: e.min, max: e.max,
                         value: e.value, name: e.closest('.vega-bind').querySelector('.vega-bind-name')
                         .textContent.trim(),
                         options: e.tagName === 'SELECT' ? Array.from(e.options).map(o => o.value) : []}))""",
        div_id,
    )


def move(tab, div_id: str, control: dict) -> str:
    """Set a control to another allowed value (the far end of a slider, another option) the
    way a user's input does; returns the value set."""
    if control["tag"] == "SELECT":
        value = next(o for o in control["options"] if o != control["value"])
    else:
        lo, hi, v = float(control["min"]), float(control["max"]), float(control["value"])
        value = str(control["min"] if abs(v - lo) > abs(v - hi) else control["max"])
    set_value(tab, div_id, control, value)
    return value


def move_changes_figure(tab, div_id: str, control: dict) -> bool:
    """Move the control as a user would and say whether the figure changed. A menu counts as
    moving when some other option changes the figure: a preset may equal the starting sliders
    (the ring's ORFEO UCX link is where its sliders start)."""
    before = figure(tab, div_id)
    if control["tag"] != "SELECT":
        move(tab, div_id, control)
        settle(tab, div_id)
        return figure(tab, div_id) != before
    for option in (o for o in control["options"] if o != control["value"]):
        set_value(tab, div_id, control, option)
        settle(tab, div_id)
        if figure(tab, div_id) != before:
            return True
    return False


def set_value(tab, div_id: str, control: dict, value: str) -> None:
    """Value set, then the input and change events a user's input fires."""
    tab.evaluate(
        """([id, index, value]) => {
        const e = Array.from(document.querySelectorAll(
          '#' + id + ' .vega-bindings input, #' + id + ' .vega-bindings select'))
          .filter(e => e.type !== 'hidden' && !(e.type === 'text' && e.previousElementSibling
                       && e.previousElementSibling.type === 'range'))[index];
        e.value = value;
        e.dispatchEvent(new Event('input', {bubbles: true}));
        e.dispatchEvent(new Event('change', {bubbles: true}));
    }""",
        [div_id, control["index"], value],
    )


def figure(tab, div_id: str) -> str:
    """The drawn figure (SVG markup): changes whenever a curve, point or title moves."""
    return tab.evaluate("id => document.querySelector('#' + id + ' svg').outerHTML", div_id)


def settle(tab, div_id: str) -> None:
    tab.evaluate("id => window.commbookExplorers[id].view.runAsync().then(() => true)", div_id)
    tab.wait_for_timeout(100)
