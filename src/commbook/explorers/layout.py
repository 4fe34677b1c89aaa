"""How every explorer fits its reader: colour-blind-safe colours with a second carrier (shape or
dash) for every colour, a layout fitted to the width of the column it sits in (charts side by
side stack when the column is narrow, legends move under the chart and wrap), and a static
picture of the current state for print.

`accessible(spec)` rewrites a Vega-Lite spec in Python (the same for book and JupyterLab);
`EMBED_JS` is the page-side code each explorer's HTML runs (see render.Explorer.html).
"""

from __future__ import annotations

import copy

# Okabe & Ito's palette (Color Universal Design): distinguishable under the common colour-vision
# deficiencies; black last (the measured points of some explorers are black already).
OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
DASHES = [[1, 0], [6, 3], [2, 2], [8, 3, 2, 3], [1, 3], [10, 2]]
SHAPES = ["circle", "square", "triangle-up", "diamond", "cross", "triangle-down", "wedge", "stroke"]


def _mark_type(view: dict) -> str | None:
    mark = view.get("mark")
    return mark.get("type") if isinstance(mark, dict) else mark


def _second_carrier(view: dict) -> None:
    """A line coloured by a field is also dashed by it; a point coloured by a field also shaped."""
    enc = view.get("encoding") or {}
    color = enc.get("color")
    if not isinstance(color, dict) or "field" not in color:
        return
    kind = _mark_type(view)
    channel, scale = {
        "line": ("strokeDash", {"range": DASHES}),
        "rule": ("strokeDash", {"range": DASHES}),
        "point": ("shape", {"range": SHAPES}),
    }.get(kind, (None, None))
    if channel is None or channel in enc:
        return
    enc[channel] = {k: v for k, v in color.items() if k in ("field", "type", "title", "legend", "sort")}
    enc[channel]["scale"] = scale


def _walk(node):
    if isinstance(node, dict):
        if "mark" in node:
            yield node
        for key in ("layer", "hconcat", "vconcat", "concat"):
            for child in node.get(key, []) or []:
                yield from _walk(child)
        if isinstance(node.get("spec"), dict):
            yield from _walk(node["spec"])


def accessible(spec: dict) -> dict:
    """The spec with the colour-blind-safe category palette and a second carrier for colour."""
    spec = copy.deepcopy(spec)
    for view in _walk(spec):
        _second_carrier(view)
    config = spec.setdefault("config", {})
    config.setdefault("range", {}).setdefault("category", OKABE_ITO)
    config.setdefault("legend", {}).setdefault("labelLimit", 260)
    return spec


# The page side. fit(spec, W): side-by-side charts that do not fit W px stack; stacked charts take
# the column's width; legends go under the chart in as many columns as fit; `shrink` scales every
# width when the drawn figure still came out wider than W (one retry). On a resize the explorer
# is drawn again at the new width with its controls where the reader left them. Before printing,
# a picture of the current state replaces the live explorer (commbookPrintPictures: PNGs, awaited
# by the PDF printer; the beforeprint handler: the SVG as it is, synchronously).
EMBED_JS = r"""
(function () {
  if (window.commbookEmbed) return;
  var PAD = 100, MIN_W = 150;
  function kids(s) { return s.hconcat || s.vconcat || s.concat || []; }
  function need(s) {
    if (s.hconcat) return s.hconcat.reduce(function (a, c) { return a + need(c) + PAD; }, 0);
    if (s.vconcat || s.concat) return kids(s).reduce(function (a, c) { return Math.max(a, need(c)); }, 0);
    return typeof s.width === "number" ? s.width : 300;
  }
  function fit(spec, W, shrink) {
    var s = JSON.parse(JSON.stringify(spec));
    (function stack(n) {
      if (n.hconcat && need(n) > W) { n.vconcat = n.hconcat; delete n.hconcat; }
      kids(n).forEach(stack);
    })(s);
    (function size(n, row) {
      if (kids(n).length) { kids(n).forEach(function (c) { size(c, row || !!n.hconcat); }); return; }
      if (typeof n.width === "number") {
        var w = row ? n.width : Math.max(n.width, Math.min(W - PAD, 1.6 * n.width));
        n.width = Math.max(MIN_W, Math.floor(Math.min(w, W - PAD) * shrink));
      }
    })(s, false);
    if (W < 900) {  // long titles break after their commas and colons instead of widening the figure
      s.config = s.config || {};
      s.config.title = Object.assign({lineBreak: {signal: "/(?<=[,:]) /"}}, s.config.title || {});
    }
    var cols = Math.max(1, Math.floor(W / 230));
    (function legends(n) {
      if (n.encoding) Object.keys(n.encoding).forEach(function (k) {
        var lg = n.encoding[k] && n.encoding[k].legend;
        if (lg && typeof lg === "object") {
          if (W < 760 && lg.orient === "right") lg.orient = "bottom";
          if (lg.orient === "bottom") lg.columns = Math.min(lg.columns || cols, cols);
          lg.labelLimit = Math.min(lg.labelLimit || 260, Math.max(120, W / Math.min(lg.columns || 1, cols) - 40));
        }
      });
      (n.layer || []).concat(kids(n)).forEach(legends);
    })(s);
    return s;
  }
  // Vega names a layer by its items; a layer with none at these settings (no measured point
  // for this P, say) would be an unnamed graphic to a screen reader.
  function nameEmptyLayers(svg) {
    svg.querySelectorAll('g.role-mark[role="graphics-symbol"]:not([aria-label])').forEach(function (g) {
      if (!g.childElementCount) g.setAttribute("aria-label", "(no data at these settings)");
    });
  }
  function params(s, out) {
    (s.params || []).forEach(function (p) { if (p.bind) out.push(p); });
    (s.layer || []).concat(kids(s)).forEach(function (c) { params(c, out); });
    return out;
  }
  window.commbookEmbed = function (id, spec) {
    var el = document.getElementById(id), state = {W: 0, shrink: 1, tries: 0};
    function width() { return el.clientWidth || (el.parentElement && el.parentElement.clientWidth) || 680; }
    function draw() {
      var old = (window.commbookExplorers || {})[id];
      if (old) {
        params(spec, []).forEach(function (p) { p.value = old.view.signal(p.name); });
        old.finalize();
      }
      state.W = width();
      return window.vegaEmbed("#" + id, fit(spec, state.W, state.shrink), {actions: false, renderer: "svg"})
        .then(function (r) {
          (window.commbookExplorers = window.commbookExplorers || {})[id] = r;
          el.querySelectorAll(".vega-bindings input, .vega-bindings select").forEach(function (c) {
            var name = c.closest(".vega-bind");
            name = name && name.querySelector(".vega-bind-name");
            if (name && !c.getAttribute("aria-label")) c.setAttribute("aria-label", name.textContent.trim());
          });
          var svg = el.querySelector("svg"), drawn = svg ? svg.getBoundingClientRect().width : 0;
          if (svg) { nameEmptyLayers(svg); new MutationObserver(function () { nameEmptyLayers(svg); })
                       .observe(svg, {childList: true, subtree: true}); }
          if (drawn > state.W + 1 && state.tries < 3) {
            state.tries += 1;
            state.shrink *= Math.max(0.3, (state.W - 8) / drawn);
            return draw();
          }
          if (window.commbookFirstReadyMs === undefined) {
            // the page's first explorer is usable (ms since navigation; benchmarks/page_open.py):
            // what waited for it (MathJax, commbook.explorers.sphinx) may start
            window.commbookFirstReadyMs = performance.now();
            document.dispatchEvent(new Event("commbook:explorer-ready"));
          }
          return r;
        }).catch(function (e) { console.error("explorer " + id + ": " + e); });
    }
    var pending = null;
    window.addEventListener("resize", function () {
      clearTimeout(pending);
      pending = setTimeout(function () {
        if (Math.abs(width() - state.W) > 30) { state.shrink = 1; state.tries = 0; draw(); }
      }, 250);
    });
    return draw();
  };
  function picture(el, src) {
    var img = el.nextElementSibling;
    if (!img || !img.classList.contains("commbook-explorer-print")) {
      img = document.createElement("img");
      img.className = "commbook-explorer-print";
      el.parentNode.insertBefore(img, el.nextSibling);
    }
    var svg = el.querySelector("svg");
    img.alt = "Printed picture of the explorer: " + (svg && svg.getAttribute("aria-label") || el.dataset.explorer);
    img.src = src;
    el.classList.add("commbook-has-print-picture");
  }
  window.commbookPrintPictures = function () {
    var all = window.commbookExplorers || {};
    return Promise.all(Object.keys(all).map(function (id) {
      return all[id].view.toImageURL("png", 2).then(function (url) {
        var el = document.getElementById(id);
        picture(el, url);
        el.dataset.printPicture = "png";  // drawn for this print: beforeprint keeps it
      });
    }));
  };
  window.addEventListener("beforeprint", function () {
    var all = window.commbookExplorers || {};
    Object.keys(all).forEach(function (id) {
      var el = document.getElementById(id), svg = el && el.querySelector("svg");
      if (!svg || el.dataset.printPicture === "png") return;
      var xml = new XMLSerializer().serializeToString(svg);
      picture(el, "data:image/svg+xml;charset=utf-8," + encodeURIComponent(xml));
    });
  });
})();
"""

# The explorer's own styles (JupyterLab has no book stylesheet): controls wrap under the chart,
# the print picture replaces the live chart on paper only.
EMBED_CSS = (
    ".commbook-explorer{width:100%;max-width:100%}"
    ".commbook-explorer .vega-bindings{display:flex;flex-wrap:wrap;gap:.25rem 1.5rem;margin-top:.5rem}"
    ".commbook-explorer .vega-bind{flex:1 1 15rem;min-width:0;max-width:100%}"
    ".commbook-explorer .vega-bind label{display:flex;flex-wrap:wrap;align-items:center;gap:.25rem .5rem}"
    ".commbook-explorer .vega-bind input[type=range]{flex:1 1 8rem;min-width:6rem;max-width:100%}"
    ".commbook-explorer .vega-bind select{max-width:100%;min-width:0}"
    ".commbook-explorer-print{display:none;max-width:100%;height:auto}"
    "@media print{.commbook-explorer.commbook-has-print-picture{display:none!important}"
    ".commbook-explorer-print{display:block;break-inside:avoid}"
    ".commbook-explorer .vega-bindings{display:none}}"
)
