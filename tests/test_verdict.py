"""The {verdict} directive: the run picks the case, the page holds every case's words."""

from __future__ import annotations

import textwrap

import pytest

from commbook.verdict import Verdict, cases


@cases("below", "above", "mixed")
def _model_side(ratios):
    if all(r > 1 for r in ratios):
        return Verdict("below", {"worst": max(ratios)})
    if all(r < 1 for r in ratios):
        return Verdict("above", {"worst": min(ratios)})
    return Verdict("mixed", {"worst": max(ratios)})


def test_a_verdict_carries_its_declared_cases_and_refuses_others():
    v = _model_side([1.2, 1.5])
    assert (v.case, v.cases, v.numbers) == ("below", ("below", "above", "mixed"), {"worst": 1.5})
    # the row a partial reading would leave out flips it
    assert _model_side([1.2, 1.5, 0.2]).case == "mixed"

    @cases("yes")
    def wrong():
        return Verdict("no")

    with pytest.raises(ValueError, match="'no' is not one of"):
        wrong()
    with pytest.raises(ValueError, match="not a finite number"):
        Verdict("yes", {"x": float("nan")})


PAGE = """\
---
jupytext:
  text_representation: {{extension: .md, format_name: myst}}
kernelspec: {{display_name: Python 3, language: python, name: python3}}
---
# Page

```{{code-cell}} ipython3
from commbook import glued
from commbook.verdict import Verdict

glued.verdict("side", Verdict("{case}", {{"worst": 1.49}}, ("below", "above")))
```

```{{verdict}} side
below
: The model lands below every ring (worst {{glue:text}}`side_worst:.2f`).
{extra}
```
"""


def _build(tmp_path, case, extra):
    from sphinx.application import Sphinx

    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        'extensions = ["myst_nb", "commbook.verdict_directive"]\n'
        'nb_execution_mode = "force"\nmyst_enable_extensions = ["deflist"]\n'
    )
    (src / "index.md").write_text(PAGE.format(case=case, extra=textwrap.dedent(extra)))
    warnings = tmp_path / "warnings.txt"
    with warnings.open("w") as w:
        Sphinx(str(src), str(src), str(tmp_path / "html"), str(tmp_path / "doctrees"), "html", warning=w).build()
    return (tmp_path / "html" / "index.html").read_text(), warnings.read_text()


def test_the_page_shows_the_glued_case_only(tmp_path):
    html, warnings = _build(tmp_path, "above", "\nabove\n: The model lands above every ring.\n")
    assert "verdict" not in warnings, warnings
    assert "lands above" in html and "lands below" not in html  # the directive's own test page
    assert 'class="verdict verdict-case-above' in html  # the case key, for tests of the book's pages


def test_a_case_without_words_in_the_page_fails_the_build(tmp_path):
    html, warnings = _build(tmp_path, "below", "")
    assert "no words for ['above']" in warnings


def test_a_case_without_a_number_its_pages_words_quote_is_found():
    """tests/verdict_numbers.py: the words of every case are parsed, so a case that glues fewer
    numbers than another case's words quote fails the build where it is picked."""
    from verdict_numbers import directives, missing_numbers

    page = {"page": "p", "name": "v", "function": "side", "cases": ["a", "b"], "quoted": {"x", "y"}}
    both = [
        {"function": "side", "cases": ["a", "b"], "case": "a", "numbers": ["x", "y"]},
        {"function": "side", "cases": ["a", "b"], "case": "b", "numbers": ["x", "y", "z"]},
    ]
    assert missing_numbers([page], both) == []
    short = [*both, {"function": "side", "cases": ["a", "b"], "case": "b", "numbers": ["x"]}]
    (problem,) = missing_numbers([page], short)
    assert "case 'b' without ['y']" in problem
    # a number no case glues is glued elsewhere on the page (or misspelt: the build says so)
    assert missing_numbers([{**page, "quoted": {"x", "w"}}], short) == []
    # the book's directives are read: pp_eager's words quote its ratios
    (eager,) = [d for d in directives() if d["name"] == "pp_eager"]
    assert eager["function"] == "eager_against_rendezvous" and {"ratio_min", "ratio_max"} <= eager["quoted"]


def test_a_case_the_page_does_not_word_as_a_term_is_found(tmp_path):
    """A case term glued to the previous case's words (no blank line before it) is read by MyST as
    more words, not a term: the plugin reads the page so and names the term."""
    from verdict_numbers import directives, missing_numbers

    page = """```{verdict} v
a
: words {glue:text}`v_x:.1f`.
b
: words {glue:text}`v_x:.1f`.
```
"""
    (tmp_path / "p.md").write_text(page + 'glued.verdict("v", side(1))\n')
    (d,) = directives(tmp_path)
    assert d["cases"] == ["a"] and d["glued_terms"] == ["b"]
    records = [{"function": "side", "cases": ["a", "b"], "case": "a", "numbers": ["x"]}]
    (problem,) = missing_numbers([d], records)
    assert "['b'] follow the words before them" in problem
    (tmp_path / "p.md").write_text(page.replace("\nb\n", "\n\nb\n") + 'glued.verdict("v", side(1))\n')
    assert missing_numbers(directives(tmp_path), records) == []
