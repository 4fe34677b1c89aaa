"""Sphinx extension: the `{claim}` role. `` {claim}`0.20 µs <name>` `` shows "0.20 µs"
(tests/test_claims.py checks the number against the claim `name`)."""

from __future__ import annotations

from docutils import nodes

from .check import split_role


def claim_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    try:
        stated = split_role(text)[0]  # a role without '<name>' is an error
    except ValueError as e:
        msg = inliner.reporter.error(str(e), line=lineno)
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    node = nodes.inline(rawtext, stated, classes=["claim"])
    return [node], []


def setup(app):
    app.add_role("claim", claim_role)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
