"""The module graph of commbook has no import cycles (issue 9: one concern, one home).

Every import counts, also those inside functions: a lazy import that dodges a cycle at start-up
still ties the two modules together."""
import ast
from pathlib import Path

import networkx as nx
import pytest

def module_name(src: Path, path: Path) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(tree: ast.AST, name: str, is_package: bool, modules: set[str]) -> set[str]:
    """The commbook modules one module imports anywhere in its body."""
    package = name if is_package else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            # `from pkg import mod` imports the module pkg.mod; `from mod import name` imports mod
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                       for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:  # `import commbook.x.attr` -> commbook.x
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def module_graph(src: Path) -> nx.DiGraph:
    paths = {module_name(src, p): p for p in sorted((src / "commbook").rglob("*.py"))}
    graph = nx.DiGraph()
    graph.add_nodes_from(paths)
    for name, path in paths.items():
        tree = ast.parse(path.read_text(), str(path))
        for target in imports(tree, name, path.name == "__init__.py", set(paths)):
            graph.add_edge(name, target)
    return graph


def cycles(graph: nx.DiGraph) -> list[tuple[frozenset, str]]:
    """Each strongly connected group of modules, with one cycle through it spelled out."""
    out = []
    for group in nx.strongly_connected_components(graph):
        if len(group) > 1:
            edges = nx.find_cycle(graph.subgraph(group))
            out.append((frozenset(group), " -> ".join([u for u, _ in edges] + [edges[0][0]])))
    return sorted(out, key=lambda c: c[1])


@pytest.fixture(scope="module")
def graph(repo):
    return module_graph(repo / "src")


def test_graph_sees_function_level_and_relative_imports():
    modules = {"commbook", "commbook.a", "commbook.b", "commbook.cli", "commbook.cli.c",
               "commbook.cli.d"}
    tree = ast.parse("import os\nfrom .. import a\nfrom . import d\n"
                     "def f():\n    from ..b import thing\n    import commbook.a.attr\n")
    assert imports(tree, "commbook.cli.c", False, modules) == {"commbook.a", "commbook.b",
                                                                "commbook.cli.d"}
    g = nx.DiGraph([("commbook.a", "commbook.b"), ("commbook.b", "commbook.cli.c"),
                    ("commbook.cli.c", "commbook.a"), ("commbook.a", "commbook.cli")])
    [(group, text)] = cycles(g)
    assert group == {"commbook.a", "commbook.b", "commbook.cli.c"}
    assert text.count("->") == 3


def test_graph_covers_the_package(graph):
    assert {"commbook.cli", "commbook.cli.measure", "commbook.config"} <= set(graph)
    assert graph.has_edge("commbook.cli.measure", "commbook.kernels")
    assert graph.has_edge("commbook.cli.fit", "commbook.fit")  # imported inside a function


def test_no_import_cycles(graph):
    found = [text for _, text in cycles(graph)]
    assert not found, "import cycles among commbook modules:\n" + "\n".join(found)
