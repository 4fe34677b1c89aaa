"""ORFEO datasets: the shipped summary tables (figures quoted in the seed reports), the catalog
of the students' raw files (fetched with their hashes), and the derived tables built from them.

Summary tables live in ``data/orfeo/<name>.csv``: ``# key: value`` metadata lines, one header
row, data rows, every row naming its source document in a ``source`` column. Derived tables live
in ``data/orfeo/derived/`` (see commbook.orfeo.rebuild); :func:`load` reads them by default, so
every chapter works offline, and the raw files with ``raw=True``.

Modules: ``tables`` (summary tables), ``raw_catalog`` (the catalog and importer hints), ``fixes``
(corrections of known wrong labels), ``fetching`` (raw files with their hashes), ``derived`` and
``loading`` (the derived tables and ``load``), ``rebuild`` (``commbook data derive``), ``views``
(the data page's summaries).
"""

from __future__ import annotations

from ..data import DataFormatError
from .derived import CONFIG_KEY, DERIVED_DIR, derived_table, per_configuration
from .fetching import FetchError, cache_dir, fetch, fetch_one, raw_dataset, raw_url
from .loading import load
from .raw_catalog import (
    CATALOG,
    CATALOG_COLUMNS,
    build_catalog,
    catalog,
    catalog_rules,
    entry,
    hints_for,
    import_entry,
    lookup,
    sha256_of,
    source_of,
    write_catalog,
)
from .seed_facts import Link, Node, link, link_parameters, links, node, placement
from .tables import TABLES_DIR, DataUnavailable, read_table, summary_table, table_names
from .views import coverage, known_problems, overview

__all__ = [
    "CATALOG",
    "CATALOG_COLUMNS",
    "CONFIG_KEY",
    "DERIVED_DIR",
    "TABLES_DIR",
    "DataFormatError",
    "DataUnavailable",
    "FetchError",
    "Link",
    "Node",
    "link",
    "link_parameters",
    "links",
    "placement",
    "node",
    "build_catalog",
    "cache_dir",
    "catalog",
    "catalog_rules",
    "coverage",
    "derived_table",
    "entry",
    "fetch",
    "fetch_one",
    "hints_for",
    "import_entry",
    "known_problems",
    "load",
    "lookup",
    "overview",
    "per_configuration",
    "raw_dataset",
    "raw_url",
    "read_table",
    "sha256_of",
    "source_of",
    "summary_table",
    "table_names",
    "write_catalog",
]
