"""Alternative text for every matplotlib figure of the book, written from the figure itself.

A screen reader reads an image's ``alt``; MyST-NB gives a notebook's PNG output its file name.
Here the kernel side writes a description of the figure (titles, axes, scales, legend entries,
what is drawn) into the PNG's ``Description`` text chunk, and the Sphinx side (this module is
also a Sphinx extension) copies that chunk into the image's ``alt``. No chapter types alt text:
a figure's alt follows its title, axes and legend as they change.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path

MAX_CHARS = 700  # a screen reader reads it whole: what is shown, not every tick
PNG_KEY = "Description"


# --- the description -------------------------------------------------------------------------


def _scale(ax, which: str) -> str:
    scale = getattr(ax, f"get_{which}scale")()
    return {"log": "logarithmic", "symlog": "logarithmic", "logit": "logit"}.get(scale, "")


def _drawn(ax) -> str:
    """What the axes holds, in words (points, lines, bars, an image)."""
    lines = [ln for ln in ax.get_lines() if ln.get_visible() and len(ln.get_xdata()) > 0]
    points = sum(
        1
        for ln in lines
        if (ln.get_linestyle() in ("None", "", " ") or ln.get_linewidth() == 0)
        and ln.get_marker() not in (None, "None", "")
    )
    curves = len(lines) - points
    bars = sum(1 for p in ax.patches if type(p).__name__ == "Rectangle")
    parts = []
    if points:
        parts.append(f"{points} series of points")
    if curves:
        parts.append(f"{curves} line{'s' if curves > 1 else ''}")
    if bars:
        parts.append(f"{bars} bar{'s' if bars > 1 else ''}")
    if ax.images:
        parts.append("a colour map")
    if ax.collections and not points:
        parts.append("markers")
    if ax.texts:
        labels = [" ".join(t.get_text().split()) for t in ax.texts if t.get_text().strip()]
        parts.append(
            f"{len(labels)} label{'s' if len(labels) != 1 else ''}"
            + (f" ({', '.join(labels[:8])}{', …' if len(labels) > 8 else ''})" if labels else "")
        )
    return ", ".join(parts)


def _legend_entries(legend) -> list[str]:
    return [t.get_text() for t in legend.get_texts() if t.get_text()] if legend is not None else []


def describe_axes(ax) -> str:
    title = ax.get_title() or ax.get_title("left") or ax.get_title("right")
    x, y = ax.get_xlabel(), ax.get_ylabel()
    out = f"{title}: " if title else ""
    if x or y:
        xs, ys = _scale(ax, "x"), _scale(ax, "y")
        out += (
            f"{y or 'values'}{f' ({ys} scale)' if ys else ''} against {x or 'position'}{f' ({xs} scale)' if xs else ''}"
        )
    drawn = _drawn(ax)
    if drawn:
        out += f"{'; ' if x or y else ''}{drawn}"
    entries = _legend_entries(ax.get_legend())
    if entries:
        out += "; legend: " + ", ".join(entries)
    return out.strip()


def describe(fig) -> str:
    """One paragraph saying what the figure shows (its titles, axes, legends, what is drawn)."""
    sup = fig._suptitle.get_text() if getattr(fig, "_suptitle", None) is not None else ""
    panels = [describe_axes(ax) for ax in fig.axes if ax.get_visible()]
    panels = [p for p in panels if p]
    text = f"Figure: {sup}. " if sup else "Figure. "
    if len(panels) == 1:
        text += panels[0] + "."
    elif panels:
        text += f"{len(panels)} panels. " + " ".join(f"Panel {i}: {p}." for i, p in enumerate(panels, 1))
    entries = [e for lg in getattr(fig, "legends", []) for e in _legend_entries(lg)]
    if entries:
        text += " Legend: " + ", ".join(entries) + "."
    text = " ".join(text.split())
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1].rsplit(" ", 1)[0] + "…"


# --- kernel side: the PNG carries its description ---------------------------------------------


def png_with_description(fig) -> str:
    """The inline backend's PNG (base64), with the description in a PNG text chunk."""
    from IPython.core.pylabtools import print_figure

    return print_figure(fig, "png", base64=True, metadata={PNG_KEY: describe(fig)})


def install() -> None:
    """In an IPython kernel, display matplotlib figures as described PNGs. The inline backend
    (re)registers its own PNG formatter when it is first used, possibly later in the cell: the
    post_execute hook puts ours back before the backend's hook draws the cell's figures."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    ip = get_ipython()
    if ip is None:
        return
    from matplotlib.figure import Figure

    ip.display_formatter.formatters["image/png"].for_type(Figure, png_with_description)
    if not getattr(ip, "_commbook_figure_alt", False):
        ip._commbook_figure_alt = True
        ip.events.register("post_execute", install)


# --- Sphinx side: alt from the PNG --------------------------------------------------------------


def description_of(path: Path) -> str | None:
    from PIL import Image

    try:
        with Image.open(path) as im:
            return getattr(im, "text", {}).get(PNG_KEY)
    except (OSError, ValueError):
        return None


def _image_path(app, docname: str, uri: str) -> Path | None:
    if uri.startswith("data:"):
        return None
    for base in (Path(app.srcdir), Path(app.srcdir) / Path(docname).parent, Path(app.outdir)):
        p = (base / uri.lstrip("/")) if not Path(uri).is_absolute() else Path(uri)
        if p.is_file():
            return p
    return None


def _add_alt(app, doctree) -> None:
    from docutils import nodes

    for node in doctree.findall(nodes.image):
        uri = node.get("uri", "")
        alt = node.get("alt")
        if alt and alt != uri and not alt.endswith(".png"):
            continue
        if uri.startswith("data:image/png;base64,"):
            from PIL import Image

            with Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))) as im:
                text = getattr(im, "text", {}).get(PNG_KEY)
        else:
            path = _image_path(app, app.env.docname, uri)
            text = description_of(path) if path else None
        if text:
            node["alt"] = text


def setup(app):
    app.connect("doctree-read", _add_alt)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
