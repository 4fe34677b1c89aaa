"""Sphinx extension: the References page's citation list as accessible HTML.

docutils marks each entry of a citation list role="doc-biblioentry", a deprecated ARIA role that
a role="list" may not contain (axe: aria-required-children): a list item it is."""

from __future__ import annotations


def aria_bibliography(app, pagename, templatename, context, doctree):
    """Each citation entry of the page's body as role="listitem"."""
    body = context.get("body")
    if body and 'role="doc-biblioentry"' in body:
        context["body"] = body.replace('role="doc-biblioentry"', 'role="listitem"')


def setup(app):
    app.connect("html-page-context", aria_bibliography)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
