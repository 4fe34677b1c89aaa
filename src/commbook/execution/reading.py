"""A page read as MyST-NB reads it for execution."""

from __future__ import annotations

from pathlib import Path


def read_page(path: Path):
    """The page as MyST-NB reads it for execution (same cells, same metadata: same cache key)."""
    from myst_nb.core.read import read_myst_markdown_notebook
    from myst_parser.config.main import MdParserConfig

    config = MdParserConfig(enable_extensions={"dollarmath", "amsmath", "colon_fence", "deflist", "substitution"})
    return read_myst_markdown_notebook(path.read_text(encoding="utf-8"), config, add_source_map=True, path=str(path))
