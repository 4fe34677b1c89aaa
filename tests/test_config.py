"""commbook.config: the one place for paths and COMMBOOK_* variables."""

import ast
import re

import pytest

from commbook import config

NAME = re.compile(r"\bCOMMBOOK_[A-Z_]+[A-Z]\b")


def _texts(repo):
    """Every file that may name a variable: package, tests, book, docs, build and CI files."""
    for folder in ("src", "tests", "book", "benchmarks", ".ci"):
        for path in sorted((repo / folder).rglob("*")):
            if (
                path.is_file()
                and path.suffix in (".py", ".md", "")
                and "egg-info" not in str(path)
                and path.name != "test_config.py"
            ):
                yield path
    for name in ("README.md", "CONTRIBUTING.md", "Makefile", "_config.yml"):
        yield repo / name


def test_every_variable_named_anywhere_is_declared(repo):
    undeclared = {}
    for path in _texts(repo):
        for name in NAME.findall(path.read_text(errors="replace")):
            if name not in config.VARIABLES:
                undeclared.setdefault(name, path.relative_to(repo))
    assert not undeclared, f"declare these in commbook/config.py VARIABLES: {undeclared}"


def _environ_reads(tree):
    """(line, name) of os.environ.get / os.getenv / os.environ[...] reads of a COMMBOOK_ name."""
    for node in ast.walk(tree):
        key = None
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            f = ast.unparse(node.func)
            if f in ("os.environ.get", "os.getenv", "environ.get", "getenv", "os.environ.setdefault"):
                key = node.args[0].value
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Load)
            and ast.unparse(node.value) in ("os.environ", "environ")
        ):
            key = node.slice.value if isinstance(node.slice, ast.Constant) else None
        if isinstance(key, str) and key.startswith("COMMBOOK_"):
            yield node.lineno, key


def test_only_config_reads_the_environment(repo):
    found = []
    for path in sorted((repo / "src" / "commbook").rglob("*.py")):
        if path.name != "config.py":
            found += [
                f"{path.relative_to(repo)}:{line} {key}" for line, key in _environ_reads(ast.parse(path.read_text()))
            ]
    assert not found, "read these through commbook.config.get:\n" + "\n".join(found)


def test_the_read_finder_finds_reads():  # the test above must be able to fail
    tree = ast.parse(
        'import os\nos.environ.get("COMMBOOK_X")\nos.environ["COMMBOOK_Y"]\nos.environ["COMMBOOK_Z"] = "1"\n'
    )
    assert list(_environ_reads(tree)) == [(2, "COMMBOOK_X"), (3, "COMMBOOK_Y")]


def test_contributing_documents_every_variable(repo):
    text = (repo / "CONTRIBUTING.md").read_text()
    missing = [name for name in config.VARIABLES if f"`{name}`" not in text]
    assert not missing, f"CONTRIBUTING.md does not document {missing}"


def test_get_defaults_strips_and_refuses_unknown_names(monkeypatch):
    monkeypatch.setenv("COMMBOOK_ENGINES", "  slurm ")
    assert config.get("COMMBOOK_ENGINES") == "slurm"
    monkeypatch.setenv("COMMBOOK_ENGINES", "")
    assert config.get("COMMBOOK_ENGINES") == "mpi"
    monkeypatch.delenv("COMMBOOK_MACHINE", raising=False)
    assert config.get("COMMBOOK_MACHINE") == ""
    with pytest.raises(KeyError, match="COMMBOOK_ENGINE is not a commbook setting"):
        config.get("COMMBOOK_ENGINE")


def test_cache_paths_follow_their_variables(monkeypatch, tmp_path):
    monkeypatch.setenv("COMMBOOK_BUILD_DIR", str(tmp_path / "b"))
    monkeypatch.setenv("COMMBOOK_DATA_CACHE", "")
    assert config.build_cache() == tmp_path / "b"
    assert config.data_cache() == config.Path.home() / ".cache" / "commbook" / "orfeo"
    for value, mirror in [("none", None), ("", None), ("NONE", None), ("/m", "/m")]:
        monkeypatch.setenv("COMMBOOK_ORFEO_MIRROR", value)
        assert config.orfeo_mirror() == mirror


def test_checkout_first_then_the_packaged_copy(monkeypatch, repo, tmp_path):
    monkeypatch.delenv("COMMBOOK_KERNELS", raising=False)
    assert config.checkout() == repo
    assert config.kernels_dir() == repo / "kernels_c" and config.data_dir() == repo / "data"
    monkeypatch.setattr(config, "checkout", lambda: None)
    monkeypatch.setattr(config, "PACKAGED", tmp_path)
    assert config.data_dir() == tmp_path / "data"
    with pytest.raises(FileNotFoundError, match="kernels_c/ not found at .*pip install"):
        config.kernels_dir()
    (tmp_path / "kernels_c").mkdir()
    (tmp_path / "kernels_c" / "commbench.h").touch()
    assert config.kernels_dir() == tmp_path / "kernels_c"
    monkeypatch.setenv("COMMBOOK_KERNELS", "~/mine")
    assert config.kernels_dir() == config.Path.home() / "mine"
