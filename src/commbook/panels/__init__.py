"""Run panels: a reader's own measurement from a chapter's page (ipywidgets in a live kernel, the
equivalent `commbook measure` command in the static book). `commbook.panel_specs` checks values,
each chapter's `panel` module (found by `chapters`) says what its panel controls, `runner` runs and
keeps the results, `widget` is the UI."""
