"""`commbook predict MODEL ...`: one module per model (predict_<model>.py) adds its parser."""
import importlib

MODELS = ["hockney", "collective", "jacobi"]


def register(sub):
    p = sub.add_parser("predict", help="evaluate a model (JSON with --json)")
    models = p.add_subparsers(dest="model", metavar="MODEL")
    models.required = True
    for name in MODELS:
        try:
            module = importlib.import_module(f"{__package__}.predict_{name}")
        except ModuleNotFoundError as e:
            if e.name == f"{__package__}.predict_{name}":
                continue
            raise
        module.register(models)
