"""`commbook predict MODEL ...`: one module per model (predict_<model>.py) adds its parser."""

from . import predict_collective, predict_hockney, predict_jacobi


def register(sub):
    p = sub.add_parser("predict", help="evaluate a model (JSON with --json)")
    models = p.add_subparsers(dest="model", metavar="MODEL")
    models.required = True
    for module in (predict_hockney, predict_collective, predict_jacobi):
        module.register(models)
