"""The run panels of the measuring chapters, found in the chapters' packages
(``commbook/chapters/<page>/panel.py``, each with ``spec()``: which kernel, which controls, how
values become options)."""

from __future__ import annotations

from .. import chapters
from ..panel_specs import PanelSpec

SPECS = {page: module.spec for page, module in chapters.modules("panel").items()}


def spec(chapter: str) -> PanelSpec:
    try:
        return SPECS[chapter]()
    except KeyError:
        raise ValueError(f"no run panel for chapter '{chapter}'; chapters: {', '.join(SPECS)}") from None
