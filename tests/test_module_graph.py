"""The package's layers hold and its modules import no cycle.

The layers are import-linter contracts in pyproject.toml ([tool.importlinter]); `lint-imports`
checks them, imports inside functions included. grimp (import-linter's graph) gives the graph
the no-cycle check walks."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import networkx as nx
import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib


@pytest.fixture(scope="module")
def graph() -> nx.DiGraph:
    g = grimp.build_graph("commbook")
    out = nx.DiGraph()
    for module in g.modules:
        out.add_node(module)
        for target in g.find_modules_directly_imported_by(module):
            out.add_edge(module, target)
    return out


def test_contracts_hold(repo):
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    run = subprocess.run([exe, "--no-cache"], cwd=repo, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "0 broken" in run.stdout


def test_every_module_sits_in_a_layer(repo):
    config = tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["importlinter"]
    [layers] = [c["layers"] for c in config["contracts"] if c["type"] == "layers"]
    named = {m.strip() for layer in layers for m in layer.split(":")}
    top = {
        ".".join(p.relative_to(repo / "src").with_suffix("").parts[:2])
        for p in (repo / "src" / "commbook").iterdir()
        if (p.suffix == ".py" or (p / "__init__.py").exists()) and not p.name.startswith("_")
    }
    assert top - named == set(), "modules in no layer of [tool.importlinter]"


def test_graph_sees_imports_inside_functions(graph):
    assert graph.has_edge("commbook.cli.fit", "commbook.fit")  # imported inside a function
    assert graph.has_edge("commbook.cli.measure", "commbook.kernels")


def test_no_import_cycles(graph):
    found = []
    for group in nx.strongly_connected_components(graph):
        if len(group) > 1:
            edges = nx.find_cycle(graph.subgraph(group))
            found.append(" -> ".join([u for u, _ in edges] + [edges[0][0]]))
    assert not found, "import cycles among commbook modules:\n" + "\n".join(sorted(found))


def test_every_module_is_in_contributings_package_map(repo):
    """CONTRIBUTING's package map names every module (a new module gets its line there)."""
    text = (repo / "CONTRIBUTING.md").read_text(encoding="utf-8")
    table = text[text.index("### Package map") : text.index("## Kernel conventions")]
    named = {name for row in re.findall(r"^\| ([^|]+) \|", table, re.M) for name in re.findall(r"`([^`]+)`", row)}
    missing = []
    for path in sorted((repo / "src" / "commbook").rglob("*.py")):
        module = path.relative_to(repo / "src" / "commbook").with_suffix("").as_posix()
        if module not in named:  # a page package's module is named once for every page: chapters/<page>/claims
            module = re.sub(r"^chapters/[^/]+/", "chapters/<page>/", module)
        package = module.rsplit("/", 1)[0] if "/" in module else ""
        # a package's __init__ is covered by its package's rows
        if module in named or (module.endswith("__init__") and any(n.startswith(package) for n in named)):
            continue
        if package in named or f"{package}/<chapter>" in named:
            continue
        missing.append(module)
    assert not missing, "modules missing from CONTRIBUTING's package map: " + ", ".join(missing)
