"""Out-of-sample validation: fit a model on part of the ORFEO data, predict the rest.

Named splits, one function each, every one reading the hash-checked raw ORFEO files through
:func:`commbook.orfeo.load`:

* ``pingpong/sizes``     each ping-pong curve: fit on the even-indexed sizes, predict the odd
  ones; the piecewise Hockney fit as the chapter uses it (BIC), its predictive setting
  (:data:`commbook.fit.PREDICTIVE`) and plain log-log interpolation between the same points;
* ``pingpong/runs``      fit one repetition (run 1) on all sizes, predict the other runs;
* ``pingpong/machines``  fit a THIN curve, predict the GPU-node curve of the same student,
  library, mapping and transport (the nodes differ; does the model carry over?);
* ``collectives/processes``  per-algorithm models (``models.collective_costs.fit_algorithm``) fitted
  on one node (or on the smaller half of the process counts when the data stay on one node)
  predict the larger P; the model's choice of algorithm is scored against the measured times;
* ``jacobi/model``       the report's model P(L, N) against every ORFEO Jacobi run it covers
  (``models.jacobi.orfeo_comparison``; nothing is fitted to these runs, T_s and the link
  parameters come from the report).

:func:`run` computes the result tables, :func:`write_tables` commits them to
``data/validation/`` (atomic writes, ``# key: value`` metadata, every row names its raw
file(s) as repository@commit:path or the catalog dataset), and :func:`load_table`,
:func:`summary` and the verdicts read them back for the book, which needs no raw data.

Modules: ``criteria`` (acceptance bands, relative error), ``pingpong_splits``,
``collective_splits``, ``jacobi_split``, ``tables`` (run, write, read), ``scorecard`` (summary,
overview, verdicts), ``figures``; the names callers use are importable from ``commbook.validate``.
"""

from .collective_splits import (
    COLLECTIVES,
    FIGURE_POINTS,
    collective_datasets,
    collective_processes,
    model_of,
    node_cores,
)
from .criteria import JACOBI_WITHIN, WITHIN, rel_error
from .figures import figure
from .jacobi_split import jacobi_model
from .pingpong_splits import (
    PAIR_COLUMNS,
    PINGPONG_METHODS,
    PINGPONG_POINT_STEP,
    loglog_interpolate,
    pingpong_curves,
    pingpong_machines,
    pingpong_runs,
    pingpong_sizes,
)
from .scorecard import jacobi_verdict, overview, pingpong_verdict, summary
from .tables import DESCRIPTIONS, SPLITS, TABLE_FILES, TABLES_DIR, load_table, run, to_csv_text, write_tables

__all__ = [
    "COLLECTIVES",
    "DESCRIPTIONS",
    "FIGURE_POINTS",
    "JACOBI_WITHIN",
    "PAIR_COLUMNS",
    "PINGPONG_METHODS",
    "PINGPONG_POINT_STEP",
    "SPLITS",
    "TABLES_DIR",
    "TABLE_FILES",
    "WITHIN",
    "collective_datasets",
    "collective_processes",
    "figure",
    "pingpong_verdict",
    "jacobi_verdict",
    "jacobi_model",
    "load_table",
    "loglog_interpolate",
    "model_of",
    "node_cores",
    "overview",
    "pingpong_curves",
    "pingpong_machines",
    "pingpong_runs",
    "pingpong_sizes",
    "rel_error",
    "run",
    "summary",
    "to_csv_text",
    "write_tables",
]
