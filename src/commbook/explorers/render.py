"""Show an Altair chart as a live explorer: the same output in the rendered book and in JupyterLab.

An :class:`Explorer` displays as ``text/html``: a ``<div class="commbook-explorer">`` and a short
script calling ``vegaEmbed`` on the chart's Vega-Lite spec (data embedded, so ``file://`` works).
The Vega/Vega-Lite/vega-embed JavaScript comes from vl-convert's single-file bundle (pinned with
Altair in the ``book`` extra):

* in the book, :mod:`commbook.explorers.sphinx` vendors it at build time into the book's static
  files and adds it only to pages that show an explorer (the environment variable below tells
  the executing kernels not to inline it);
* in JupyterLab, the first explorer a kernel shows inlines the bundle once (no CDN, no network).
"""

from __future__ import annotations

import html
import json
import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from .layout import EMBED_CSS, EMBED_JS, accessible

PAGE_SCRIPT_NAME = "commbook-explorers.js"  # layout.EMBED_JS and its styles, beside the bundle
STATIC_SUBDIR = "explorers"
# Set by the Sphinx extension before notebooks execute: the page loads the vendored file.
ENV_STATIC = "CB_EXPLORER_JS_STATIC"  # an inherited marker, not a user setting

_inlined = {"done": False}


def vega_lite_version() -> str:
    """The Vega-Lite version Altair writes ('major.minor' of altair.SCHEMA_VERSION): the bundle
    vl-convert serves is that version, so the two agree by construction."""
    import altair as alt

    return ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])


def __getattr__(name: str):
    # VEGA_LITE_VERSION and BUNDLE_NAME follow the installed Altair (read when first asked for)
    if name == "VEGA_LITE_VERSION":
        return vega_lite_version()
    if name == "BUNDLE_NAME":
        return f"vega-explorers-vl{vega_lite_version()}.js"
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def javascript_bundle() -> str:
    """Vega + Vega-Lite + vega-embed as one script defining window.vegaEmbed, in its own scope
    (its top-level names must not clash with the page's other scripts)."""
    import vl_convert

    return "(function(){\n" + vl_convert.javascript_bundle(vl_version=vega_lite_version()) + "\n})();\n"


def page_script() -> str:
    """What each page with explorers runs once: the fitting/printing code and its styles."""
    return (
        EMBED_JS + "\n(function(){if(document.getElementById('commbook-explorer-style'))return;"
        "var s=document.createElement('style');s.id='commbook-explorer-style';"
        f"s.textContent={json.dumps(EMBED_CSS)};document.head.appendChild(s);}})();\n"
    )


@dataclass
class Explorer:
    """A live chart: `chart` (Altair), `name` (the module that built it, for tests) and the
    name of the field holding the browser-computed model in the chart's data."""

    chart: object
    name: str
    model_field: str = "model"
    notes: list = field(default_factory=list)

    def spec(self) -> dict:
        spec = accessible(self.chart.to_dict())
        spec.setdefault("description", self.description())
        return spec

    def description(self) -> str:
        """What a screen reader announces for the chart: the first sentence of the module's
        docstring ("Ping-pong explorer: the Hockney model ...")."""
        from . import module

        try:
            doc = module(self.name).__doc__ or ""
        except (ImportError, KeyError):
            doc = ""
        first = " ".join(doc.split()).split(". ")[0].rstrip(".")
        return first or f"Interactive chart: {self.name}"

    def html(self, inline_bundle: bool) -> str:
        div = f"commbook-explorer-{self.name}-{uuid.uuid4().hex[:8]}"
        spec = json.dumps(self.spec(), separators=(",", ":"), allow_nan=False)
        spec = spec.replace("</", "<\\/")  # a label containing </script> must not end the script
        bundle = f"<script>{javascript_bundle()}\n{page_script()}</script>\n" if inline_bundle else ""
        notes = "".join(f'<p class="commbook-explorer-note">{html.escape(n)}</p>' for n in self.notes)
        return f"""{bundle}<div id="{div}" class="commbook-explorer" data-explorer="{self.name}" \
data-model-field="{self.model_field}" role="group" aria-label="{html.escape(self.description())}"></div>{notes}
<script>(function () {{
  var id = "{div}", spec = {spec};
  function show() {{
    if (!window.vegaEmbed) {{
      document.getElementById(id).textContent =
        "The explorer needs the book's vega-explorers script, which did not load.";
      return;
    }}
    if (window.commbookEmbed) window.commbookEmbed(id, spec);  // fits the column (layout.py)
    else window.vegaEmbed("#" + id, spec, {{actions: false, renderer: "svg"}}).then(function (r) {{
      (window.commbookExplorers = window.commbookExplorers || {{}})[id] = r;
    }});
  }}
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", show);
  else show();
}})();</script>
"""

    def _repr_mimebundle_(self, include=None, exclude=None):
        inline = not os.environ.get(ENV_STATIC) and not _inlined["done"]
        out = {"text/html": self.html(inline_bundle=inline)}
        _inlined["done"] = _inlined["done"] or inline
        return out


# --- controls: every control bounded and labelled with its unit ------------------------------


def slider(name: str, label: str, lo: float, hi: float, step: float, value: float):
    """A bounded slider parameter (the browser cannot go outside [lo, hi])."""
    import altair as alt

    if not lo <= value <= hi:
        raise ValueError(f"{name}: default {value} outside [{lo}, {hi}]")
    return alt.param(name=name, value=value, bind=alt.binding_range(min=lo, max=hi, step=step, name=label + " "))


def menu(name: str, label: str, options, value, labels=None):
    """A drop-down parameter offering only `options`."""
    import altair as alt

    options = list(options)
    if value not in options:
        raise ValueError(f"{name}: default {value!r} is not one of {options}")
    kw = {"labels": [str(x) for x in labels]} if labels is not None else {}
    return alt.param(name=name, value=value, bind=alt.binding_select(options=options, name=label + " ", **kw))


def bytes_axis(title: str = "message size n (bytes)"):
    """A log2 x axis of message sizes labelled 1 B, 1 KiB, 1 MiB, 64 MiB."""
    import altair as alt

    return alt.Axis(
        title=title,
        values=[2**k for k in range(0, 31, 5)],
        labelExpr="datum.value >= 1048576 ? datum.value / 1048576 + ' MiB' : "
        "datum.value >= 1024 ? datum.value / 1024 + ' KiB' : datum.value + ' B'",
    )


def measured_points(table, x, y: str, series, where: str | None = None, **mark):
    """The layer of measured points: a point per row of `table` at `x` (a channel) and `y` (a
    field, "t:Q"), told apart by `series` (an alt.Color or alt.Shape of "series:N"), only the
    rows where the Vega expression `where` holds; the tooltip names the series and both values."""
    import altair as alt

    chart = alt.Chart(alt.Data(values=records(table)))
    if where:
        chart = chart.transform_filter(where)
    return chart.mark_point(size=30, **mark).encode(x, alt.Y(y), series, tooltip=["series:N", x.shorthand, y])


def column_wide(chart, params, height: int, title: str):
    """`chart` with its controls, as wide as the page's column, its title a Vega expression of
    the controls' values."""
    import altair as alt

    return chart.add_params(*params).properties(width="container", height=height, title=alt.Title(alt.expr(title)))


def records(df) -> tuple[dict, ...]:
    """Rows as plain JSON values (no numpy scalars, no NaN: Vega reads null). A tuple: Altair
    deep-copies a chart's lists each time a layer or a control is added (the topology explorer
    spent 3 of its 6 s copying its rows) and passes a tuple on as it is; the spec is the same."""
    import math

    out = []
    for row in df.to_dict("records"):
        clean = {}
        for k, v in row.items():
            if hasattr(v, "item"):
                v = v.item()
            if isinstance(v, float) and not math.isfinite(v):
                v = None
            clean[k] = v
        out.append(clean)
    return tuple(out)


def vendor_bundle(book_dir: Path) -> Path:
    """The live explorers' JavaScript (Vega, Vega-Lite, vega-embed from the pinned vl-convert)
    into <book>/_static/explorers; the explorers' Sphinx extension adds it to the pages using it."""
    dest = Path(book_dir) / "_static" / STATIC_SUBDIR / f"vega-explorers-vl{vega_lite_version()}.js"
    if not dest.exists():
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_suffix(".tmp")
        tmp.write_text(javascript_bundle(), encoding="utf-8")
        tmp.replace(dest)
    page = dest.with_name(PAGE_SCRIPT_NAME)  # small, and changes with the package
    tmp = page.with_suffix(".tmp")
    tmp.write_text(page_script(), encoding="utf-8")
    tmp.replace(page)
    return dest
