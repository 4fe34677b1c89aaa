"""Ship kernels_c/ and data/ in the wheel as commbook/_resources (pip install . without a checkout).

They stay at the repository top level, where the book and the kernels' own builds use them;
commbook.config finds the checkout first and this packaged copy otherwise. Everything else
about the package is in pyproject.toml."""

import ast
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


def resources() -> tuple:
    """commbook.config.RESOURCES, read from the source (the package is not installed yet)."""
    tree = ast.parse((HERE / "src" / "commbook" / "config.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "RESOURCES":
            return ast.literal_eval(node.value)
    raise RuntimeError("src/commbook/config.py defines no RESOURCES")


class BuildPyWithResources(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads them from the checkout
        for name in resources():
            dest = Path(self.build_lib) / "commbook" / "_resources" / name
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(HERE / name, dest, ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.o", "*.pyc"))


setup(cmdclass={"build_py": BuildPyWithResources})
