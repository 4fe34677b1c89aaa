"""Sphinx extension: lighter pages that look the same (the reader's page weight, 1.5 MB at most).

* The theme's Font Awesome JavaScript (1.5 MB, 0.54 MB gzip, on every page) only turns the
  ``<i class="fa-...">`` icons into inline SVG; its own stylesheet already draws every one of
  them from the webfont the page loads anyway. The script tag is taken out of each written page
  (pydata-sphinx-theme offers no switch; the same move is proposed upstream, its pull request
  2494), so the icons come from the CSS and the webfont.
* The matplotlib figures are written again as 256-colour palette PNGs (a quarter of the bytes)
  when no pixel moves by more than :data:`MAX_CHANNEL_CHANGE` of 255 in any channel; an image
  the palette would change visibly is left as it is.
"""

from __future__ import annotations

import re
from pathlib import Path

FONTAWESOME_JS = re.compile(r'[ \t]*<script[^>]*\bsrc="[^"]*_static/scripts/fontawesome\.js[^"]*"[^>]*></script>\n?')
MAX_CHANNEL_CHANGE = 16  # of 255: antialiased edge pixels only; a figure's own colours stay exact


def drop_fontawesome_js(html: str) -> str:
    """The page without the theme's Font Awesome script tag."""
    return FONTAWESOME_JS.sub("", html)


def palette_png(path: Path) -> bool:
    """Rewrite `path` as a palette PNG if that is smaller and looks the same (every channel of
    every pixel within MAX_CHANNEL_CHANGE); the text chunks (alt text, software) are kept.
    True when the file was rewritten."""
    import io

    import numpy as np
    from PIL import Image, PngImagePlugin

    with Image.open(path) as im:
        if im.format != "PNG" or im.mode == "P":
            return False
        rgba = im.convert("RGBA")
        info = dict(im.text) if hasattr(im, "text") else {}
    pixels = np.asarray(rgba)
    if pixels[..., 3].min() < 255:
        return False  # transparency: a palette would fringe it
    rgb = rgba.convert("RGB")
    pal = rgb.quantize(256, method=Image.Quantize.MAXCOVERAGE, dither=Image.Dither.NONE)
    change = np.abs(np.asarray(pal.convert("RGB"), dtype=np.int16) - pixels[..., :3]).max()
    if change > MAX_CHANNEL_CHANGE:
        return False
    meta = PngImagePlugin.PngInfo()
    for key, value in info.items():
        meta.add_itxt(key, str(value))
    out = io.BytesIO()
    pal.save(out, "PNG", optimize=True, pnginfo=meta)
    if out.tell() >= path.stat().st_size:
        return False
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(out.getvalue())
    tmp.replace(path)
    return True


def lighten(outdir: Path) -> dict:
    """Apply both to a built HTML book; how many pages and images changed."""
    outdir = Path(outdir)
    pages = images = 0
    for page in outdir.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        lean = drop_fontawesome_js(text)
        if lean != text:
            page.write_text(lean, encoding="utf-8")
            pages += 1
    for png in (outdir / "_images").glob("*.png"):
        images += palette_png(png)
    return {"pages": pages, "images": images}


def _build_finished(app, exception):
    if exception is None and app.builder.format == "html":
        lighten(Path(app.outdir))


def setup(app):
    app.connect("build-finished", _build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
