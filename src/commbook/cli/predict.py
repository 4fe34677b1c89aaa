"""`commbook predict MODEL ...`: one module per model (predict_<model>.py) adds its parser."""

from . import predict_collective, predict_hockney, predict_jacobi
from .common import command_group


def register(sub):
    models = command_group(sub, "predict", "evaluate a model (JSON with --json)", dest="model", metavar="MODEL")
    for module in (predict_hockney, predict_collective, predict_jacobi):
        module.register(models)
