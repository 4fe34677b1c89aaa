"""Sphinx extension: the ``{verdict}`` directive, one sentence per case, the case chosen by the run.

````
```{verdict} ring_model
below
: The model lands below every measured ring.

above
: The model lands above every measured ring.
```
````

The page's code glues ``ring_model`` with ``glued.verdict`` (a :class:`commbook.verdict.Verdict`).
The directive shows the definition of the glued case and fails the build (a warning, an error
under ``-W``) when the glue is missing, when the content is not one definition list, or when its
terms are not exactly the cases the verdict function declares: every case has its words here.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.util.docutils import SphinxDirective
from sphinx.util.logging import getLogger

from .verdict import MIME

LOG = getLogger(__name__)


def worded_cases(content_nodes) -> dict[str, list[nodes.Node]]:
    """term -> the definition's nodes, from the directive's parsed content (one definition list)."""
    lists = [n for n in content_nodes if isinstance(n, nodes.definition_list)]
    if len(lists) != 1 or len(lists) != len(content_nodes):
        raise ValueError("its content must be one definition list: a case key, then ': its sentence'")
    worded = {}
    for item in lists[0].children:
        term = item.next_node(nodes.term).astext().strip()
        if term in worded:
            raise ValueError(f"case {term!r} is worded twice")
        worded[term] = list(item.next_node(nodes.definition).children)
    return worded


def glued_verdict(document, name: str) -> dict:
    from myst_nb.core.variables import RetrievalError
    from myst_nb.ext.glue.utils import retrieve_glue_data

    try:
        data = retrieve_glue_data(document, name).data
    except RetrievalError as e:
        raise LookupError(str(e)) from None
    if MIME not in data:
        raise LookupError(f"{name!r} was glued, but not as a verdict (use glued.verdict)")
    return data[MIME]


class VerdictDirective(SphinxDirective):
    required_arguments = 1
    has_content = True

    def run(self):
        name = self.arguments[0]
        container = nodes.container()
        self.state.nested_parse(self.content, self.content_offset, container)
        try:
            worded = worded_cases(container.children)
            verdict = glued_verdict(self.state.document, name)
        except (ValueError, LookupError) as e:
            LOG.warning(f"verdict {name}: {e}", location=self.get_location(), type="commbook", subtype="verdict")
            return []
        declared = set(verdict["cases"]) or {verdict["case"]}
        missing, extra = sorted(declared - set(worded)), sorted(set(worded) - declared)
        if missing or extra:
            LOG.warning(
                f"verdict {name}: the page words {sorted(worded)}, the code declares {sorted(declared)}"
                + (f"; no words for {missing}" if missing else "")
                + (f"; no such case {extra}" if extra else ""),
                location=self.get_location(),
                type="commbook",
                subtype="verdict",
            )
        chosen = worded.get(verdict["case"], [])
        # the case as a class too: tests of the rendered page read the case key, not its words
        case_class = f"verdict-case-{verdict['case'].replace('_', '-')}"
        wrapper = nodes.container(classes=["verdict", case_class], ids=[f"verdict-{name.replace('_', '-')}"])
        wrapper["case"] = verdict["case"]
        wrapper.extend(chosen)
        return [wrapper]


def setup(app):
    app.add_directive("verdict", VerdictDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
